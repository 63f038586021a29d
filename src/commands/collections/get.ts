import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureGet } from '../../lib/command/resource.js';
import { COLLECTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureGet(cmd, COLLECTION, [], invoke);
  cmd
    .addHelpText(
      'after',
      prose(
        "Shows the file's totals (MsgId, transactions, control sum), its blocks by collection date and sequence type, the creditor it was exported for, and how many of its collections the bank booked, rejected or returned, and how many wait for word.",
      ),
    )
    .addHelpText('after', examples('billing collections get 3', 'billing collections get 3 --json'));
}
