import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, runList } from '../../lib/command/resource.js';
import { idFilter } from '../subscriptions/find.js';
import { EVENT } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addListOptions(cmd, [])
    .option('--subscription-id <n>', "only this subscription's events (its own and its transactions')")
    .action((opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) =>
        runList(deps, EVENT.path, EVENT.type, {
          ...listOptions(opts),
          find: { 'filter[subscription_id]': idFilter(opts.subscriptionId, '--subscription-id') },
        }),
      ),
    );
  cmd.addHelpText(
    'after',
    examples('billing events list', 'billing events list --subscription-id 7', 'billing events list --all -o ndjson'),
  );
}
