// clock show: the store's time in the account's zone, and whether it is a test time.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { renderPlain } from '../../lib/output/render.js';
import { clockRuntime, shownTime } from './moving.js';

export async function run(deps: Deps): Promise<void> {
  const { runtime, clock } = await clockRuntime(deps, 'show');
  const { now, test, local } = await clock.readClock(runtime);
  const shown = { now: local(now), test };
  await renderPlain(shown, deps.globals, deps.io, () => Promise.resolve(`${shownTime(shown.now, test)}\n`));
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .addHelpText(
      'after',
      examples(
        'billing clock show',
        'billing clock show --json   # {"now": "2027-01-31T00:00:00+01:00", "test": true}',
      ),
    )
    .action((_opts: unknown, command: Command) => invoke(command, run));
}
