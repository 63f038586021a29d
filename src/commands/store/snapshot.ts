// store snapshot NAME: a whole copy of the SQLite store, kept beside it.
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose, refusesDryRun } from '../../lib/command/registry.js';
import { snapshot } from './snapshotting.js';

export function configure(cmd: Command, invoke: Invoke): void {
  refusesDryRun(
    cmd.argument('<name>', 'the snapshot’s name (letters, digits, . _ -)'),
    'a snapshot changes nothing in the store: take it, or see the ones there are with billing store snapshots',
  )
    .addHelpText(
      'after',
      prose(
        'Takes a consistent copy of the whole store through SQLite’s backup API, while other processes keep working, into <store>.snapshots/NAME.db beside it. A name is used once. PostgreSQL stores: use the database’s own tools.',
      ),
    )
    .addHelpText('after', examples('billing store snapshot before-import', 'billing store snapshot 2026-11-22 --json'))
    .action((name: string, _opts: unknown, command: Command) => invoke(command, (deps) => snapshot(deps, name)));
}
