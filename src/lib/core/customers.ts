// Reading customers. Writes live in customer-writes.ts, which loads the request schemas.
import type { CustomerSortField } from '../schemas/vocabulary.js';
import type { CustomerRow, SubscriptionRow } from '../store/schema.js';
import { all, prepared, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
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

export type Customer = Omit<CustomerRow, 'id'> & { id: number };
export type Subscription = Omit<SubscriptionRow, 'id'> & { id: number };
export type CustomerName = Pick<CustomerRow, 'first_name' | 'middle_name' | 'last_name'>;

/** Which customers, in which order: every one given must hold (filter[...] and sort of GET /customers). */
export interface CustomerFind {
  /** The email, exactly but for case (A-Z). */
  email?: string;
  /** Text inside the first, middle, last or company name or the email, case aside (A-Z). */
  search?: string;
  archived?: boolean;
  sort?: Sort<CustomerSortField>;
}

// Names and emails in the order of lower(): case aside (A-Z), then by code point. Each key has its
// index, (account_id, key, id).
const SORT_KEYS: ReadonlyMap<CustomerSortField, SortKey> = new Map<CustomerSortField, SortKey>([
  ['id', ID_KEY],
  ['created_at', { column: 'created_at', as: 'value' }],
  ['last_name', { column: 'last_name', as: 'lower' }],
  ['email', { column: 'email', as: 'lower' }],
]);

function emailIs(email: string): Condition {
  const wanted = lowerAscii(email.trim());
  // The customers_email index (account_id, lower(email), id).
  return { selective: true, where: (eb, dialect) => eb(dialect.lower('email'), '=', wanted) };
}

function searching(text: string): Condition {
  const term = lowerAscii(text.trim());
  // A term of 3 characters or more is found through the engine's trigram index (and is selective);
  // a shorter one by a scan of the account's rows.
  return { selective: [...term].length >= 3, where: (_eb, dialect) => dialect.customerSearch(term) };
}

/** One page of the account's customers that match, in the order asked for (ascending id by default). */
export function listCustomers(ctx: CoreContext, page: PageRequest, find: CustomerFind = {}): Unit<PageOf<Customer>> {
  const where: Condition[] = [];
  if (find.email !== undefined) where.push(emailIs(find.email));
  if (find.search !== undefined) where.push(searching(find.search));
  if (find.archived !== undefined) {
    const archived = find.archived ? 1 : 0;
    where.push({ where: (eb) => eb('archived', '=', archived) }); // customers_archived (account_id, archived, id)
  }
  return findPage('customers', ctx.account.id, page, { where, order: orderOf(SORT_KEYS, find.sort) });
}

const byId = prepared<Customer, [number, number]>('customers.find', (q, p) =>
  q.selectFrom('customers').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)),
);

export function findCustomer(ctx: CoreContext, id: number): Unit<Customer | undefined> {
  return byId.get(id, ctx.account.id);
}

/** The names of customers (a page's rows show whose they are), in one query. */
export function* customerNames(ctx: CoreContext, ids: number[]): Unit<Map<number, CustomerName>> {
  if (ids.length === 0) return new Map();
  const rows = yield* all((q) =>
    q
      .selectFrom('customers')
      .select(['id', 'first_name', 'middle_name', 'last_name'])
      .where('account_id', '=', ctx.account.id)
      .where('id', 'in', [...new Set(ids)]),
  );
  return new Map(rows.map(({ id, ...name }) => [id, name]));
}

const lockedById = prepared<Customer, [number, number]>('customers.lock', (q, p, d) =>
  d.locked(q.selectFrom('customers').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1))),
);

/** A customer locked until the transaction ends (Dialect.locked), for a write that changes it. */
export function lockCustomer(ctx: CoreContext, id: number): Unit<Customer | undefined> {
  return lockedById.get(id, ctx.account.id);
}

// The GET of one customer: the hottest statement of the service.
const withSubscriptionIds = prepared<Customer & { subscription_ids: string | null }, [number, number]>(
  'customers.find-with-subscriptions',
  (q, p, d) =>
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
export function* findCustomerWithSubscriptionIds(
  ctx: CoreContext,
  id: number,
): Unit<{ customer: Customer; subscriptionIds: number[] } | undefined> {
  const row = (yield withSubscriptionIds.lookup(id, ctx.account.id)) as
    (Customer & { subscription_ids: string | null }) | undefined;
  if (!row) return undefined;
  const subscriptionIds = row.subscription_ids ? row.subscription_ids.split(',').map(Number) : [];
  if (subscriptionIds.length > 1) subscriptionIds.sort((a, b) => a - b);
  return { customer: row, subscriptionIds };
}
