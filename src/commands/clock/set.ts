// clock set DATETIME: a test time, forward only; what falls due on the way runs, in date order.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { clockRuntime, embeddedMode, printDryRun, printMove } from './moving.js';

export async function run(text: string, deps: Deps): Promise<void> {
  embeddedMode(deps, 'set');
  const { isDateInput } = await import('../../lib/runtime/clock.js');
  // Whether it is a date at all does not depend on the zone: checked before the store is opened.
  if (!isDateInput(text.trim())) {
    throw new UsageError(
      `DATETIME must be a date (2026-12-01, 00:00 in the account's time zone) or a datetime with an offset (2026-12-01T09:00:00+01:00), not "${text}"`,
    );
  }
  const { runtime, clock } = await clockRuntime(deps, 'set');
  const { now, local } = await clock.readClock(runtime);
  const to = await clock.instantOf(runtime, text.trim());
  if (deps.globals.dryRun) {
    // Refused as the move itself is (the same words): the clock never goes back.
    if (Date.parse(to) < Date.parse(now))
      throw new UsageError(
        `the clock is at ${local(now)} and never goes back; give a time on or after it (to try things again, work on a copy of the store)`,
      );
    return printDryRun(deps, 'set', local(now), local(to), true);
  }
  await printMove(deps, runtime, clock.setClock(runtime, to));
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<datetime>', "a date (00:00 in the account's time zone) or a datetime with an offset")
    .addHelpText(
      'after',
      prose(
        'The clock only moves forward. Everything that falls due on the way (collections, retries, resuming, scheduled cancellations) runs in date order; the status changes it made are printed.',
      ),
    )
    .addHelpText(
      'after',
      examples('billing clock set 2027-01-31', 'billing clock set 2027-01-31T09:00:00+01:00 --json'),
    )
    .action((text: string, _opts: unknown, command: Command) => invoke(command, (deps) => run(text, deps)));
}
