import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, runList } from '../../lib/command/resource.js';
import { INVOICE_SORT_FIELDS, INVOICE_STATUSES } from '../../lib/schemas/vocabulary.js';
import { choiceFlag, idFilter, searchFlag, sortFlag } from '../subscriptions/find.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addListOptions(cmd, ['subscriptions'])
    .option('--status <status>', `only invoices in this status (${INVOICE_STATUSES.join(', ')})`)
    .option('--customer-id <n>', "only this customer's invoices")
    .option('--subscription-id <n>', "only this subscription's invoices")
    .option(
      '--search <text>',
      'only invoices whose reference holds this text (in any case), or whose customer it finds (as customers list --search)',
    )
    .option(
      '--refund-due',
      'only credit invoices owed to the customer (their original collected or paid) not yet marked refunded',
    )
    .option(
      '--sort <field>',
      `order by ${INVOICE_SORT_FIELDS.join(', ')}; -field for descending, e.g. -invoice_date (default: id)`,
    )
    .action((opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) =>
        runList(deps, INVOICE.path, INVOICE.type, { ...listOptions(opts), find: invoiceFind(opts) }),
      ),
    );
  cmd.addHelpText(
    'after',
    examples(
      'billing invoices list',
      'billing invoices list --status open --sort -invoice_date',
      'billing invoices list --customer-id 42 --all -o csv',
      'billing invoices list --subscription-id 7 --include subscriptions --json',
      'billing invoices list --search INV-7',
      'billing invoices list --status completed --refund-due',
    ),
  );
}

/** The filter[…] and sort parameters of the flags, checked here so a mistake costs no request. */
export function invoiceFind(opts: Record<string, unknown>): Record<string, string | undefined> {
  const search = searchFlag(opts.search);
  return {
    'filter[status]': choiceFlag(opts.status, '--status', INVOICE_STATUSES),
    'filter[customer_id]': idFilter(opts.customerId, '--customer-id'),
    'filter[subscription_id]': idFilter(opts.subscriptionId, '--subscription-id'),
    'filter[search]': search,
    'filter[refund_due]': opts.refundDue ? 'true' : undefined,
    sort: sortFlag(opts.sort, INVOICE_SORT_FIELDS),
  };
}
