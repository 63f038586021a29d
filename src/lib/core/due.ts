// Due work: everything that happens when a date is reached, done in date order, each piece once.
//
// Work is a table (due_work), claimed in the database: a batch is deleted in the same transaction
// that does it, so a piece is done exactly once whoever runs it, however many processes catch up
// at the same moment (SQLite: the write lock; PostgreSQL: FOR UPDATE SKIP LOCKED, so each instance
// takes other rows). A batch spans less than a day of due times: the work a piece sets up (a
// fulfilment, a retry, the next cycle) is at least a day later, so it always falls in a later
// batch, and the order holds.
import type { Store } from '../store/store.js';
import { all, prepared, type MaybePromise, type Unit } from '../store/unit.js';
import { doWork, flush, Ledger, loadSubscriptions, loadTransactions, type DueItem } from './lifecycle.js';

/** Pieces of work per transaction: big enough that PostgreSQL's round trips are few, small enough to keep memory flat. */
export const BATCH = 500;
const DAY_MS = 86_400_000;

export interface DueReport {
  /** Pieces of work done (or found no longer applying). */
  done: number;
  /** Status changes, by `transaction.<status>` and `subscription.<status>`. */
  changes: Record<string, number>;
}

const nextDue = prepared<{ due_at: string }, []>('due.next', (q) => q.selectFrom('due_work').select('due_at').orderBy('due_at').limit(1));

/** The earliest due time of any work, or undefined: one index lookup, the whole cost of a catch-up when nothing is due. */
export function* earliestDue(): Unit<string | undefined> {
  return (yield* nextDue.get())?.due_at;
}

/** Claims and does one batch of the work due by `until`. */
function* batch(until: string, size: number): Unit<DueReport> {
  const first = yield* earliestDue();
  if (first === undefined || first > until) return { done: 0, changes: {} };
  const windowEnd = new Date(Math.min(Date.parse(until), Date.parse(first) + DAY_MS - 1)).toISOString();
  const claimed = (yield* all((q, d) =>
    q
      .deleteFrom('due_work')
      .where('id', 'in', (eb) => d.locked(eb.selectFrom('due_work').select('id').where('due_at', '<=', windowEnd).orderBy('due_at').orderBy('rank').orderBy('id').limit(size), true))
      .returningAll(),
  )) as DueItem[];
  if (claimed.length === 0) return { done: 0, changes: {} };
  claimed.sort((a, b) => (a.due_at < b.due_at ? -1 : a.due_at > b.due_at ? 1 : a.rank - b.rank || a.id - b.id));
  const l = new Ledger();
  const txIds: string[] = [];
  const subIds: number[] = [];
  for (const item of claimed) {
    if (item.kind.startsWith('transaction.')) txIds.push(item.subject);
    else subIds.push(Number(item.subject));
  }
  yield* loadTransactions(l, txIds);
  yield* loadSubscriptions(l, subIds);
  for (const item of claimed) doWork(l, item);
  yield* flush(l);
  return { done: claimed.length, changes: l.changes };
}

const merge = (into: DueReport, report: DueReport): void => {
  into.done += report.done;
  for (const [key, n] of Object.entries(report.changes)) into.changes[key] = (into.changes[key] ?? 0) + n;
};

/** Does all work due by `until` (ISO), batch by batch, in date order. */
export async function runDue(store: Store, until: string, options: { batchSize?: number } = {}): Promise<DueReport> {
  const total: DueReport = { done: 0, changes: {} };
  for (;;) {
    const report = await store.work(() => batch(until, options.batchSize ?? BATCH));
    if (report.done === 0) return total;
    merge(total, report);
  }
}

/** Whether any work is due by `until`: one indexed read. */
export function isDue(store: Store, until: string): MaybePromise<boolean> {
  const found = store.read(() => earliestDue(), 'due.next');
  return found instanceof Promise ? found.then((due) => due !== undefined && due <= until) : found !== undefined && found <= until;
}
