import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { ApiError, UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addReadOptions, parseId, readOptions, runGet, send } from '../../lib/command/resource.js';
import { CUSTOMER } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addReadOptions(cmd.argument('<id>', 'customer id, or the email address of exactly one customer'), [
    'subscriptions',
  ]).action((target: string, opts: Record<string, unknown>, command: Command) =>
    invoke(command, async (deps) => {
      const options = readOptions(opts);
      const id = target.includes('@') ? await idOfEmail(deps, target.trim()) : parseId(target);
      await runGet(deps, `${CUSTOMER.path}/${id}`, options);
    }),
  );
  cmd.addHelpText(
    'after',
    examples(
      'billing customers get 42',
      'billing customers get jan@example.com',
      'billing customers get 42 --json',
      'billing customers get 42 --include subscriptions --json',
    ),
  );
}

/** How many ids a refusal lists when several customers share the email. */
const LISTED = 10;

/** The id of the one customer with this email (in any case): none is exit 1, several exit 2. */
async function idOfEmail(deps: Deps, email: string): Promise<number> {
  const response = await send(deps, {
    method: 'GET',
    path: CUSTOMER.path,
    query: { 'filter[email]': email, 'fields[customer]': 'email', 'page[size]': LISTED },
  });
  const body = response.body as { data?: { id: string }[]; meta?: { total?: number } };
  const ids = (body.data ?? []).map((customer) => customer.id);
  const total = body.meta?.total ?? ids.length;
  // As a missing id is answered: the 404 document (printed on stdout with --json), exit 1.
  if (ids.length === 0)
    throw new ApiError(404, {
      errors: [{ status: '404', title: 'Not Found', detail: `no customer with email ${email}` }],
    });
  if (total > 1 || ids.length > 1) {
    const more = total > ids.length ? ` and ${total - ids.length} more` : '';
    throw new UsageError(
      `${total} customers have the email ${email} (ids ${ids.join(', ')}${more}): give the id of one`,
    );
  }
  return Number(ids[0]);
}
