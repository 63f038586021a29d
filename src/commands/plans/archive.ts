// plans archive: the plan takes no new subscriptions; its subscriptions go on (embedded store only).
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId } from '../../lib/command/resource.js';
import { changePlan } from './update.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'the plan')
    .addHelpText(
      'after',
      prose(
        'Its subscriptions go on being collected; new ones on it are refused. Undo it with billing plans update ID --no-archived.',
      ),
    )
    .addHelpText('after', examples('billing plans archive 3', 'billing plans archive 3 --json'))
    .action((idText: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        await changePlan(deps, id, { archived: true }, 'plans archive', `plan ${id} is already archived`);
      }),
    );
}
