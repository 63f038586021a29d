// Reading customers. Writes live in customer-writes.ts, which loads the request schemas.
import type { CustomerRow, SubscriptionRow } from '../store/schema.js';
import { prepared, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import { pageOf, type PageOf, type PageRequest } from './paging.js';

export type Customer = Omit<CustomerRow, 'id'> & { id: number };
export type Subscription = Omit<SubscriptionRow, 'id'> & { id: number };

export function listCustomers(ctx: CoreContext, page: PageRequest): Unit<PageOf<Customer>> {
  return pageOf('customers', ctx.account.id, page);
}

const byId = prepared<Customer, [number, number]>('customers.find', (q, p) => q.selectFrom('customers').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)));

export function findCustomer(ctx: CoreContext, id: number): Unit<Customer | undefined> {
  return byId.get(id, ctx.account.id);
}

// The GET of one customer: the hottest statement of the service.
const withSubscriptionIds = prepared<Customer & { subscription_ids: string | null }, [number, number]>('customers.find-with-subscriptions', (q, p, d) =>
  q
    .selectFrom('customers')
    .selectAll()
    .select((eb) =>
      eb
        .selectFrom('subscriptions as s')
        .select(d.joinedIds('s.id').as('ids'))
        .whereRef('s.customer_id', '=', 'customers.id')
        .whereRef('s.account_id', '=', 'customers.account_id')
        .as('subscription_ids'),
    )
    .where('id', '=', p(0))
    .where('account_id', '=', p(1)),
);

/** A customer with the ids of its subscriptions, in one statement (the GET of one customer). */
export function* findCustomerWithSubscriptionIds(ctx: CoreContext, id: number): Unit<{ customer: Customer; subscriptionIds: number[] } | undefined> {
  const row = (yield withSubscriptionIds.lookup(id, ctx.account.id)) as (Customer & { subscription_ids: string | null }) | undefined;
  if (!row) return undefined;
  const subscriptionIds = row.subscription_ids ? row.subscription_ids.split(',').map(Number) : [];
  if (subscriptionIds.length > 1) subscriptionIds.sort((a, b) => a - b);
  return { customer: row, subscriptionIds };
}
