// credit ID: a new draft invoice holding the original's lines with negated amounts, its
// original-invoice the given one. Confirmed first on a terminal; --yes without one.
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId } from '../../lib/command/resource.js';
import { confirmedWrite } from './confirmed.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'invoice id')
    .addHelpText(
      'after',
      prose(
        'Makes a draft credit invoice: the lines of the invoice with their amounts negated, both dates empty, and the invoice as its original invoice. Finalise the draft to issue it. Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText('after', examples('billing invoices credit 12', 'billing invoices credit 12 --yes --query data.id'))
    .action((idText: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        // The hosted service's own clients send PATCH (POST is accepted too).
        const request = {
          method: 'PATCH',
          path: `${INVOICE.path}/${id}/credit`,
          type: INVOICE.type,
          done: `credited invoice ${id}: draft credit invoice`,
        } as const;
        await confirmedWrite(
          deps,
          request,
          `credit invoice ${id}`,
          `Credit invoice ${id}? A draft credit invoice with the negated lines is made.`,
        );
      }),
    );
}
