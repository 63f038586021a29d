// store restore NAME: the store replaced by one of its snapshots, after confirming.
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose, refusesDryRun } from '../../lib/command/registry.js';
import { restore } from './snapshotting.js';

export function configure(cmd: Command, invoke: Invoke): void {
  refusesDryRun(
    cmd.argument('<name>', 'the snapshot to put back'),
    'it replaces the whole store: take a snapshot first (billing store snapshot NAME) and restore that to undo it',
  )
    .addHelpText(
      'after',
      prose(
        'Replaces everything in the store by the snapshot (a running billing serve sees the old store or the new one, never a mix). Asks first on a terminal; needs --yes without one. The snapshot is kept.',
      ),
    )
    .addHelpText('after', examples('billing store restore before-import', 'billing store restore before-import --yes'))
    .action((name: string, _opts: unknown, command: Command) => invoke(command, (deps) => restore(deps, name)));
}
