// store snapshots: the snapshots kept beside the SQLite store, oldest first.
import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { list } from './snapshotting.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .addHelpText('after', examples('billing store snapshots', 'billing store snapshots --json --query "[].name"'))
    .action((_opts: unknown, command: Command) => invoke(command, (deps) => list(deps)));
}
