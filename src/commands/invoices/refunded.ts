// refunded ID [--date D]: a credit invoice owed to the customer is marked paid back, so it leaves
// `invoices list --refund-due`.
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId, runWrite } from '../../lib/command/resource.js';
import { dateFlag } from '../subscriptions/shortcuts.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'credit invoice id')
    .option('--date <date>', 'the day the money went back (default: today), on or before today')
    .addHelpText(
      'after',
      prose(
        'For a credit invoice whose refund is due (finalised below zero, its original invoice collected or paid): records that the money went back to the customer, once. It then leaves billing invoices list --refund-due.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing invoices list --status completed --refund-due',
        'billing invoices refunded 13',
        'billing invoices refunded 13 --date 2026-12-03',
      ),
    )
    .action((idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        const date = dateFlag(opts.date, '--date');
        await runWrite(deps, {
          method: 'PATCH',
          path: `${INVOICE.path}/${id}/refunded`,
          type: INVOICE.type,
          id,
          attributes: date === undefined ? undefined : { refunded_on: date },
          done: 'marked refunded: invoice',
        });
      }),
    );
}
