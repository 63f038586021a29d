import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, runList } from '../../lib/command/resource.js';
import { idFilter, sortFlag } from '../subscriptions/find.js';
import { EVENT } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addListOptions(cmd, [])
    .option('--subscription-id <n>', "only this subscription's events (its own and its transactions')")
    .option('--sort <field>', 'id for the oldest first; -id, the default, for the newest first (--after: oldest first)')
    .action((opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) => {
        const options = listOptions(opts);
        // Newest first, as a person looks; --after (polling, resuming an export) goes in id order.
        const sort = sortFlag(opts.sort, ['id']) ?? (options.after === undefined ? '-id' : undefined);
        return runList(deps, EVENT.path, EVENT.type, {
          ...options,
          find: { 'filter[subscription_id]': idFilter(opts.subscriptionId, '--subscription-id'), sort },
        });
      }),
    );
  cmd.addHelpText(
    'after',
    examples(
      'billing events list',
      'billing events list --subscription-id 7',
      'billing events list --after 1200 -o ndjson   # what happened since event 1200, oldest first',
      'billing events list --all --sort id -o ndjson',
    ),
  );
}
