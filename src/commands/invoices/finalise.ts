// finalise ID [--send-email|--no-send-email]: the command support staff type most, so it stays
// light: its one flag is declared here rather than from the invoice schema (which brings zod).
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId, runWrite } from '../../lib/command/resource.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'invoice id')
    .option('--send-email', 'email the invoice to the customer (default: as the invoice says)')
    .option('--no-send-email', 'finalise without emailing the customer')
    .addHelpText(
      'after',
      prose(
        "Finalising a draft gives it its reference (the account's prefix and its next number, without gaps) and makes it open, with a transaction for its amount due on its transaction date; an invoice of zero or less becomes completed. It needs at least one line, and cannot be undone: a finalised invoice is corrected by crediting it.",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing invoices finalise 12',
        'billing invoices finalise 12 --no-send-email',
        'billing invoices finalise 12 --query data.attributes.reference',
      ),
    )
    .action((idText: string, opts: { sendEmail?: boolean }, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        // No flag, no body: the invoice's own send_email decides.
        const attributes = opts.sendEmail === undefined ? undefined : { send_email: opts.sendEmail };
        await runWrite(deps, {
          method: 'PATCH',
          path: `${INVOICE.path}/${id}/finalise`,
          type: INVOICE.type,
          id,
          attributes,
          done: 'finalised invoice',
        });
      }),
    );
}
