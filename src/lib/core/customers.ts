// Reading customers. Writes live in customer-writes.ts, which loads the request schemas.
import type { CustomerSortField } from '../schemas/vocabulary.js';
import type { CustomerRow, SubscriptionRow } from '../store/schema.js';
import { containing, escapeLike } from '../store/compile.js';
import { PART, searchTerms } from '../store/search-text.js';
import type { DB } from '../store/store.js';
import { all, get, prepared, type Dialect, type Unit } from '../store/unit.js';
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { CoreContext } from './context.js';
import {
  findPage,
  ID_KEY,
  lowerAscii,
  orderOf,
  type AnyExpressionBuilder,
  type Condition,
  type Find,
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
  /**
   * Words that must all be in the customer's name, company, email, IBAN or phone, in any order,
   * case and accents aside (store/search-text.ts); ranked best first unless a sort is given.
   */
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

function searching(terms: readonly string[]): Condition {
  // A term of 3 characters or more is found through the engine's trigram index (and is selective);
  // with none, the account's rows are scanned.
  return {
    selective: terms.some((term) => [...term].length >= 3),
    where: (_eb, dialect) => dialect.customerSearch(terms),
  };
}

/**
 * Best first, alike on both engines (LIKE over folded text, ordered by code point): the name is what
 * was typed; the name starts with it; it is whole words of the name; it starts a word of the name;
 * every term is a whole word; every term starts a word; the rest. Then by name (the search text
 * starts with it) and id. Words end at a space: the text's parts are joined by ` | `.
 */
function ranking(terms: readonly string[]): Find['ranked'] {
  const typed = escapeLike(terms.join(' '));
  const like = (value: unknown, pattern: string) => sql`${value} LIKE ${pattern} ESCAPE '\\'`;
  return (dialect) => {
    const text = sql.ref('found.search_text');
    const name = sql`(' ' || ${dialect.before('found.search_text', PART)} || ' ')`;
    const words = sql`(' ' || ${text} || ' ')`;
    const every = (pattern: (term: string) => string) =>
      sql.join(
        terms.map((term) => like(words, pattern(escapeLike(term)))),
        sql` AND `,
      );
    return [
      sql`CASE
        WHEN ${like(text, `${typed}${PART}%`)} THEN 0
        WHEN ${like(text, `${typed}%`)} THEN 1
        WHEN ${like(name, `% ${typed} %`)} THEN 2
        WHEN ${like(name, `% ${typed}%`)} THEN 3
        WHEN ${every((term) => `% ${term} %`)} THEN 4
        WHEN ${every((term) => `% ${term}%`)} THEN 5
        ELSE 6 END`,
      dialect.codePoint('found.search_text'),
    ];
  };
}

/**
 * The rows of a table with a customer_id (subscriptions, invoices) whose own code holds what was
 * typed (a mandate code, a reference; case aside), or whose customer the same words find as
 * filter[search] of the customers does: support types either to find one.
 */
export function codeOrCustomer(accountId: number, column: string, typed: string): Condition {
  const code = containing(lowerAscii(typed.trim()));
  const terms = searchTerms(typed);
  return {
    where: (_eb, dialect) => {
      const own = sql<SqlBool>`${dialect.lower(column)} LIKE ${code} ESCAPE '\\'`;
      if (terms.length === 0) return own;
      // Uncorrelated: the customers found once, through their search index, then matched by id.
      const customers = sql`SELECT id FROM customers WHERE account_id = ${accountId} AND ${dialect.customerSearch(terms)}`;
      return sql<SqlBool>`(${own} OR ${sql.ref('customer_id')} IN (${customers}))`;
    },
  };
}

/** After every code point: a bound above every text that starts with a given one. */
const LAST = '\u{10FFFF}';

/**
 * A search's page when it lies within the first two ranks: the customers whose name is what was
 * typed, then those whose name starts with it, by name and id. Each is a range of the search text
 * (customers_search_text), so the page is read in order, never the matches beyond it: a first
 * name alone finds thousands. The second rank is two ranges, either side of the first's (` | `
 * sorts between what may follow a name's start). Undefined when the page goes past them.
 */
function* firstRanks(ctx: CoreContext, page: PageRequest, terms: readonly string[]): Unit<Customer[] | undefined> {
  const typed = terms.join(' ');
  const named = `${typed}${PART}`;
  const ranges = [
    [named, `${named}${LAST}`],
    [typed, named],
    [`${named}${LAST}`, `${typed}${LAST}`],
  ];
  const inRange =
    ([from, to]: string[]) =>
    (q: Kysely<DB>, d: Dialect) =>
      q
        .selectFrom('customers')
        .where('account_id', '=', ctx.account.id)
        .where(d.codePoint('search_text'), '>=', from)
        .where(d.codePoint('search_text'), '<', to);
  let skip = (page.number - 1) * page.size;
  let wanted = page.size;
  // Each range counted only as far as the page reaches: a first name starts 11,000 names, and
  // counting them all here would be paid again by the total.
  const reach = skip + wanted;
  const counts: number[] = [];
  for (const range of ranges)
    counts.push(
      Number(
        (yield* get((q, d) =>
          q
            .selectFrom(inRange(range)(q, d).select('id').limit(reach).as('reached'))
            .select((eb) => eb.fn.countAll<number>().as('n')),
        ))!.n,
      ),
    );
  if (skip + wanted > counts.reduce((a, b) => a + b, 0)) return undefined;
  const rows: Customer[] = [];
  for (const [i, range] of ranges.entries()) {
    const count = counts[i];
    if (skip >= count) {
      skip -= count;
      continue;
    }
    const [offset, limit] = [skip, Math.min(wanted, count - skip)];
    rows.push(
      ...(yield* all((q, d) =>
        inRange(range)(q, d).selectAll().orderBy(d.codePoint('search_text')).orderBy('id').limit(limit).offset(offset),
      )),
    );
    skip = 0;
    wanted -= limit;
    if (wanted === 0) break;
  }
  return rows;
}

/** A ranked search: its first ranks read in order when the page lies within them, else every match ranked. */
function* searchedPage(ctx: CoreContext, page: PageRequest, terms: readonly string[]): Unit<PageOf<Customer>> {
  const found = searching(terms);
  const rows = yield* firstRanks(ctx, page, terms);
  if (!rows) return yield* findPage('customers', ctx.account.id, page, { where: [found], ranked: ranking(terms) });
  const { total } = (yield* get((q, d) =>
    q
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('account_id', '=', ctx.account.id)
      .where((eb) => found.where(eb as unknown as AnyExpressionBuilder, d)),
  ))!;
  return { rows, total: Number(total) };
}

/** One page of the account's customers that match, in the order asked for (ascending id by default). */
export function listCustomers(ctx: CoreContext, page: PageRequest, find: CustomerFind = {}): Unit<PageOf<Customer>> {
  const where: Condition[] = [];
  if (find.email !== undefined) where.push(emailIs(find.email));
  const terms = find.search === undefined ? [] : searchTerms(find.search);
  if (terms.length) where.push(searching(terms));
  // A search of separators only (a quote, a comma) has no word to find: it finds no one, not everyone.
  else if (find.search !== undefined) where.push({ where: () => sql<SqlBool>`1 = 0` });
  if (find.archived !== undefined) {
    const archived = find.archived ? 1 : 0;
    where.push({ where: (eb) => eb('archived', '=', archived) }); // customers_archived (account_id, archived, id)
  }
  // A search alone, ranked and paged by number: its best matches may be read in order.
  if (terms.length && where.length === 1 && !find.sort && page.after === undefined)
    return searchedPage(ctx, page, terms);
  const ranked = terms.length && !find.sort ? ranking(terms) : undefined;
  return findPage('customers', ctx.account.id, page, { where, order: orderOf(SORT_KEYS, find.sort), ranked });
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
