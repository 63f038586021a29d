// Reading subscriptions, alone or as the to-many relationship of customers and plans.
import type { SubscriptionSortField, SubscriptionStatus } from '../schemas/vocabulary.js';
import { all, prepared, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import { codeOrCustomer, type CustomerName, type Subscription } from './customers.js';
import {
  findPage,
  ID_KEY,
  orderOf,
  pageOf,
  type Condition,
  type PageOf,
  type PageRequest,
  type Sort,
  type SortKey,
} from './paging.js';

export function subscriptionsOf(
  ctx: CoreContext,
  owner: 'customer_id' | 'subscription_plan_id',
  ownerId: number,
  page: PageRequest,
): Unit<PageOf<Subscription>> {
  return pageOf('subscriptions', ctx.account.id, page, { column: owner, value: ownerId });
}

/** Subscription ids per owner, for the relationship data of a page of customers or plans (one query). */
export function* subscriptionIdsBy(
  ctx: CoreContext,
  owner: 'customer_id' | 'subscription_plan_id',
  ownerIds: number[],
): Unit<Map<number, number[]>> {
  const byOwner = new Map<number, number[]>(ownerIds.map((id) => [id, []]));
  if (ownerIds.length === 0) return byOwner;
  const rows = (yield* all((q) =>
    q
      .selectFrom('subscriptions')
      .select(['id', owner])
      .where('account_id', '=', ctx.account.id)
      .where(owner, 'in', ownerIds)
      .orderBy('id'),
  )) as { id: number; customer_id?: number; subscription_plan_id?: number }[];
  for (const row of rows) byOwner.get(row[owner]!)?.push(row.id);
  return byOwner;
}

export function* subscriptionsByIds(ctx: CoreContext, ids: number[]): Unit<Subscription[]> {
  if (ids.length === 0) return [];
  return yield* all((q) =>
    q
      .selectFrom('subscriptions')
      .selectAll()
      .where('account_id', '=', ctx.account.id)
      .where('id', 'in', ids)
      .orderBy('id'),
  );
}

/** Whose a subscription is and on which plan: the names a list shows beside its rows. */
export type SubscriptionNames = CustomerName & { customer_id: number; plan_id: number; plan_name: string };

/** The customer's and the plan's names of each subscription of a page, in one query. */
export function* subscriptionNames(ctx: CoreContext, ids: number[]): Unit<Map<number, SubscriptionNames>> {
  if (ids.length === 0) return new Map();
  const rows = yield* all((q) =>
    q
      .selectFrom('subscriptions as s')
      .innerJoin('customers as c', 'c.id', 's.customer_id')
      .innerJoin('subscription_plans as p', 'p.id', 's.subscription_plan_id')
      .select([
        's.id',
        's.customer_id',
        'c.first_name',
        'c.middle_name',
        'c.last_name',
        'p.id as plan_id',
        'p.name as plan_name',
      ])
      .where('s.account_id', '=', ctx.account.id)
      .where('s.id', 'in', ids),
  );
  return new Map(rows.map(({ id, ...names }) => [id, names]));
}

/** Transaction ids per subscription (the relationship data), newest due date first, in one query. */
export function* transactionIdsBy(subscriptionIds: number[]): Unit<Map<number, string[]>> {
  const bySubscription = new Map<number, string[]>(subscriptionIds.map((id) => [id, []]));
  if (subscriptionIds.length === 0) return bySubscription;
  const rows = yield* all((q) =>
    q
      .selectFrom('transactions')
      .select(['id', 'subscription_id'])
      .where('subscription_id', 'in', subscriptionIds)
      .orderBy('due_date', 'desc')
      .orderBy('seq', 'desc'),
  );
  for (const row of rows) bySubscription.get(row.subscription_id)?.push(row.id);
  return bySubscription;
}

/** Which subscriptions, in which order (filter[...] and sort of GET /subscriptions). */
export interface SubscriptionFind {
  status?: SubscriptionStatus;
  customer_id?: number;
  subscription_plan_id?: number;
  /** Text inside the mandate code, case aside (A-Z), or words of the customer. */
  search?: string;
  sort?: Sort<SubscriptionSortField>;
}

const SORT_KEYS: ReadonlyMap<SubscriptionSortField, SortKey> = new Map<SubscriptionSortField, SortKey>([
  ['id', ID_KEY],
  ['created_at', { column: 'created_at', as: 'value' }], // subscriptions_created
  ['start_date', { column: 'start_date', as: 'value' }], // subscriptions_start
]);

export function listSubscriptions(
  ctx: CoreContext,
  page: PageRequest,
  find: SubscriptionFind = {},
): Unit<PageOf<Subscription>> {
  const where: Condition[] = [];
  const { status, customer_id, subscription_plan_id, search } = find;
  if (status !== undefined) where.push({ where: (eb) => eb('status', '=', status) }); // subscriptions_status
  if (customer_id !== undefined) where.push({ selective: true, where: (eb) => eb('customer_id', '=', customer_id) }); // subscriptions_customer
  if (subscription_plan_id !== undefined)
    where.push({ where: (eb) => eb('subscription_plan_id', '=', subscription_plan_id) });
  if (search !== undefined) where.push(codeOrCustomer(ctx.account.id, 'mandate_code', search));
  return findPage('subscriptions', ctx.account.id, page, { where, order: orderOf(SORT_KEYS, find.sort) });
}

const byId = prepared<Subscription, [number, number]>('subscriptions.find', (q, p) =>
  q.selectFrom('subscriptions').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)),
);

export function findSubscription(ctx: CoreContext, id: number): Unit<Subscription | undefined> {
  return byId.get(id, ctx.account.id);
}

/** A subscription with the ids of its transactions (the GET of one subscription, and the answer to a write). */
export function* findSubscriptionWithTransactions(
  ctx: CoreContext,
  id: number,
): Unit<{ subscription: Subscription; transactionIds: string[] } | undefined> {
  const subscription = yield* byId.get(id, ctx.account.id);
  if (!subscription) return undefined;
  return { subscription, transactionIds: (yield* transactionIdsBy([id])).get(id)! };
}
