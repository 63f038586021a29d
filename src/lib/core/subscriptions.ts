// Reading subscriptions, alone or as the to-many relationship of customers and plans.
import { all, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import type { Subscription } from './customers.js';
import { pageOf, type PageOf, type PageRequest } from './paging.js';

export function subscriptionsOf(ctx: CoreContext, owner: 'customer_id' | 'subscription_plan_id', ownerId: number, page: PageRequest): Unit<PageOf<Subscription>> {
  return pageOf('subscriptions', ctx.account.id, page, { column: owner, value: ownerId });
}

/** Subscription ids per owner, for the relationship data of a page of customers or plans (one query). */
export function* subscriptionIdsBy(ctx: CoreContext, owner: 'customer_id' | 'subscription_plan_id', ownerIds: number[]): Unit<Map<number, number[]>> {
  const byOwner = new Map<number, number[]>(ownerIds.map((id) => [id, []]));
  if (ownerIds.length === 0) return byOwner;
  const rows = (yield* all((q) =>
    q.selectFrom('subscriptions').select(['id', owner]).where('account_id', '=', ctx.account.id).where(owner, 'in', ownerIds).orderBy('id'),
  )) as { id: number; customer_id?: number; subscription_plan_id?: number }[];
  for (const row of rows) byOwner.get(row[owner]!)?.push(row.id);
  return byOwner;
}

export function* subscriptionsByIds(ctx: CoreContext, ids: number[]): Unit<Subscription[]> {
  if (ids.length === 0) return [];
  return yield* all((q) => q.selectFrom('subscriptions').selectAll().where('account_id', '=', ctx.account.id).where('id', 'in', ids).orderBy('id'));
}
