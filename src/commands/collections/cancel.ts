// cancel ID: PATCH /collections/{id} with status cancelled, asked first on a terminal (--yes without one).
import type { Command } from 'commander';
import { confirmAction } from '../../lib/command/confirm.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId, runWrite } from '../../lib/command/resource.js';
import { COLLECTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'collection batch id')
    .addHelpText(
      'after',
      prose(
        'Only a batch not yet exported can be cancelled: once its file has been given out it may be at the bank, whose reports settle it. Its transactions go back to waiting for the next batch. Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText('after', examples('billing collections cancel 3', 'billing collections cancel 3 --yes --json'))
    .action((idText: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        const request = {
          method: 'PATCH',
          path: `${COLLECTION.path}/${id}`,
          type: COLLECTION.type,
          id,
          attributes: { status: 'cancelled' },
          done: 'cancelled collection',
        } as const;
        if (!deps.globals.dryRun)
          await confirmAction(
            deps,
            `cancel collection ${id}`,
            `Cancel collection batch ${id}? Its transactions wait for the next batch.`,
          );
        await runWrite(deps, request);
      }),
    );
}
