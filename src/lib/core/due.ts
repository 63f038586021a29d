// Due work: everything that happens when a date is reached, done in date order, each piece once.
//
// Work is a table (due_work), claimed in the database: a batch is deleted in the same transaction
// that does it, so a piece is done exactly once whoever runs it, however many processes catch up
// at the same moment (SQLite: the write lock; PostgreSQL: FOR UPDATE SKIP LOCKED, so each instance
// takes other rows). A batch spans less than a day of due times. Work a piece sets up inside what
// the batch covers (a resumed subscription's collection, due at once) is done in its place in the
// same batch; the rest (a fulfilment, a retry, the next cycle: days on) is written for a later
// batch. So the order holds however far the clock moves in one step.
import type { Store } from '../store/store.js';
import { all, get, prepared, run, writeRows, type Unit } from '../store/unit.js';
import {
  finaliseDue,
  loadCredited,
  loadFullCredits,
  loadInvoices,
  newInvoicing,
  originalsOf,
} from './invoice-rules.js';
import { flush, Ledger, loadTransactions, WORK_INSERT, workRow, type WorkKind } from './ledger.js';
import { presentedPage } from './collections.js';
import { DEFAULT_BASE_URL } from './notifications.js';
import { activate, cancel } from './subscription-rules.js';
import { cancelTransaction, collect, fulfil, presented, schedule } from './transaction-rules.js';

/** Pieces of work per transaction: big enough that PostgreSQL's round trips are few, small enough to keep memory flat. */
export const BATCH = 500;
const DAY_MS = 86_400_000;

export interface DueReport {
  /** Pieces of work done (or found no longer applying). */
  done: number;
  /** Status changes, by `transaction.<status>` and `subscription.<status>`. */
  changes: Record<string, number>;
}

const earliestWork = prepared<{ due_at: string }, []>('due.next', (q) =>
  q.selectFrom('due_work').select('due_at').orderBy('due_at').limit(1),
);

/** The earliest due time of any work, or undefined: one index lookup, the whole cost of a catch-up when nothing is due. */
export function* earliestDue(): Unit<string | undefined> {
  return (yield* earliestWork.get())?.due_at;
}

/** Work due by `now` and not done yet (the catch-up of the next command does it), and when the next falls due. */
export function* dueSummary(now: string): Unit<{ waiting: number; next: string | undefined }> {
  const waiting = yield* get((q) =>
    q
      .selectFrom('due_work')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('due_at', '<=', now),
  );
  const next = yield* get((q) =>
    q.selectFrom('due_work').select('due_at').where('due_at', '>', now).orderBy('due_at').limit(1),
  );
  return { waiting: Number(waiting?.n ?? 0), next: next?.due_at };
}

export interface DueOptions {
  /** The running process's policy on webhooks to private addresses, recorded on the deliveries the work writes. */
  allowPrivateWebhooks: boolean;
  batchSize?: number;
  /** The public base URL, for links in what due work sends (an invoice's email). */
  baseUrl?: string;
  /** The earliest due time, when the caller has just read it (a catch-up): the first batch need not read it again. */
  earliest?: string;
  /**
   * The store's test clock moves with the work (clock set|advance): each batch brings it to the time
   * it did the work up to, in the same transaction. Stopped half-way (Ctrl-C), the clock is where the
   * work is, never at a time whose work is left undone.
   */
  movesClock?: boolean;
}

interface DueItem {
  id: number;
  account_id: number;
  due_at: string;
  rank: number;
  kind: string;
  subject: string;
  /** A block's collection.presented: the transactions of the page it does. */
  transactions?: string[];
}

/**
 * Does one piece of due work at its moment (invoice.finalise: finaliseDue). Work that no longer applies (a canceled
 * transaction, a moved date) is dropped.
 */
function doWork(l: Ledger, item: DueItem): void {
  const at = item.due_at;
  switch (item.kind as WorkKind) {
    case 'transaction.schedule': {
      const tx = l.txns.get(item.subject);
      if (tx?.status !== 'queued') return;
      // Collected under an active subscription only: one paused or cancelled since (after the
      // transaction was made without its lock, as a finalised invoice's is) cancels it instead.
      const sub = l.subs.get(tx.subscription_id);
      if (sub && sub.status !== 'active') cancelTransaction(l, tx, at);
      else schedule(l, tx, at);
      return;
    }
    case 'transaction.collect': {
      const tx = l.txns.get(item.subject);
      if (tx) collect(l, tx, at);
      return;
    }
    case 'transaction.fulfil': {
      const tx = l.txns.get(item.subject);
      if (tx) fulfil(l, tx, at);
      return;
    }
    case 'transaction.presented': {
      const tx = l.txns.get(item.subject);
      if (tx) presented(l, tx, at);
      return;
    }
    case 'collection.presented':
      for (const id of item.transactions ?? []) {
        const tx = l.txns.get(id);
        if (tx) presented(l, tx, at);
      }
      return;
    case 'subscription.resume': {
      const sub = l.subs.get(Number(item.subject));
      if (sub?.status === 'paused' && sub.resume_date !== null && sub.resume_date <= at) activate(l, sub, at);
      return;
    }
    case 'subscription.cancel': {
      const sub = l.subs.get(Number(item.subject));
      if (sub && sub.status !== 'cancelled' && sub.cancel_date !== null && sub.cancel_date <= at) cancel(l, sub, at);
      return;
    }
  }
}

/**
 * Claims and does one batch of the work due by `until`. `blocked`: work is due, but other
 * transactions hold all of it. `whole`: the batch claimed every row due by `until` it could see
 * (fewer than it may take, its window reaching `until`), and what it set up by then it did itself.
 */
function* batch(
  until: string,
  size: number,
  baseUrl: string,
  allowPrivateWebhooks: boolean,
  known?: string,
  movesClock = false,
): Unit<DueReport & { blocked?: boolean; whole?: boolean }> {
  const first = known ?? (yield* earliestDue());
  if (first === undefined || first > until) return { done: 0, changes: {} };
  const windowEnd = new Date(Math.min(Date.parse(until), Date.parse(first) + DAY_MS - 1)).toISOString();
  const claimed = (yield* all((q, d) =>
    q
      .deleteFrom('due_work')
      .where('id', 'in', (eb) =>
        d.locked(
          eb
            .selectFrom('due_work')
            .select('id')
            .where('due_at', '<=', windowEnd)
            .orderBy('due_at')
            .orderBy('rank')
            .orderBy('id')
            .limit(size),
          true,
        ),
      )
      .returningAll(),
  )) as DueItem[];
  if (claimed.length === 0) return { done: 0, changes: {}, blocked: true };
  claimed.sort(inOrder);
  const l = new Ledger(allowPrivateWebhooks);
  const txIds: string[] = [];
  const subIds: number[] = [];
  const collecting = new Set<string>();
  const invoiceIds: number[] = [];
  // A block's presented work does a page of its transactions, within what a batch takes; the rest of
  // the block is work again, for the next batch (not done inline: one batch stays `size` transactions).
  const rest: ReturnType<typeof workRow>[] = [];
  let budget = size;
  for (const item of claimed) {
    if (item.kind === 'invoice.finalise') invoiceIds.push(Number(item.subject));
    else if (item.kind === 'collection.presented') {
      const page = budget > 0 ? yield* presentedPage(item.subject, budget) : { transactions: [], rest: item.subject };
      budget -= page.transactions.length;
      item.transactions = page.transactions;
      for (const id of page.transactions) {
        txIds.push(id);
        collecting.add(id);
      }
      if (page.rest !== undefined) rest.push(workRow(item.account_id, 'collection.presented', page.rest, item.due_at));
    } else if (item.kind.startsWith('transaction.')) {
      txIds.push(item.subject);
      if (item.kind !== 'transaction.fulfil') collecting.add(item.subject);
    } else subIds.push(Number(item.subject));
  }
  // A fulfilment needs its subscription only to retry an outcome set for it.
  yield* loadTransactions(l, txIds, undefined, (tx) => collecting.has(tx.id) || tx.outcome !== null, subIds);
  const invoicing = newInvoicing();
  const originals = yield* originalsOf(invoiceIds);
  yield* loadInvoices(l, invoicing, [...invoiceIds, ...originals]);
  yield* loadCredited(l, invoicing, originals);
  yield* loadFullCredits(l);
  // Work a piece sets up inside what this batch covers (a resume's collection due at once, a manual
  // transaction's) is done here, in its place in the order, not after later work of the batch.
  const horizon = claimed.length < size ? windowEnd : claimed[claimed.length - 1].due_at;
  const pending = claimed;
  let added = 0;
  for (let i = 0; i < pending.length; i++) {
    const before = l.work.length;
    const piece = pending[i];
    if (piece.kind === 'invoice.finalise') finaliseDue(l, invoicing, Number(piece.subject), piece.due_at, baseUrl);
    else doWork(l, piece);
    for (let w = before; w < l.work.length;) {
      const work = l.work[w];
      if (work.due_at > horizon) {
        w++;
        continue;
      }
      l.work.splice(w, 1);
      const item: DueItem = { ...work, id: Number.MAX_SAFE_INTEGER - 1_000_000 + ++added };
      let at = i + 1;
      while (at < pending.length && inOrder(pending[at], item) <= 0) at++;
      pending.splice(at, 0, item);
    }
  }
  yield* flush(l);
  if (rest.length) yield* writeRows('insert', WORK_INSERT, rest);
  if (movesClock) {
    const reached = horizon < until ? horizon : until;
    yield* run((q) =>
      q.updateTable('store_clock').set({ test_time: reached }).where('id', '=', 1).where('test_time', '<', reached),
    );
  }
  return {
    done: pending.length,
    changes: l.changes,
    whole: claimed.length < size && rest.length === 0 && Date.parse(windowEnd) === Date.parse(until),
  };
}

/** Date order; of work due at the same instant, the lower rank first, then the older. */
const inOrder = (a: DueItem, b: DueItem): number =>
  a.due_at < b.due_at ? -1 : a.due_at > b.due_at ? 1 : a.rank - b.rank || a.id - b.id;

const merge = (into: DueReport, report: DueReport): void => {
  into.done += report.done;
  for (const [key, n] of Object.entries(report.changes)) into.changes[key] = (into.changes[key] ?? 0) + n;
};

/** How long a catch-up waits for work another process holds (PostgreSQL), before leaving it to that process. */
const BLOCKED_WAIT_MS = 60_000;

/**
 * Does all work due by `until` (ISO), batch by batch, in date order. Work another instance has
 * claimed (PostgreSQL) is waited for, so a catch-up returns only when nothing is due: what the
 * caller reads next is current.
 */
export async function runDue(store: Store, until: string, options: DueOptions): Promise<DueReport> {
  const total: DueReport = { done: 0, changes: {} };
  let waited = 0;
  let earliest = options.earliest;
  for (;;) {
    const known = earliest;
    earliest = undefined;
    const { batchSize = BATCH, baseUrl = DEFAULT_BASE_URL, allowPrivateWebhooks, movesClock = false } = options;
    const report = await store.work(() => batch(until, batchSize, baseUrl, allowPrivateWebhooks, known, movesClock));
    if (report.blocked) {
      if (waited >= BLOCKED_WAIT_MS) return total;
      const pause = 10 + Math.random() * 20;
      await new Promise((resolve) => setTimeout(resolve, pause));
      waited += pause;
      continue;
    }
    if (report.done === 0) return total;
    merge(total, report);
    // SQLite has one writer: a whole batch left nothing due, and a transaction to find so is saved
    // (a command's catch-up is one write, not two). PostgreSQL looks again: rows another instance
    // held were skipped, and are waited for.
    if (report.whole && store.engine === 'sqlite') return total;
  }
}
