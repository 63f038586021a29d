import type { Command } from 'commander';
import { transactionCreateShape } from '../../lib/schemas/subscription.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureCreate } from '../../lib/command/resource-writes.js';
import { TRANSACTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureCreate(cmd, TRANSACTION, transactionCreateShape, invoke);
  cmd
    .addHelpText(
      'after',
      prose(
        'On a terminal, a missing subscription is picked from the active ones (type part of its mandate code, or the name or email of its customer, to search). The transaction is retried as often as the plan says when it is returned.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing transactions create --subscription-id 7 --amount 12,50',
        'billing transactions create --subscription-id 7 --amount 25 --due-date 2026-12-15 --description "Extra box"',
        'billing transactions create --data \'{"subscription_id": 7, "amount": 12.5}\' --json',
      ),
    );
}
