// Reading subscription plans. Making them (embedded only) lives in plan-writes.ts.
import type { PlanSortField, PLAN_STATUSES } from '../schemas/vocabulary.js';
import type { PlanRow } from '../store/schema.js';
import { prepared, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import { sql, type SqlBool } from 'kysely';
import { containing } from '../store/compile.js';
import {
  findPage,
  ID_KEY,
  lowerAscii,
  orderOf,
  type Condition,
  type PageOf,
  type PageRequest,
  type Sort,
  type SortKey,
} from './paging.js';
import { notFound, ok, type Result } from './result.js';

export type Plan = Omit<PlanRow, 'id'> & { id: number };

/** Which plans, in which order (filter[...] and sort of GET /subscription-plans). */
export interface PlanFind {
  status?: (typeof PLAN_STATUSES)[number];
  /** Text inside the name, case aside (A-Z): the plan picker of a prompt. An account has a few plans, so a scan. */
  search?: string;
  /** Archived plans, which take no new subscriptions (true), or the others (false). */
  archived?: boolean;
  sort?: Sort<PlanSortField>;
}

const SORT_KEYS: ReadonlyMap<PlanSortField, SortKey> = new Map<PlanSortField, SortKey>([
  ['id', ID_KEY],
  ['created_at', { column: 'created_at', as: 'value' }], // plans_created (account_id, created_at, id)
]);

export function listPlans(ctx: CoreContext, page: PageRequest, find: PlanFind = {}): Unit<PageOf<Plan>> {
  const where: Condition[] = [];
  const { status } = find;
  if (status !== undefined) where.push({ where: (eb) => eb('status', '=', status) }); // plans_status (account_id, status, id)
  if (find.search !== undefined) {
    const pattern = containing(lowerAscii(find.search.trim()));
    where.push({ where: (_eb, d) => sql<SqlBool>`${d.lower('name')} LIKE ${pattern} ESCAPE '\\'` });
  }
  if (find.archived !== undefined) {
    const archived = find.archived ? 1 : 0;
    where.push({ where: (eb) => eb('archived', '=', archived) });
  }
  return findPage('subscription_plans', ctx.account.id, page, { where, order: orderOf(SORT_KEYS, find.sort) });
}

const byId = prepared<Plan, [number, number]>('plans.find', (q, p) =>
  q.selectFrom('subscription_plans').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)),
);
const sharedById = prepared<Plan, [number, number]>('plans.find.shared', (q, p, d) =>
  d.shared(q.selectFrom('subscription_plans').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1))),
);

/** `shared`: the plan kept as read until the transaction ends (Dialect.shared), for a write made on it. */
export function* getPlan(ctx: CoreContext, id: number, options: { shared?: boolean } = {}): Unit<Result<Plan>> {
  const plan = yield* (options.shared ? sharedById : byId).get(id, ctx.account.id);
  return plan ? ok(plan) : notFound(`no subscription plan with id ${id}`);
}
