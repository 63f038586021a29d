import type { Command } from 'commander';
import { Option } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, runList } from '../../lib/command/resource.js';
import { DELIVERY_STATUSES } from '../../lib/schemas/vocabulary.js';
import { DELIVERY } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addListOptions(cmd, [])
    .addOption(new Option('--status <status>', 'only deliveries in this state').choices(DELIVERY_STATUSES))
    .action((opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) =>
        runList(deps, DELIVERY.path, DELIVERY.type, {
          ...listOptions(opts),
          find: { 'filter[status]': opts.status as string | undefined },
        }),
      ),
    );
  cmd.addHelpText(
    'after',
    examples(
      'billing webhooks list',
      'billing webhooks list --status failed',
      'billing webhooks list --status pending --json',
    ),
  );
}
