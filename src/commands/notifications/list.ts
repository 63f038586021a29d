import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, runList } from '../../lib/command/resource.js';
import { idFilter } from '../subscriptions/find.js';
import { NOTIFICATION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addListOptions(cmd, [])
    .option('--subscription-id <n>', 'only notifications about this subscription')
    .option('--customer-id <n>', 'only notifications to this customer')
    .action((opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) => {
        const find = {
          'filter[subscription_id]': idFilter(opts.subscriptionId, '--subscription-id'),
          'filter[customer_id]': idFilter(opts.customerId, '--customer-id'),
        };
        return runList(deps, NOTIFICATION.path, NOTIFICATION.type, { ...listOptions(opts), find });
      }),
    );
  cmd.addHelpText(
    'after',
    examples(
      'billing notifications list',
      'billing notifications list --subscription-id 7',
      'billing notifications list --customer-id 42 --all --json',
    ),
  );
}
