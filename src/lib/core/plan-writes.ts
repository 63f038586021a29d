// Making subscription plans: the embedded store's stand-in for the hosted service's dashboard.
import { validateAttributes } from '../schemas/common.js';
import { DATE_MESSAGE } from '../schemas/dates.js';
import { planCreateSchema } from '../schemas/plan.js';
import { get, type MaybePromise } from '../store/unit.js';
import { nowIso, transact, type CoreContext } from './context.js';
import type { Plan } from './plans.js';
import { invalidAttributes, ok, type Result } from './result.js';
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
