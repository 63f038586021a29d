// Reading customers. Writes live in customer-writes.ts, which loads the request schemas.
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

export function getCustomer(ctx: CoreContext, id: number): Result<Customer> {
  const customer = findCustomer(ctx, id);
  return customer ? ok(customer) : notFound(`no customer with id ${id}`);
}
