// What the hosted service does in its dashboard rather than through the API, and the embedded
// store does through these named operations: making plans, and setting a simulated collection's
// outcome. Refusals are thrown as the API would answer them.
import { createPlan as create, updatePlan as update, type PlanChange } from '../core/plan-writes.js';
import { simulateOutcome as simulate } from '../core/transaction-writes.js';
import type { Outcome } from '../schemas/vocabulary.js';
import { orRefuse } from './refusal.js';
import type { Runtime } from './runtime.js';

const contextOf = async (runtime: Runtime) => ({
  store: runtime.store,
  clock: runtime.clock,
  account: await runtime.account(),
});

/** A new plan from its request attributes (checked by the plan schema); its id. */
export async function createPlan(runtime: Runtime, attributes: Record<string, unknown>): Promise<{ id: number }> {
  const plan = await orRefuse(create(await contextOf(runtime), attributes), {
    data: { type: 'subscription-plan', attributes },
  });
  return { id: plan.id };
}

/** A plan's changes (checked by the plan's update schema): what it is now, and whether anything changed. */
export async function updatePlan(
  runtime: Runtime,
  id: number,
  attributes: Record<string, unknown>,
): Promise<{ unchanged: boolean }> {
  const change: PlanChange = await orRefuse(update(await contextOf(runtime), id, attributes), {
    data: { type: 'subscription-plan', id: String(id), attributes },
  });
  return { unchanged: change.unchanged };
}

/** The outcome of a simulated collection, before its due date or after it. */
export async function simulateOutcome(
  runtime: Runtime,
  id: string,
  outcome: Outcome,
  reasonCode: string,
): Promise<void> {
  await orRefuse(simulate(await contextOf(runtime), id, outcome, reasonCode), {
    data: { type: 'transaction', id, attributes: { outcome, reason_code: reasonCode } },
  });
}
