// clock advance DURATION: the clock moved forward by an ISO 8601 duration (months and days by the
// calendar of the account's zone), running what falls due on the way.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { clockRuntime, embeddedMode, printDryRun, printMove } from './moving.js';

export async function run(duration: string, deps: Deps): Promise<void> {
  embeddedMode(deps, 'advance');
  const text = duration.trim().toUpperCase();
  const { isDuration } = await import('../../lib/runtime/clock.js');
  // Whether it is a duration at all does not depend on the time: checked before the store is opened.
  if (!isDuration(text)) {
    throw new UsageError(
      `DURATION must be an ISO 8601 duration that moves the clock on, such as P1M, P10D, PT6H or P1Y2M3DT4H, not "${duration}"`,
    );
  }
  const { runtime, clock } = await clockRuntime(deps, 'advance');
  const { now, local } = await clock.readClock(runtime);
  const to = await clock.advancedBy(runtime, text);
  if (deps.globals.dryRun) return printDryRun(deps, 'advance', local(now), local(to), true);
  await printMove(deps, runtime, clock.setClock(runtime, to));
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<duration>', 'ISO 8601 duration: P1M (a month), P10D (ten days), PT6H (six hours), P1Y2M3DT4H')
    .addHelpText(
      'after',
      prose(
        "Moves the clock forward from the store's time (a test time, or real time the first time). Everything that falls due on the way runs in date order; the status changes it made are printed.",
      ),
    )
    .addHelpText(
      'after',
      examples('billing clock advance P1M', 'billing clock advance P10D --json', 'billing clock advance PT6H'),
    )
    .action((duration: string, _opts: unknown, command: Command) => invoke(command, (deps) => run(duration, deps)));
}
