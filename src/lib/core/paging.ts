// One page of an account's resources plus the total, read from one snapshot: in id order (the
// fast path, pageOf), or found by conditions and sorted by a key (findPage); or a keyset page, the
// rows after an id (page[after]), which costs the same at any depth and counts nothing.
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../store/store.js';
import { all, get, prepared, type Dialect, type PreparedQuery, type Unit } from '../store/unit.js';

export interface PageRequest {
  number: number;
  size: number;
  /** Keyset paging: the rows with an id above this one, in ascending id order (number is then unused). */
  after?: number;
}

export interface PageOf<T> {
  rows: T[];
  /**
   * How many rows match in all; absent on a keyset page: counting a million rows takes 70-80 ms on
   * either engine, the cost of 20 to 40 keyset pages, and an export would pay it on every page.
   */
  total?: number;
  /** A keyset page: whether rows follow it (read as one row more than the page holds). */
  more?: boolean;
}

type Table =
  | 'customers'
  | 'subscription_plans'
  | 'subscriptions'
  | 'notifications'
  | 'invoices'
  | 'invoice_lines'
  | 'events'
  | 'webhook_deliveries'
  | 'collections'
  | 'bank_reports';
type Filter = { column: 'customer_id' | 'subscription_plan_id' | 'invoice_id'; value: number };

/**
 * The page's first id is found by an offset over the (account_id, id) index alone, then the page is
 * read by id, so the last page of 100,000 rows costs about what the first does. Run it inside one
 * read (Store.read), so the rows and the total come from one snapshot.
 */
export function* pageOf<T extends Table>(
  table: T,
  accountId: number,
  page: PageRequest,
  filter?: Filter,
): Unit<PageOf<DB[T] & { id: number }>> {
  if (page.after !== undefined) return yield* plainKeysetPage(table, accountId, page.after, page.size, filter);
  // Every paged table has id and account_id, and the filter's column where one is given. Kysely
  // types one table at a time, so the queries are typed against `subscriptions`.
  const t = table as 'subscriptions';
  const scoped = (q: Parameters<Parameters<typeof get>[0]>[0]) => {
    let query = q.selectFrom(t).where('account_id', '=', accountId);
    if (filter) query = query.where(filter.column as 'customer_id', '=', filter.value);
    return query;
  };
  const { total } = (yield* get((q) => scoped(q).select((eb) => eb.fn.countAll<number>().as('total'))))!;
  const offset = (page.number - 1) * page.size;
  if (offset >= total) return { rows: [], total };
  const rows = yield* all((q) =>
    scoped(q)
      .selectAll()
      .where('id', '>=', scoped(q).select('id').orderBy('id').limit(1).offset(offset))
      .orderBy('id')
      .limit(page.size),
  );
  return { rows: rows as unknown as (DB[T] & { id: number })[], total };
}

// ---- finding and sorting ----

/** A sort as the API asks for it: `field` or `-field`. */
export interface Sort<F extends string = string> {
  field: F;
  descending: boolean;
}

/**
 * How a column orders: as stored (`value`: numbers, instants), or as text with A-Z folded to a-z
 * (`lower`, Dialect.lower). The migrations index these very expressions, so the order can use the index.
 */
export interface SortKey {
  column: string;
  as: 'value' | 'lower';
}

export const ID_KEY: SortKey = { column: 'id', as: 'value' };

/** Text with A-Z folded to a-z, as Dialect.lower folds a column: for the values compared with one. */
export const lowerAscii = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

function keyOf(key: SortKey, dialect: Dialect, qualifier?: string): Expression<unknown> {
  const column = qualifier ? `${qualifier}.${key.column}` : key.column;
  if (key.as === 'lower') return dialect.lower(column);
  return sql.ref(column);
}

/** Any paged table's rows, untyped: conditions and keys are written for whichever table they find in. */
type AnyDB = Record<string, Record<string, unknown>>;
export type AnyExpressionBuilder = ExpressionBuilder<AnyDB, string>;

/** One condition on the rows of a page, beyond the account. */
export interface Condition {
  where(eb: AnyExpressionBuilder, dialect: Dialect): Expression<SqlBool>;
  /**
   * The condition finds its rows through an index of its own and leaves few of them (an exact
   * email, a search term): the page is then sorted from those rows, rather than read by walking an
   * ordering index and testing every row on the way.
   */
  selective?: boolean;
}

export interface Find {
  where: readonly Condition[];
  /** Ascending id when absent. Ties go by id, in the same direction. */
  order?: { key: SortKey; descending: boolean };
  /**
   * Best first (a search without a sort): the found rows ordered by these expressions of the row
   * named `found`, then ascending id. Taken in place of `order`.
   */
  ranked?: (dialect: Dialect) => Expression<unknown>[];
}

/** The order a sort asks for, by the resource's sort keys; absent for the default, ascending id. */
export function orderOf<F extends string>(keys: ReadonlyMap<F, SortKey>, sort: Sort<F> | undefined): Find['order'] {
  return sort && { key: keys.get(sort.field)!, descending: sort.descending };
}

/** Whether a find asks for nothing beyond pageOf: no condition, ascending id. */
const plain = (find: Find): boolean =>
  find.where.length === 0 &&
  !find.ranked &&
  (!find.order || (find.order.key.column === 'id' && !find.order.descending));

/**
 * A page of the rows that meet the conditions, in the order asked for. Nothing to find in id order
 * is pageOf itself (the hottest lists, unchanged); anything else is foundPage. Not a generator:
 * it hands back the unit that does the work, one level less for every query to pass through.
 */
export function findPage<T extends Table>(
  table: T,
  accountId: number,
  page: PageRequest,
  find: Find,
): Unit<PageOf<DB[T] & { id: number }>> {
  // The API refuses page[after] beside any order but ascending id, so a keyset page is in id order.
  if (page.after !== undefined)
    return find.where.length
      ? keysetPage(table, accountId, page.after, page.size, find.where)
      : plainKeysetPage(table, accountId, page.after, page.size);
  return plain(find) ? pageOf(table, accountId, page) : foundPage(table, accountId, page, find);
}

type Row = Record<string, unknown>;
const keysetQueries = new Map<string, PreparedQuery<Row, [number, number, number, number?]>>();

/**
 * A keyset page of a table, or of the rows of one owner (a filter), by a prepared query: the whole
 * of an export goes through here, and a prepared query's rows cost about half what a built query's
 * do (a fixed-shape mapper over raw rows), besides building nothing per page.
 */
function* plainKeysetPage<T extends Table>(
  table: T,
  accountId: number,
  after: number,
  size: number,
  filter?: Filter,
): Unit<PageOf<DB[T] & { id: number }>> {
  const key = `paging.after.${table}${filter ? `.${filter.column}` : ''}`;
  let query = keysetQueries.get(key);
  if (!query) {
    query = prepared(key, (q, p) => {
      let built = (q as unknown as Kysely<AnyDB>)
        .selectFrom(table as string)
        .selectAll()
        .where('account_id', '=', p(0))
        .where('id', '>', p(1));
      if (filter) built = built.where(filter.column, '=', p(3));
      return built.orderBy('id').limit(p(2));
    });
    keysetQueries.set(key, query);
  }
  const rows = yield* query.all(accountId, after, size + 1, filter?.value);
  const more = rows.length > size;
  if (more) rows.pop();
  return { rows: rows as unknown as (DB[T] & { id: number })[], more };
}

/**
 * The rows meeting the conditions with an id above `after`, in ascending id order, and whether more
 * follow (one row more is read to know). Every index the conditions use ends in id, so the walk
 * starts at `after` whatever the depth. A selective condition is read through its own index and
 * the few rows sorted, fenced as foundPage does, so neither planner walks the id index instead.
 */
function* keysetPage<T extends Table>(
  table: T,
  accountId: number,
  after: number,
  size: number,
  where: readonly Condition[],
): Unit<PageOf<DB[T] & { id: number }>> {
  const scoped = (q: Kysely<DB>, dialect: Dialect) => {
    let query = (q as unknown as Kysely<AnyDB>).selectFrom(table as string).where('account_id', '=', accountId);
    for (const condition of where) query = query.where((eb) => condition.where(eb, dialect));
    return query.where('id', '>', after);
  };
  let rows: unknown[];
  if (where.some((condition) => condition.selective)) {
    rows = yield* all((q, d) =>
      (q as unknown as Kysely<AnyDB>)
        .selectFrom(d.fenced(scoped(q, d).selectAll()).as('found'))
        .selectAll()
        .orderBy('found.id')
        .limit(size + 1),
    );
  } else {
    rows = yield* all((q, d) =>
      scoped(q, d)
        .selectAll()
        .orderBy('id')
        .limit(size + 1),
    );
  }
  const more = rows.length > size;
  if (more) rows.pop();
  return { rows: rows as (DB[T] & { id: number })[], more };
}

/**
 * A page of the rows that meet the conditions, in the order asked for, and their total, in one
 * snapshot (run it inside Store.read). Three shapes, by what serves the order best:
 * - a selective condition: its rows are read through its index and sorted, the page cut from them.
 *   The inner query is fenced by OFFSET 0 (neither engine merges such a subquery into the outer
 *   query), so it is planned alone: by the condition's index. Without the fence both planners may
 *   walk an ordering index instead, testing every row of the account to find a handful.
 * - id order: pageOf's way, the first id by an offset over the index that serves the conditions
 *   (account_id, <condition column>, id), then the page read by id; in either direction.
 * - another key: ORDER BY key, id over the (account_id, key, id) index, LIMIT and OFFSET.
 */
function* foundPage<T extends Table>(
  table: T,
  accountId: number,
  page: PageRequest,
  find: Find,
): Unit<PageOf<DB[T] & { id: number }>> {
  const scoped = (q: Kysely<DB>, dialect: Dialect) => {
    let query = (q as unknown as Kysely<AnyDB>).selectFrom(table as string).where('account_id', '=', accountId);
    for (const condition of find.where) query = query.where((eb) => condition.where(eb, dialect));
    return query;
  };
  const { total } = (yield* get((q, d) => scoped(q, d).select((eb) => eb.fn.countAll<number>().as('total'))))!;
  const offset = (page.number - 1) * page.size;
  if (offset >= total) return { rows: [], total };
  const key = find.order?.key ?? ID_KEY;
  const direction = find.order?.descending ? 'desc' : 'asc';
  let rows: unknown[];
  const { ranked } = find;
  if (ranked) {
    // Ranked rows are those a search found: few when it has a trigram to look up, and every one
    // must be ranked before the page is cut, whichever way they are found.
    rows = yield* all((q, d) => {
      let query = (q as unknown as Kysely<AnyDB>)
        .selectFrom(d.fenced(scoped(q, d).selectAll()).as('found'))
        .selectAll();
      for (const expression of ranked(d)) query = query.orderBy(expression);
      return query.orderBy('found.id').limit(page.size).offset(offset);
    });
  } else if (find.where.some((condition) => condition.selective)) {
    rows = yield* all((q, d) => {
      const found = d.fenced(scoped(q, d).selectAll());
      let query = (q as unknown as Kysely<AnyDB>)
        .selectFrom(found.as('found'))
        .selectAll()
        .orderBy(keyOf(key, d, 'found'), direction);
      if (key.column !== 'id') query = query.orderBy('found.id', direction);
      return query.limit(page.size).offset(offset);
    });
  } else if (key.column === 'id') {
    rows = yield* all((q, d) =>
      scoped(q, d)
        .selectAll()
        .where(
          'id',
          direction === 'asc' ? '>=' : '<=',
          scoped(q, d).select('id').orderBy('id', direction).limit(1).offset(offset),
        )
        .orderBy('id', direction)
        .limit(page.size),
    );
  } else {
    rows = yield* all((q, d) =>
      scoped(q, d)
        .selectAll()
        .orderBy(keyOf(key, d), direction)
        .orderBy('id', direction)
        .limit(page.size)
        .offset(offset),
    );
  }
  return { rows: rows as (DB[T] & { id: number })[], total };
}
