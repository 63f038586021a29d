import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, runList } from '../../lib/command/resource.js';
import { addSubscriptionFindOptions, subscriptionFind } from './find.js';
import { SUBSCRIPTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addSubscriptionFindOptions(addListOptions(cmd, ['customer'])).action(
    (opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) =>
        runList(deps, SUBSCRIPTION.path, SUBSCRIPTION.type, { ...listOptions(opts), find: subscriptionFind(opts) }),
      ),
  );
  cmd.addHelpText(
    'after',
    examples(
      'billing subscriptions list',
      'billing subscriptions list --status active',
      'billing subscriptions list --customer-id 42 --include customer --json',
      'billing subscriptions list --plan-id 1 --sort -start_date --all -o csv',
      'billing subscriptions list --search LID-2026',
    ),
  );
}
