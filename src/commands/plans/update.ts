// plans update: the embedded store's stand-in for changing a plan in the hosted dashboard (plans
// are read-only over the API). A named operation of the runtime; it prints the plan as GET shows it.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { addAttributeFlags, collectAttributes } from '../../lib/command/flags.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId, runGet } from '../../lib/command/resource.js';
import { UsageError } from '../../lib/cli/errors.js';
import { planUpdateShape } from '../../lib/schemas/plan.js';
import { PLAN } from './index.js';

/** Changes plan `id`; says so on stderr (or that nothing changed) and prints the plan. */
export async function changePlan(
  deps: Deps,
  id: number,
  attributes: Record<string, unknown>,
  command: string,
  unchangedText: string,
): Promise<void> {
  const runtime = await deps.runtime(command, { write: true });
  if (deps.globals.dryRun) {
    deps.io.out(`${JSON.stringify({ update: PLAN.type, id, attributes }, null, 2)}\n`);
    return;
  }
  const { updatePlan } = await import('../../lib/runtime/dashboard.js');
  const { unchanged } = await updatePlan(runtime, id, attributes);
  if (!deps.globals.quiet) deps.io.err(unchanged ? `${unchangedText}\n` : `updated plan ${id}\n`);
  await runGet(deps, `${PLAN.path}/${id}`, { fields: {} });
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd.argument('<id>', 'the plan');
  addAttributeFlags(cmd, planUpdateShape, { create: false });
  cmd
    .addHelpText(
      'after',
      prose(
        'A new amount is collected from the next transaction scheduled after the change; one already ' +
          'scheduled (under SEPA: announced to the debtor) keeps its amount. The frequency, start date, ' +
          "mandate method and storno retries stay as made: the plan's subscriptions were agreed under them.",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing plans update 3 --amount 13,50',
        'billing plans update 3 --name "Monthly membership (2027)" --terms "Cancel any month"',
        'billing plans update 3 --no-send-invoice',
        'billing plans update 3 --no-archived   # takes new subscriptions again',
      ),
    )
    .action((idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        const attributes = await collectAttributes(opts, planUpdateShape, deps.io);
        if (Object.keys(attributes).length === 0)
          throw new UsageError(
            'nothing to change: give at least one of --name, --description, --amount, --terms, --send-invoice, --status, --archived (or --data)',
          );
        await changePlan(deps, id, attributes, 'plans update', `plan ${id} already has these values: nothing changed`);
      }),
    );
}
