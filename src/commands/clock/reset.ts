// clock reset: back to real time. The clock never goes back: a test time in the future is refused.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { clockRuntime, printDryRun, printMove } from './moving.js';

export async function run(deps: Deps): Promise<void> {
  const { runtime, clock } = await clockRuntime(deps, 'reset');
  if (deps.globals.dryRun) {
    // Real time as the runtime sees it (a test's fixed clock included), not the store's test time.
    const { now, real, local } = await clock.readClock(runtime);
    return printDryRun(deps, 'reset', local(now), local(real), false);
  }
  await printMove(deps, runtime, clock.resetClock(runtime));
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .addHelpText(
      'after',
      prose(
        'Returns the store to real time. The clock never goes back: while the test time is ahead of real time, this is refused (exit 2). What falls due up to now runs, in date order.',
      ),
    )
    .addHelpText('after', examples('billing clock reset', 'billing clock reset --json'))
    .action((_opts: unknown, command: Command) => invoke(command, run));
}
