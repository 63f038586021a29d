// credit ID [--line LINE_ID[:QUANTITY]]...: a new draft invoice holding the original's lines (all
// that is left of each, or the chosen ones) with negated amounts, its original-invoice the given
// one. Confirmed first on a terminal; --yes without one.
import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId } from '../../lib/command/resource.js';
import { statusOf } from '../../lib/command/confirm.js';
import { relatedId, type ResourceLike } from '../../lib/output/columns.js';
import { confirmedWrite, invoiceSubject } from './confirmed.js';
import { INVOICE } from './index.js';

/** --line 31 or --line 31:2, as the body's {"line_id", "quantity"}; the service checks the rest. */
function parseLine(text: string): { line_id: number; quantity?: number } {
  const match = /^\s*(\d+)\s*(?::\s*(\d+)\s*)?$/.exec(text);
  if (!match || Number(match[1]) < 1 || (match[2] !== undefined && Number(match[2]) < 1))
    throw new UsageError(`--line: must be LINE_ID or LINE_ID:QUANTITY, whole numbers from 1 (not "${text}")`);
  return match[2] === undefined
    ? { line_id: Number(match[1]) }
    : { line_id: Number(match[1]), quantity: Number(match[2]) };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Refused before asking, as the service would refuse it: no credit of a draft, nor of a credit invoice. */
function refuseCredit(id: number, invoice: ResourceLike): void {
  if (statusOf(invoice) === 'draft')
    throw new UsageError(
      `invoice ${id} is a draft: change or delete it; only a finalised invoice is credited (nothing changed)`,
    );
  const original = relatedId(invoice, 'original-invoice');
  if (original)
    throw new UsageError(
      `invoice ${id} is a credit invoice of invoice ${original}: a credit invoice cannot be credited (nothing changed)`,
    );
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'invoice id')
    .option(
      '--line <line_id[:quantity]>',
      'credit this line of the invoice only, all that is left of it or QUANTITY of it (repeat for more lines)',
      collect,
    )
    .addHelpText(
      'after',
      prose(
        'Makes a draft credit invoice: the lines of the invoice with their amounts negated, both dates empty, and the invoice as its original invoice. Without --line every line is credited with all of it that is not credited yet; an invoice credited in full is refused, naming its credit invoice. A credit invoice cannot be credited. Finalise the draft to issue it: a credit in full of an invoice not yet collected cancels the invoice and its transaction; a credit of an invoice collected or paid is owed to the customer (billing invoices list --status completed --refund-due). Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing invoices credit 12',
        'billing invoices credit 12 --line 31 --line 32:1',
        'billing invoices credit 12 --yes --query data.id',
      ),
    )
    .action((idText: string, opts: { line?: string[] }, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        const lines = opts.line?.map(parseLine);
        // The hosted service's own clients send PATCH (POST is accepted too).
        const request = {
          method: 'PATCH',
          path: `${INVOICE.path}/${id}/credit`,
          type: INVOICE.type,
          attributes: lines === undefined ? undefined : { lines },
          done: `credited invoice ${id}: draft credit invoice`,
        } as const;
        await confirmedWrite(deps, request, `credit invoice ${id}`, async () => {
          const { invoice, named } = await invoiceSubject(deps, id);
          refuseCredit(id, invoice);
          return lines === undefined
            ? `Credit ${named}? A draft credit invoice with the negated lines is made.`
            : `Credit ${lines.length === 1 ? 'a line' : `${lines.length} lines`} of ${named}? A draft credit invoice with them negated is made.`;
        });
      }),
    );
}
