import type { Command } from 'commander';
import { subscriptionCreateShape } from '../../lib/schemas/subscription.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureCreate } from '../../lib/command/resource-writes.js';
import { SUBSCRIPTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureCreate(cmd, SUBSCRIPTION, subscriptionCreateShape, invoke);
  cmd
    .addHelpText(
      'after',
      prose(
        "On a terminal, a missing customer (not archived) or plan (active) is picked from a list (type to search: a customer by name, email, IBAN or phone). Without other flags the customer is sent a mandate confirmation by the plan's channel; --mandate-accepted with --mandate-accepted-date, or --confirmation-sent, sends none. --status active activates at once.",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing subscriptions create --customer-id 42 --subscription-plan-id 1',
        'billing subscriptions create --customer-id 42 --subscription-plan-id 1 --mandate-accepted --mandate-accepted-date 2026-12-01 --status active',
        'billing subscriptions create --customer-id 42 --subscription-plan-id 1 --start-date 2027-01-01 --mandate-code LID-2026-0042',
        'billing subscriptions create --data @subscription.json --json',
      ),
    );
}
