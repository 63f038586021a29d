import type { Command } from 'commander';
import { lineCreateShape } from '../../lib/schemas/invoice.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureCreate } from '../../lib/command/resource-writes.js';
import { LINE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureCreate(cmd, LINE, lineCreateShape, invoke);
  cmd
    .addHelpText(
      'after',
      prose(
        'Only a draft invoice takes lines. The amount is per unit, in euro (12,50 and 12.50 are both read as twelve and a half); a negative amount is a discount (--amount -5). The tax rate is a percentage (21, or 9,5). On a terminal, a missing invoice is picked from the drafts (type the name or email of its customer to search).',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing lines create --invoice-id 12 --description "Lunchbox" --amount 10 --tax-rate 21 --quantity 2',
        'billing lines create --invoice-id 12 --description "Monthly box, VAT included" --amount 12,10 --tax-rate 21 --tax-included',
        'billing lines create --invoice-id 12 --description "Loyalty discount" --amount -5 --tax-rate 21',
        'billing lines create --data @line.json --json',
      ),
    );
}
