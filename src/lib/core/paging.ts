// One page of an account's resources, ordered by id, plus the total, read from one snapshot.
import type { DB } from '../store/store.js';
import { all, get, type Unit } from '../store/unit.js';

export interface PageRequest {
  number: number;
  size: number;
}

export interface PageOf<T> {
  rows: T[];
  total: number;
}

type Table = 'customers' | 'subscription_plans' | 'subscriptions';
type Filter = { column: 'customer_id' | 'subscription_plan_id'; value: number };

/**
 * The page's first id is found by an offset over the (account_id, id) index alone, then the page is
 * read by id, so the last page of 100,000 rows costs about what the first does. Run it inside one
 * read (Store.read), so the rows and the total come from one snapshot.
 */
export function* pageOf<T extends Table>(table: T, accountId: number, page: PageRequest, filter?: Filter): Unit<PageOf<DB[T] & { id: number }>> {
  // Every paged table has id and account_id; filters are only ever passed for subscriptions.
  // Kysely types one table at a time, so the queries are typed against `subscriptions`.
  const t = table as 'subscriptions';
  const scoped = (q: Parameters<Parameters<typeof get>[0]>[0]) => {
    let query = q.selectFrom(t).where('account_id', '=', accountId);
    if (filter) query = query.where(filter.column, '=', filter.value);
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
