// Reading transactions: one by its UUID, or a subscription's, newest due date first.
import type { TransactionSortField, TransactionStatus } from '../schemas/vocabulary.js';
import { all, get, prepared, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import type { Txn } from './ledger.js';
import type { PageOf, PageRequest, Sort } from './paging.js';

export type Transaction = Txn;

/** A transaction id as the API shows it: a UUID, lowercase. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const byId = prepared<Transaction, [string, number]>('transactions.find', (q, p) =>
  q.selectFrom('transactions').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)),
);

export function findTransaction(ctx: CoreContext, id: string): Unit<Transaction | undefined> {
  return byId.get(id.toLowerCase(), ctx.account.id);
}

export interface TransactionFind {
  status?: TransactionStatus;
  /** Newest due date first when absent. */
  sort?: Sort<TransactionSortField>;
}

/** A page of one subscription's transactions: a subscription has a few dozen, so an offset costs nothing. */
export function* transactionsOf(
  subscriptionId: number,
  page: PageRequest,
  find: TransactionFind = {},
): Unit<PageOf<Transaction>> {
  const { status } = find;
  const scoped = (q: Parameters<Parameters<typeof get>[0]>[0]) => {
    let query = q.selectFrom('transactions').where('subscription_id', '=', subscriptionId);
    if (status !== undefined) query = query.where('status', '=', status);
    return query;
  };
  const { total } = (yield* get((q) => scoped(q).select((eb) => eb.fn.countAll<number>().as('total'))))!;
  const offset = (page.number - 1) * page.size;
  if (offset >= total) return { rows: [], total };
  const field = find.sort?.field ?? 'due_date';
  const direction = (find.sort ? find.sort.descending : true) ? 'desc' : 'asc';
  const rows = yield* all((q) =>
    scoped(q).selectAll().orderBy(field, direction).orderBy('seq', direction).limit(page.size).offset(offset),
  );
  return { rows, total };
}
