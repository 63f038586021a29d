// Making subscription plans: the embedded store's stand-in for the hosted service's dashboard.
import { validateAttributes } from '../schemas/common.js';
import { DATE_MESSAGE } from '../schemas/dates.js';
import { PLAN_FIXED, planCreateSchema, planUpdateSchema } from '../schemas/plan.js';
import { get, run, type MaybePromise } from '../store/unit.js';
import { nowIso, transact, type CoreContext } from './context.js';
import type { Plan } from './plans.js';
import { invalidAttributes, notFound, ok, type Result } from './result.js';
import { localDate, parseDateInput } from './time.js';

export function createPlan(ctx: CoreContext, attributes: Record<string, unknown>): MaybePromise<Result<Plan>> {
  const { value, problems } = validateAttributes(planCreateSchema, attributes, {
    readOnly: ['archived', 'created_at', 'updated_at'],
  });
  const tz = ctx.account.time_zone;
  const now = nowIso(ctx);
  // Read start_date from the input, not from `value`: when another attribute fails, zod gives no
  // value at all, and a bad start_date would go unreported instead of being listed with the rest.
  const givenStart = typeof attributes.start_date === 'string' ? attributes.start_date : undefined;
  const startDate = parseDateInput(givenStart ?? localDate(now, tz), tz);
  if (startDate === null && !problems.some((p) => p.attribute === 'start_date')) {
    problems.push({ attribute: 'start_date', detail: DATE_MESSAGE });
  }
  if (problems.length) return invalidAttributes(problems);
  const { store } = ctx;
  return transact(store, function* () {
    const plan = yield* get((q) =>
      q
        .insertInto('subscription_plans')
        .values({
          account_id: ctx.account.id,
          name: value.name,
          description: value.description ?? null,
          start_date: startDate!,
          status: value.status ?? 'active',
          mandate_authentication_method: value.mandate_authentication_method ?? 'email',
          send_invoice: (value.send_invoice ?? true) ? 1 : 0,
          storno_retries: value.storno_retries ?? 2,
          terms: value.terms ?? null,
          archived: 0,
          amount_cents: value.amount,
          frequency: value.frequency ?? 'monthly',
          created_at: now,
          updated_at: now,
        })
        .returningAll(),
    );
    return ok(plan!);
  });
}

/** A plan changed, or what it already was: nothing is written then (no updated_at). */
export interface PlanChange {
  plan: Plan;
  unchanged: boolean;
}

/**
 * `plans update` and `plans archive`: the dashboard's changes to a plan. A new amount is collected
 * from the next transaction scheduled after it; one already scheduled (and, under SEPA, announced
 * to the debtor) keeps its amount. An archived plan takes no new subscriptions; its own go on.
 */
export function updatePlan(
  ctx: CoreContext,
  id: number,
  attributes: Record<string, unknown>,
): MaybePromise<Result<PlanChange>> {
  const { value, problems } = validateAttributes(planUpdateSchema, attributes, {
    readOnly: [...PLAN_FIXED, 'created_at', 'updated_at'],
  });
  for (const p of problems)
    if ((PLAN_FIXED as readonly string[]).includes(p.attribute))
      p.detail = "cannot change: the plan's subscriptions were agreed under it (make a new plan instead)";
  if (problems.length) return invalidAttributes(problems);
  const now = nowIso(ctx);
  return transact(ctx.store, function* () {
    const plan = yield* get((q, d) =>
      d.locked(
        q.selectFrom('subscription_plans').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id),
      ),
    );
    if (!plan) return notFound<PlanChange>(`no subscription plan with id ${id}`);
    const changes: Partial<Plan> = {};
    if (value.name !== undefined && value.name !== plan.name) changes.name = value.name;
    if (value.description !== undefined && value.description !== plan.description)
      changes.description = value.description;
    if (value.amount !== undefined && value.amount !== plan.amount_cents) changes.amount_cents = value.amount;
    if (value.terms !== undefined && value.terms !== plan.terms) changes.terms = value.terms;
    if (value.send_invoice !== undefined && (value.send_invoice ? 1 : 0) !== plan.send_invoice)
      changes.send_invoice = value.send_invoice ? 1 : 0;
    if (value.status !== undefined && value.status !== plan.status) changes.status = value.status;
    if (value.archived !== undefined && (value.archived ? 1 : 0) !== plan.archived)
      changes.archived = value.archived ? 1 : 0;
    if (Object.keys(changes).length === 0) return ok({ plan, unchanged: true });
    yield* run((q) =>
      q
        .updateTable('subscription_plans')
        .set({ ...changes, updated_at: now })
        .where('id', '=', id),
    );
    return ok({ plan: { ...plan, ...changes, updated_at: now }, unchanged: false });
  });
}
