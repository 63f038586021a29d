// Reading subscriptions, alone or as the to-many relationship of customers and plans.
import type { CoreContext } from './context.js';
import type { Subscription } from './customers.js';
import { pageOf, type PageOf, type PageRequest } from './paging.js';

export function subscriptionsOf(ctx: CoreContext, owner: 'customer_id' | 'subscription_plan_id', ownerId: number, page: PageRequest): PageOf<Subscription> {
  return pageOf(ctx.store, 'subscriptions', ctx.account.id, page, { column: owner, value: ownerId });
}

/** Subscription ids per owner, for the relationship data of a page of customers or plans (one query). */
export function subscriptionIdsBy(ctx: CoreContext, owner: 'customer_id' | 'subscription_plan_id', ownerIds: number[]): Map<number, number[]> {
  const byOwner = new Map<number, number[]>(ownerIds.map((id) => [id, []]));
  if (ownerIds.length === 0) return byOwner;
  const { store } = ctx;
  const rows = store.all(
    store.q.selectFrom('subscriptions').select(['id', owner]).where('account_id', '=', ctx.account.id).where(owner, 'in', ownerIds).orderBy('id'),
  ) as { id: number; customer_id?: number; subscription_plan_id?: number }[];
  for (const row of rows) byOwner.get(row[owner]!)?.push(row.id);
  return byOwner;
}

export function subscriptionsByIds(ctx: CoreContext, ids: number[]): Subscription[] {
  if (ids.length === 0) return [];
  const { store } = ctx;
  return store.all(store.q.selectFrom('subscriptions').selectAll().where('account_id', '=', ctx.account.id).where('id', 'in', ids).orderBy('id'));
}
