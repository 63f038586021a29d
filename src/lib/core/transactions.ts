// Reading transactions: one by its UUID, a subscription's, or the account's (found by status, reason
// code, due date and customer), newest due date first.
import type { TransactionSortField, TransactionStatus } from '../schemas/vocabulary.js';
import type { CustomerRow } from '../store/schema.js';
import { all, get, prepared, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import { addDays, midnight } from './schedule.js';
import { batchOf, type Txn } from './ledger.js';
import type { PageOf, PageRequest, Sort } from './paging.js';

export type Transaction = Txn;

/** A transaction id as the API shows it: a UUID, lowercase. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const byId = prepared<Transaction, [string, number]>('transactions.find', (q, p) =>
  q.selectFrom('transactions').selectAll().select(batchOf()).where('id', '=', p(0)).where('account_id', '=', p(1)),
);

export function findTransaction(ctx: CoreContext, id: string): Unit<Transaction | undefined> {
  return byId.get(id.toLowerCase(), ctx.account.id);
}

export interface TransactionFind {
  /** Any of these statuses. */
  status?: readonly TransactionStatus[];
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
    if (status !== undefined) query = query.where('status', 'in', status);
    return query;
  };
  const { total } = (yield* get((q) => scoped(q).select((eb) => eb.fn.countAll<number>().as('total'))))!;
  const offset = (page.number - 1) * page.size;
  if (offset >= total) return { rows: [], total };
  const field = find.sort?.field ?? 'due_date';
  const direction = (find.sort ? find.sort.descending : true) ? 'desc' : 'asc';
  const rows = yield* all((q) =>
    scoped(q)
      .selectAll()
      .select(batchOf())
      .orderBy(field, direction)
      .orderBy('seq', direction)
      .limit(page.size)
      .offset(offset),
  );
  return { rows, total };
}

export interface AccountTransactionFind extends TransactionFind {
  reason_code?: string;
  /** Local days of the account, both included. */
  due_from?: string;
  due_to?: string;
  customer_id?: number;
  subscription_id?: number;
  /** The start of the id, in the UUID form (hyphens where a UUID has them). */
  id_prefix?: string;
}

/** A transaction of the account's list, with its customer's name. */
export type ListedTransaction = Transaction & { customer_id: number } & Pick<
    CustomerRow,
    'first_name' | 'middle_name' | 'last_name'
  >;

/**
 * A page of the account's transactions, newest due date first unless sorted otherwise (ties by
 * seq, the order they were made in). The page's seqs are found by an offset over the indexes of
 * migration 12 alone (due date, status or reason code, each with the account, due date and seq), so
 * counting and skipping read no table rows; only the page's rows are read, with their customers.
 */
export function* listTransactions(
  ctx: CoreContext,
  page: PageRequest,
  find: AccountTransactionFind = {},
): Unit<PageOf<ListedTransaction>> {
  const zone = ctx.account.time_zone;
  const scoped = (q: Parameters<Parameters<typeof get>[0]>[0]) => {
    let query = q.selectFrom('transactions').where('account_id', '=', ctx.account.id);
    if (find.status !== undefined) query = query.where('status', 'in', find.status);
    if (find.reason_code !== undefined) query = query.where('reason_code', '=', find.reason_code);
    if (find.due_from !== undefined) query = query.where('due_date', '>=', midnight(find.due_from, zone));
    if (find.due_to !== undefined) query = query.where('due_date', '<', midnight(addDays(find.due_to, 1), zone));
    if (find.subscription_id !== undefined) query = query.where('subscription_id', '=', find.subscription_id);
    if (find.id_prefix !== undefined) {
      // A range of the primary key (an index read, not a scan): ids are lower-case hex with hyphens
      // in the same places, so the ids that start with the prefix sort from it to the prefix with
      // its last digit raised (f raised is g, after every hex digit).
      const prefix = find.id_prefix;
      const last = prefix.at(-1)!;
      const upper = prefix.slice(0, -1) + (last === '9' ? 'a' : String.fromCharCode(last.charCodeAt(0) + 1));
      query = query.where('id', '>=', prefix).where('id', '<', upper);
    }
    if (find.customer_id !== undefined) {
      const customerId = find.customer_id;
      query = query.where('subscription_id', 'in', (eb) =>
        eb
          .selectFrom('subscriptions')
          .select('subscriptions.id')
          .where('subscriptions.account_id', '=', ctx.account.id)
          .where('subscriptions.customer_id', '=', customerId),
      );
    }
    return query;
  };
  const { total } = (yield* get((q) => scoped(q).select((eb) => eb.fn.countAll<number>().as('total'))))!;
  const offset = (page.number - 1) * page.size;
  if (offset >= total) return { rows: [], total };
  const field = find.sort?.field ?? 'due_date';
  const direction = (find.sort ? find.sort.descending : true) ? 'desc' : 'asc';
  const rows = yield* all((q) =>
    q
      .selectFrom('transactions as t')
      .innerJoin('subscriptions as s', 's.id', 't.subscription_id')
      .innerJoin('customers as c', 'c.id', 's.customer_id')
      .selectAll('t')
      .select(batchOf('t'))
      .select(['s.customer_id', 'c.first_name', 'c.middle_name', 'c.last_name'])
      .where(
        't.seq',
        'in',
        scoped(q).select('seq').orderBy(field, direction).orderBy('seq', direction).limit(page.size).offset(offset),
      )
      .orderBy(`t.${field}`, direction)
      .orderBy('t.seq', direction),
  );
  return { rows, total };
}
