// Reading subscription plans. Making them (embedded only) lives in plan-writes.ts.
import type { PlanRow } from '../store/schema.js';
import { prepared, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import { pageOf, type PageOf, type PageRequest } from './paging.js';
import { notFound, ok, type Result } from './result.js';

export type Plan = Omit<PlanRow, 'id'> & { id: number };

export function listPlans(ctx: CoreContext, page: PageRequest): Unit<PageOf<Plan>> {
  return pageOf('subscription_plans', ctx.account.id, page);
}

const byId = prepared<Plan, [number, number]>('plans.find', (q, p) => q.selectFrom('subscription_plans').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)));

export function* getPlan(ctx: CoreContext, id: number): Unit<Result<Plan>> {
  const plan = yield* byId.get(id, ctx.account.id);
  return plan ? ok(plan) : notFound(`no subscription plan with id ${id}`);
}
