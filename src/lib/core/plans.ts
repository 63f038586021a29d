// Reading subscription plans. Making them (embedded only) lives in plan-writes.ts.
import type { PlanRow } from '../store/schema.js';
import type { CoreContext } from './context.js';
import { pageOf, type PageOf, type PageRequest } from './paging.js';
import { notFound, ok, type Result } from './result.js';

export type Plan = Omit<PlanRow, 'id'> & { id: number };

export function listPlans(ctx: CoreContext, page: PageRequest): PageOf<Plan> {
  return pageOf(ctx.store, 'subscription_plans', ctx.account.id, page);
}

export function getPlan(ctx: CoreContext, id: number): Result<Plan> {
  const { store } = ctx;
  const plan = store
    .prepared<Plan, [number, number]>('plans.find', (p) => store.q.selectFrom('subscription_plans').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)))
    .get(id, ctx.account.id);
  return plan ? ok(plan) : notFound(`no subscription plan with id ${id}`);
}
