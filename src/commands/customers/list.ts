import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, runList } from '../../lib/command/resource.js';
import { CUSTOMER_SORT_FIELDS } from '../../lib/schemas/vocabulary.js';
import { CUSTOMER } from './index.js';

const SORTS = CUSTOMER_SORT_FIELDS.join(', ');

export function configure(cmd: Command, invoke: Invoke): void {
  addListOptions(cmd, ['subscriptions'])
    .option('--email <email>', 'only the customer with this email address (in any case)')
    .option(
      '--search <text>',
      'only customers with every word of this in their name, company, email, IBAN or phone, in any order, ' +
        'case and accents aside; best match first (unless --sort)',
    )
    .option('--archived', 'only archived customers')
    .option('--active', 'only customers that are not archived')
    .option('--sort <field>', `order by ${SORTS}; -field for descending, e.g. -created_at (default: id)`)
    .action((opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) =>
        runList(deps, CUSTOMER.path, CUSTOMER.type, { ...listOptions(opts), find: findOptions(opts) }),
      ),
    );
  cmd.addHelpText(
    'after',
    examples(
      'billing customers list',
      'billing customers list --search jansen',
      'billing customers list --search "Jeroen van der Geer"',
      'billing customers list --search 4300',
      'billing customers list --search "06 1234 5678"',
      'billing customers list --email jan@example.com',
      'billing customers list --archived --sort -created_at',
      'billing customers list --active --sort last_name --all -o csv',
      'billing customers list --page 2 --page-size 50',
      'billing customers list --fields customer=first_name,email -o csv',
    ),
  );
}

/** The filter[…] and sort parameters of the flags, checked here so a mistake costs no request. */
export function findOptions(opts: Record<string, unknown>): Record<string, string | undefined> {
  if (opts.archived && opts.active)
    throw new UsageError('--archived and --active exclude each other: give one of them, or neither for both');
  for (const flag of ['email', 'search'] as const) {
    if (typeof opts[flag] === 'string' && !opts[flag].trim()) throw new UsageError(`--${flag} must not be empty`);
  }
  const sort = opts.sort as string | undefined;
  if (sort !== undefined && !(CUSTOMER_SORT_FIELDS as readonly string[]).includes(sort.replace(/^-/, ''))) {
    throw new UsageError(
      `--sort takes one of ${SORTS}, with a leading - for descending order (e.g. -created_at), not "${sort}"`,
    );
  }
  return {
    'filter[email]': opts.email as string | undefined,
    'filter[search]': opts.search as string | undefined,
    'filter[archived]': opts.archived ? 'true' : opts.active ? 'false' : undefined,
    sort,
  };
}
