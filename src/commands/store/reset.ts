// store reset: the store emptied (an empty store of this version put over it), after confirming.
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose, refusesDryRun } from '../../lib/command/registry.js';
import { reset } from './snapshotting.js';

export function configure(cmd: Command, invoke: Invoke): void {
  refusesDryRun(
    cmd,
    'it empties the whole store: take a snapshot first (billing store snapshot NAME) and restore that to undo it',
  )
    .addHelpText(
      'after',
      prose(
        'Empties the store: every account, customer, plan, subscription, invoice and transaction goes; the snapshots stay. Asks first on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText(
      'after',
      examples('billing store snapshot before-reset && billing store reset --yes', 'billing store reset'),
    )
    .action((_opts: unknown, command: Command) => invoke(command, (deps) => reset(deps)));
}
