// One page of an account's resources, ordered by id, plus the total, read from one snapshot.
import type { DB, Store } from '../store/store.js';

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
 * read by id, so the last page of 100,000 rows costs about what the first does.
 */
export function pageOf<T extends Table>(store: Store, table: T, accountId: number, page: PageRequest, filter?: Filter): PageOf<DB[T] & { id: number }> {
  // Every paged table has id and account_id; filters are only ever passed for subscriptions.
  // Kysely types one table at a time, so the queries are typed against `subscriptions`.
  const t = table as 'subscriptions';
  const scoped = () => {
    let query = store.q.selectFrom(t).where('account_id', '=', accountId);
    if (filter) query = query.where(filter.column, '=', filter.value);
    return query;
  };
  return store.read(() => {
    const { total } = store.get(scoped().select((eb) => eb.fn.countAll<number>().as('total')))!;
    const offset = (page.number - 1) * page.size;
    if (offset >= total) return { rows: [], total };
    const firstId = scoped().select('id').orderBy('id').limit(1).offset(offset);
    const rows = store.all(scoped().selectAll().where('id', '>=', firstId).orderBy('id').limit(page.size));
    return { rows: rows as unknown as (DB[T] & { id: number })[], total };
  });
}
