// plans create: the embedded store's stand-in for the hosted dashboard. Not an API call (plans are
// read-only over the API), so it is a named operation of the runtime; it prints the plan as GET shows it.
import type { Command } from 'commander';
import { planCreateShape } from '../../lib/schemas/plan.js';
import type { Deps } from '../../lib/command/deps.js';
import { addAttributeFlags, collectAttributes } from '../../lib/command/flags.js';
import { askMissing, sendAnswers } from '../../lib/command/prompting.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { runGet } from '../../lib/command/resource.js';
import { PLAN } from './index.js';

export async function run(attributes: Record<string, unknown>, deps: Deps): Promise<void> {
  const runtime = await deps.runtime('plans create', { write: true });
  const answered = await askMissing(deps, planCreateShape, attributes);
  if (deps.globals.dryRun) {
    deps.io.out(`${JSON.stringify({ create: PLAN.type, attributes }, null, 2)}\n`);
    return;
  }
  const { createPlan } = await import('../../lib/runtime/dashboard.js');
  const plan = await sendAnswers(deps, planCreateShape, attributes, answered, () => createPlan(runtime, attributes));
  if (!deps.globals.quiet) deps.io.err(`created plan ${plan.id}\n`);
  await runGet(deps, `${PLAN.path}/${plan.id}`, { fields: {} });
}

export function configure(cmd: Command, invoke: Invoke): void {
  addAttributeFlags(cmd, planCreateShape, { create: true });
  cmd
    .addHelpText(
      'after',
      examples(
        'billing plans create --name "Monthly membership" --amount 12.50',
        'billing plans create --name "Yearly box" --amount 99 --frequency yearly --storno-retries 1 --mandate-authentication-method first_payment',
      ),
    )
    .action((opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => run(await collectAttributes(opts, planCreateShape, deps.io), deps)),
    );
}
