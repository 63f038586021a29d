// Reading customers. Writes live in customer-writes.ts, which loads the request schemas.
import { sql } from 'kysely';
import type { CustomerRow, SubscriptionRow } from '../store/schema.js';
import type { CoreContext } from './context.js';
import { pageOf, type PageOf, type PageRequest } from './paging.js';
import { notFound, ok, type Result } from './result.js';

export type Customer = Omit<CustomerRow, 'id'> & { id: number };
export type Subscription = Omit<SubscriptionRow, 'id'> & { id: number };

export function listCustomers(ctx: CoreContext, page: PageRequest): PageOf<Customer> {
  return pageOf(ctx.store, 'customers', ctx.account.id, page);
}

export function findCustomer(ctx: CoreContext, id: number): Customer | undefined {
  const { store } = ctx;
  return store
    .prepared<Customer, [number, number]>('customers.find', (p) => store.q.selectFrom('customers').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)))
    .get(id, ctx.account.id);
}

/** A customer with the ids of its subscriptions, in one statement (the GET of one customer). */
export function findCustomerWithSubscriptionIds(ctx: CoreContext, id: number): { customer: Customer; subscriptionIds: number[] } | undefined {
  const { store } = ctx;
  const row = store
    .prepared<Customer & { subscription_ids: string | null }, [number, number]>('customers.find-with-subscriptions', (p) =>
      store.q
        .selectFrom('customers')
        .selectAll()
        // Unordered: an ORDER BY inside the aggregate costs SQLite a sorter on every read; sorted below.
        .select(sql<string | null>`(select group_concat(s.id) from subscriptions s where s.customer_id = customers.id and s.account_id = customers.account_id)`.as('subscription_ids'))
        .where('id', '=', p(0))
        .where('account_id', '=', p(1)),
    )
    .get(id, ctx.account.id);
  if (!row) return undefined;
  const subscriptionIds = row.subscription_ids ? row.subscription_ids.split(',').map(Number) : [];
  if (subscriptionIds.length > 1) subscriptionIds.sort((a, b) => a - b);
  return { customer: row, subscriptionIds };
}

export function getCustomer(ctx: CoreContext, id: number): Result<{ customer: Customer; subscriptionIds: number[] }> {
  const found = findCustomerWithSubscriptionIds(ctx, id);
  return found ? ok(found) : notFound(`no customer with id ${id}`);
}
