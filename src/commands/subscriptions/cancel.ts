// cancel ID: status cancelled at once (final); cancel ID --on D: a cancel_date, the status unchanged
// until that day. Confirmed first on a terminal; --yes without one.
import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import { confirmAction, statusOf, subject, withFacts } from '../../lib/command/confirm.js';
import type { Deps } from '../../lib/command/deps.js';
import { personName, relatedId } from '../../lib/output/columns.js';
import { textOf } from '../../lib/schemas/json.js';
import { SUBSCRIPTION } from './index.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId } from '../../lib/command/resource.js';
import { dateFlag, patchSubscription } from './shortcuts.js';

/**
 * "Cancel subscription 7 (Gold monthly, Jan Jansen) now?", from the subscription as the service
 * shows it now. Refused before asking, as the service would refuse it: a day before today by the
 * store's clock (its Billing-Today, where it gives one), a day for a subscription cancelled
 * already. Cancelled already and no day: nothing to ask, the PATCH changes nothing and says so.
 */
async function question(deps: Deps, id: number, on: string | undefined): Promise<string | undefined> {
  const { data, included, headers } = await subject(deps, `${SUBSCRIPTION.path}/${id}`, {
    include: 'customer,subscription-plan',
  });
  if (statusOf(data) === 'cancelled') {
    if (on === undefined) return undefined;
    throw new UsageError(
      `subscription ${id} is cancelled already: it cannot be cancelled on another day (nothing changed)`,
    );
  }
  const today = headers['billing-today'];
  if (on !== undefined && today !== undefined && isBefore(on, today))
    throw new UsageError(
      `--on: ${on} is before today (${today.slice(0, 10)} by the store's clock): give today to cancel at once, or a later day (nothing changed)`,
    );
  const plan = relatedId(data, 'subscription-plan');
  const customer = relatedId(data, 'customer');
  const found = (type: string, rid: string) => included.find((r) => r.type === type && r.id === rid);
  const planName = textOf(found('subscription-plan', plan)?.attributes?.name ?? '');
  const customerName = personName(found('customer', customer) ?? { type: 'customer', id: customer });
  const named = withFacts(
    `subscription ${id}`,
    planName || (plan && `plan ${plan}`),
    customerName || (customer && `customer ${customer}`),
  );
  return on === undefined
    ? `Cancel ${named} now? This cannot be undone.`
    : `Cancel ${named} on ${on}? From that day it cannot be undone.`;
}

/** Whether a day or datetime (as --on takes it) comes before the instant `start` (the start of today). */
function isBefore(on: string, start: string): boolean {
  if (/^\d{4}-\d{2}-\d{2}$/.test(on)) return on < start.slice(0, 10);
  const [at, from] = [Date.parse(on.replace(' ', 'T')), Date.parse(start)];
  return !Number.isNaN(at) && !Number.isNaN(from) && at < from;
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'subscription id')
    .option('--on <date>', 'cancel on this day instead of now (today cancels at once); the status stays until then')
    .addHelpText(
      'after',
      prose(
        "A cancelled subscription cannot be activated again; what is not yet collected is cancelled, a transaction already collected still completes. Asks for confirmation on a terminal, naming the plan and the customer; needs --yes without one. A day before today (by the store's clock) is refused before anything is asked.",
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
        if (!deps.globals.dryRun)
          await confirmAction(deps, `cancel subscription ${id}${on === undefined ? '' : ` on ${on}`}`, () =>
            question(deps, id, on),
          );
        if (on === undefined) await patchSubscription(deps, id, { status: 'cancelled' }, 'cancelled');
        else await patchSubscription(deps, id, { cancel_date: on }, `scheduled the cancellation on ${on} of`);
      }),
    );
}
