// cancel ID: status cancelled at once (final); cancel ID --on D: a cancel_date, the status unchanged
// until that day. Confirmed first on a terminal; --yes without one.
import type { Command } from 'commander';
import { confirmAction } from '../../lib/command/confirm.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId } from '../../lib/command/resource.js';
import { dateFlag, patchSubscription } from './shortcuts.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'subscription id')
    .option('--on <date>', 'cancel on this day instead of now (today cancels at once); the status stays until then')
    .addHelpText(
      'after',
      prose(
        'A cancelled subscription cannot be activated again; what is not yet collected is cancelled, a transaction already collected still completes. Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing subscriptions cancel 7',
        'billing subscriptions cancel 7 --on 2027-06-30',
        'billing subscriptions cancel 7 --yes --json',
      ),
    )
    .action((idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        const on = dateFlag(opts.on, '--on');
        if (!deps.globals.dryRun) {
          if (on === undefined)
            await confirmAction(
              deps,
              `cancel subscription ${id}`,
              `Cancel subscription ${id} now? This cannot be undone.`,
            );
          else
            await confirmAction(
              deps,
              `cancel subscription ${id} on ${on}`,
              `Cancel subscription ${id} on ${on}? From that day it cannot be undone.`,
            );
        }
        if (on === undefined) await patchSubscription(deps, id, { status: 'cancelled' }, 'cancelled');
        else await patchSubscription(deps, id, { cancel_date: on }, `scheduled the cancellation on ${on} of`);
      }),
    );
}
