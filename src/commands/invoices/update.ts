import type { Command } from 'commander';
import { invoiceUpdateShape } from '../../lib/schemas/invoice.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureUpdate } from '../../lib/command/resource-writes.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureUpdate(cmd, INVOICE, invoiceUpdateShape, invoke);
  cmd
    .addHelpText('after', prose('Only a draft can be changed; its lines are changed with billing lines update.'))
    .addHelpText(
      'after',
      examples(
        'billing invoices update 12 --invoice-date 2026-12-01',
        'billing invoices update 12 --transaction-date 2026-12-10 --send-email',
        'billing invoices update 12 --invoice-date ""   # clears it',
      ),
    );
}
