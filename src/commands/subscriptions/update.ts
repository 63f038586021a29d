import type { Command } from 'commander';
import { subscriptionUpdateShape } from '../../lib/schemas/subscription.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureUpdate } from '../../lib/command/resource-writes.js';
import { SUBSCRIPTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureUpdate(cmd, SUBSCRIPTION, subscriptionUpdateShape, invoke);
  cmd.addHelpText(
    'after',
    examples(
      'billing subscriptions update 7 --transaction-webhook-url https://example.com/hooks/billing',
      'billing subscriptions update 7 --cancel-date 2027-06-30',
      'billing subscriptions update 7 --cancel-date ""   # clears it',
      'billing subscriptions update 7 --no-confirmation-sent   # was true: a new confirmation_page, sent again',
      'billing subscriptions update 7 --data \'{"metadata": {"member": "A-17"}}\'',
    ),
  );
}
