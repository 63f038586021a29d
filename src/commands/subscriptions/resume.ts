import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { parseId } from '../../lib/command/resource.js';
import { patchSubscription } from './shortcuts.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'subscription id')
    .addHelpText('after', examples('billing subscriptions resume 7', 'billing subscriptions resume 7 --json'))
    .action((idText: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        await patchSubscription(deps, id, { status: 'active' }, 'resumed');
      }),
    );
}
