// archive ID / unarchive ID: PATCH archived true or false.
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { parseId, runWrite } from '../../lib/command/resource.js';
import { CUSTOMER } from './index.js';

export function configureArchiving(cmd: Command, invoke: Invoke, archived: boolean): void {
  const verb = archived ? 'archive' : 'unarchive';
  cmd
    .argument('<id>', 'customer id')
    .addHelpText('after', examples(`billing customers ${verb} 42`))
    .action((idText: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        await runWrite(deps, {
          method: 'PATCH',
          path: `${CUSTOMER.path}/${id}`,
          type: CUSTOMER.type,
          id,
          attributes: { archived },
          done: `${verb}d customer`,
        });
      }),
    );
}
