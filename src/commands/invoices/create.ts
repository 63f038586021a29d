import type { Command } from 'commander';
import { invoiceCreateShape } from '../../lib/schemas/invoice.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureCreate } from '../../lib/command/resource-writes.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureCreate(cmd, INVOICE, invoiceCreateShape, invoke);
  cmd
    .addHelpText(
      'after',
      prose(
        'Makes a draft (reference DRAFT, amounts 0.00): add lines with billing lines create, then finalise it. On a terminal, a missing subscription is picked from a list (type part of its mandate code, or the name or email of its customer, to search). A draft with an invoice date is finalised when that day has ended.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing invoices create --subscription-id 7',
        'billing invoices create --subscription-id 7 --invoice-date 2026-12-01 --transaction-date 2026-12-10 --no-send-email',
        'billing invoices create --data \'{"subscription_id": 7}\' --query data.id',
      ),
    );
}
