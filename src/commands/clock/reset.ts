// clock reset: back to real time. The clock never goes back: a test time in the future is refused.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { clockCore, printDryRun, printMove, zoneOf } from './moving.js';

export async function run(deps: Deps): Promise<void> {
  const core = await clockCore(deps, 'reset');
  const store = await import('../../lib/core/store-clock.js');
  if (deps.globals.dryRun) {
    const { local } = await zoneOf(core);
    const { now } = await store.showClock(core);
    // Real time as the core sees it (a test's fixed clock included), not the store's test time.
    const real = core.clock instanceof store.StoreClock ? core.clock.base : core.clock;
    return printDryRun(deps, 'reset', local(now), local(real.now().toISOString()), false);
  }
  await printMove(deps, core, await store.resetClock(core, (await core.account()).time_zone));
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .addHelpText('after', prose('Returns the store to real time. The clock never goes back: while the test time is ahead of real time, this is refused (exit 2). What falls due up to now runs, in date order.'))
    .addHelpText('after', examples('billing clock reset', 'billing clock reset --json'))
    .action((_opts: unknown, command: Command) => invoke(command, run));
}
