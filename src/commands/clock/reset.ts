// clock reset: back to real time. The clock never goes back: a test time in the future is refused.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { UsageError } from '../../lib/cli/errors.js';
import { clockRuntime, printDryRun, printMove } from './moving.js';

export async function run(deps: Deps): Promise<void> {
  const { runtime, clock } = await clockRuntime(deps, 'reset');
  if (deps.globals.dryRun) {
    // Real time as the runtime sees it (a test's fixed clock included), not the store's test time.
    const { now, real, local } = await clock.readClock(runtime);
    if (Date.parse(real) < Date.parse(now))
      throw new UsageError(
        `the test time ${local(now)} is ahead of real time (${local(real)}); going back to real time would move the clock back, which it never does (reset when real time has passed it, or work on a copy of the store)`,
      );
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
