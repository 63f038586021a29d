// The life of subscriptions and their transactions, written once for requests and for due work.
//
// A Ledger holds the rows one write transaction works on (loaded in bulk, locked), changes them in
// memory through the transition tables, and writes every change back at the end in bulk: the
// changed rows, the new transactions, one event per status change, and the due work the changes
// set up (a collection on its due date, a fulfilment 3 days on, a resume, a cancel). A request
// loads one subscription; the due-work runner loads a batch of hundreds, so a thousand state
// changes cost a handful of statements on PostgreSQL, not thousands of round trips.
import { randomUUID } from 'node:crypto';
import type { InvoiceStatus, Outcome, SubscriptionStatus, TransactionStatus } from '../schemas/vocabulary.js';
import { nextTarget2Day } from '../sepa/calendar.js';
import { reasonText, retryable } from '../sepa/reasons.js';
import type { AccountRow, DueWorkRow, EventRow, InvoiceRow, NotificationRow, SubscriptionRow, TransactionRow } from '../store/schema.js';
import { all, run, writeRows, type RowsSpec, type Unit } from '../store/unit.js';
import type { Plan } from './plans.js';
import { addDays, cycleDay, dayAt, firstCycleOnOrAfter, midnight, type Frequency } from './schedule.js';
import { writeDeliveries } from './outbox.js';
import { writeNotices } from './prenotification.js';
import { canMove, INVOICE_TRANSITIONS, OPEN_STATUSES, SUBSCRIPTION_TRANSITIONS, TRANSACTION_TRANSITIONS, TransitionError } from './transitions.js';

export type Sub = Omit<SubscriptionRow, 'id'> & { id: number; /** the customer's, at the time: a new transaction takes it */ customer_payment_method: string };
export type Txn = Omit<TransactionRow, 'seq'> & { seq?: number };
export type Inv = Omit<InvoiceRow, 'id'> & { id: number };

/** An account's invoice numbers while a transaction holds its row: the next to give, and the prefix. */
export interface Counter {
  next: number;
  prefix: string;
  /** The next number as it was read: the account row is written back only when numbers were given. */
  read: number;
}

export interface HistoryItem {
  attempt: number;
  reason: string | null;
  reason_code: string | null;
  recorded_on: string;
  status: TransactionStatus;
  new_due_date: string | null;
}

/** Kinds of due work, and their rank among work due at the same instant: a subscription's change first. */
export const WORK = {
  'subscription.cancel': 0,
  'subscription.resume': 0,
  'transaction.schedule': 1,
  'transaction.collect': 1,
  'transaction.fulfil': 1,
  'invoice.finalise': 1,
} as const;
export type WorkKind = keyof typeof WORK;

/** Days between collection and the funds being in (fulfilled), and between a return and its retry. */
export const SETTLE_DAYS = 3;
export const RETRY_DAYS = 3;

/** Statement text cut for a payment method: SEPA allows 140 characters, card statements 22. */
export const describeFor = (text: string | null, paymentMethod: string): string | null =>
  text === null ? null : [...text].slice(0, paymentMethod === 'creditcard' ? 22 : 140).join('').trimEnd();

type New<T> = Omit<T, 'id'>;

/** What the ledger needs of an account: its zone, how it collects, and what a pre-notification says of its creditor. */
export type AccountRules = Pick<AccountRow, 'time_zone' | 'creditor_id' | 'creditor_name'> & { id: number; collection: string; prenotification_days: number };

/** The columns of AccountRules, for the loaders. */
export const RULE_COLUMNS = ['id', 'time_zone', 'collection', 'prenotification_days', 'creditor_id', 'creditor_name'] as const;

export class Ledger {
  readonly subs = new Map<number, Sub>();
  readonly plans = new Map<number, Plan>();
  readonly txns = new Map<string, Txn>();
  /** Zone and collection rules per account id. */
  readonly accounts = new Map<number, AccountRules>();
  readonly created: Txn[] = [];
  readonly changedTxns = new Set<Txn>();
  readonly changedSubs = new Set<Sub>();
  readonly events: New<EventRow>[] = [];
  readonly work: New<DueWorkRow>[] = [];
  readonly notifications: New<NotificationRow>[] = [];
  /** Status changes made, by `subscription.<status>` and `transaction.<status>`. */
  readonly changes: Record<string, number> = {};
  /** Parsed histories, by transaction id (parsed once, written back once). */
  readonly histories = new Map<string, HistoryItem[]>();
  readonly invoices = new Map<number, Inv>();
  readonly changedInvoices = new Set<Inv>();
  /** Invoice numbers per account id, loaded (and locked) only where an invoice may be finalised. */
  readonly counters = new Map<number, Counter>();

  /** Transactions scheduled under an account collecting by SEPA: their customers are pre-notified when the ledger is written. */
  readonly notices: Txn[] = [];

  useAccount(account: AccountRules): void {
    this.accounts.set(account.id, account);
  }

  rules(accountId: number): AccountRules {
    const rules = this.accounts.get(accountId);
    if (rules === undefined) throw new Error(`the rules of account ${accountId} were not loaded`);
    return rules;
  }

  zone(accountId: number): string {
    return this.rules(accountId).time_zone;
  }

  /** Whether the account collects by SEPA: the bank's reports, not the clock, settle its collections. */
  sepa(accountId: number): boolean {
    return this.rules(accountId).collection === 'sepa';
  }

  /** The loaded transactions per subscription: openOf looks at a subscription's own, not the whole batch. */
  private readonly bySubscription = new Map<number, Txn[]>();

  /** Adds a transaction to the ledger (once). */
  put(tx: Txn): void {
    if (this.txns.has(tx.id)) return;
    this.txns.set(tx.id, tx);
    const list = this.bySubscription.get(tx.subscription_id);
    if (list) list.push(tx);
    else this.bySubscription.set(tx.subscription_id, [tx]);
  }

  /**
   * A subscription's transactions not yet collected, as they stand now. One in a collection batch is
   * on its way to the bank: like a collected one, it is neither canceled nor planned again.
   */
  openOf(subscriptionId: number): Txn[] {
    return (this.bySubscription.get(subscriptionId) ?? []).filter((tx) => (OPEN_STATUSES as readonly string[]).includes(tx.status) && tx.collection_id === null);
  }

  historyOf(tx: Txn): HistoryItem[] {
    let items = this.histories.get(tx.id);
    if (!items) {
      items = JSON.parse(tx.history) as HistoryItem[];
      this.histories.set(tx.id, items);
    }
    return items;
  }

  count(key: string): void {
    this.changes[key] = (this.changes[key] ?? 0) + 1;
  }

  /** A status change's event (its deliveries are worked out when the ledger is written). */
  event(accountId: number, subscriptionId: number, transactionId: string | null, status: string, at: string): void {
    const name = transactionId === null ? 'subscription.status' : 'transaction.status';
    this.events.push({ account_id: accountId, name, subscription_id: subscriptionId, transaction_id: transactionId, status, occurred_at: at, uid: randomUUID() });
  }

  due(accountId: number, kind: WorkKind, subject: string | number, at: string): void {
    this.work.push({ account_id: accountId, due_at: at, rank: WORK[kind], kind, subject: String(subject) });
  }
}

// ---- loading (every row locked until the transaction ends) ----

const SUBSCRIPTION_COLUMNS = [
  's.id', 's.account_id', 's.customer_id', 's.subscription_plan_id', 's.mandate_code', 's.mandate_accepted', 's.mandate_accepted_date', 's.start_date',
  's.status', 's.cancel_date', 's.resume_date', 's.confirmation_sent', 's.subscription_webhook_url', 's.transaction_webhook_url', 's.success_redirect_url',
  's.metadata', 's.archived', 's.created_at', 's.updated_at', 's.cycle_anchor', 's.next_cycle', 's.mandate_attention', 's.mandate_attention_on',
] as const;

/**
 * Loads subscriptions (with their customer's payment method), their plans, their open transactions
 * and their accounts' zones. Locks are taken subscriptions first, then transactions, by every writer
 * (loadTransactions too), so no two wait for each other in a circle. `light`: the subscriptions
 * only, read as committed and not locked, for a write that only adds a transaction to them
 * (finalising an invoice): whether it may be collected is decided again when it is scheduled.
 */
export function* loadSubscriptions(l: Ledger, ids: Iterable<number>, accountId?: number, options: { light?: boolean } = {}): Unit<void> {
  const wanted = [...new Set(ids)].filter((id) => !l.subs.has(id));
  if (wanted.length === 0) return;
  const rows = (yield* all((q, d) => {
    let query = q
      .selectFrom('subscriptions as s')
      .innerJoin('customers as c', 'c.id', 's.customer_id')
      .select([...SUBSCRIPTION_COLUMNS, 'c.payment_method as customer_payment_method'])
      .where('s.id', 'in', wanted)
      .orderBy('s.id');
    if (accountId !== undefined) query = query.where('s.account_id', '=', accountId);
    return options.light ? query : d.locked(query);
  })) as Sub[];
  for (const row of rows) l.subs.set(row.id, row);
  const planIds = [...new Set(rows.map((s) => s.subscription_plan_id))].filter((id) => !l.plans.has(id));
  if (planIds.length) for (const plan of (yield* all((q) => q.selectFrom('subscription_plans').selectAll().where('id', 'in', planIds))) as Plan[]) l.plans.set(plan.id, plan);
  yield* loadRules(l, rows.map((s) => s.account_id));
  if (rows.length === 0 || options.light) return;
  const open = (yield* all((q, d) =>
    d.locked(q.selectFrom('transactions').selectAll().where('subscription_id', 'in', rows.map((s) => s.id)).where('status', 'in', OPEN_STATUSES).orderBy('seq')),
  )) as Txn[];
  for (const tx of open) l.put(tx);
}

/**
 * Loads transactions by id (locked), after the subscriptions of those `needs` says need theirs (all
 * by default: a fulfilment without an outcome to apply does not) and of `subscriptions`.
 */
export function* loadTransactions(l: Ledger, ids: Iterable<string>, accountId?: number, needs: (tx: Pick<Txn, 'id' | 'outcome'>) => boolean = () => true, subscriptions: Iterable<number> = []): Unit<void> {
  const wanted = [...new Set(ids)].filter((id) => !l.txns.has(id));
  const subIds = [...subscriptions];
  // Which subscriptions, read without a lock (a transaction never changes subscription): theirs are taken first.
  if (wanted.length) {
    const known = yield* all((q) => {
      let query = q.selectFrom('transactions').select(['id', 'subscription_id', 'outcome']).where('id', 'in', wanted);
      if (accountId !== undefined) query = query.where('account_id', '=', accountId);
      return query;
    });
    for (const tx of known) if (needs(tx)) subIds.push(tx.subscription_id);
  }
  for (const id of ids) {
    const tx = l.txns.get(id);
    if (tx && needs(tx)) subIds.push(tx.subscription_id);
  }
  yield* loadSubscriptions(l, subIds);
  // The rest (collected ones, which no subscription lock brings), locked now, as they are now.
  const rest = wanted.filter((id) => !l.txns.has(id));
  if (rest.length) {
    const rows = (yield* all((q, d) => {
      let query = q.selectFrom('transactions').selectAll().where('id', 'in', rest).orderBy('seq');
      if (accountId !== undefined) query = query.where('account_id', '=', accountId);
      return d.locked(query);
    })) as Txn[];
    for (const tx of rows) l.put(tx);
    // An outcome set in between (READ COMMITTED): its subscription, for the retry it may bring.
    const late = rows.filter((tx) => needs(tx) && !l.subs.has(tx.subscription_id)).map((tx) => tx.subscription_id);
    if (late.length) yield* loadSubscriptions(l, late);
  }
}

/** Loads the rules of the accounts the ledger does not know yet. */
export function* loadRules(l: Ledger, accountIds: Iterable<number>): Unit<void> {
  const missing = [...new Set(accountIds)].filter((id) => !l.accounts.has(id));
  if (missing.length) for (const a of yield* all((q) => q.selectFrom('accounts').select(RULE_COLUMNS).where('id', 'in', missing))) l.useAccount(a as AccountRules);
}

// ---- writing back ----

const TRANSACTION_INSERT: RowsSpec = {
  key: 'transactions.insert',
  table: 'transactions',
  columns: {
    id: 'text', account_id: 'integer', subscription_id: 'integer', origin: 'text', cycle: 'integer', status: 'text', scheduled_on: 'instant',
    due_date: 'instant', amount_cents: 'integer', canceled_on: 'instant', webhook_url: 'text', payment_method: 'text', description: 'text',
    attempt: 'integer', history: 'text', outcome: 'text', outcome_code: 'text', created_at: 'instant', updated_at: 'instant', invoice_id: 'integer',
  },
};
const TRANSACTION_UPDATE: RowsSpec = {
  key: 'transactions.update',
  table: 'transactions',
  by: 'id',
  columns: {
    id: 'text', status: 'text', scheduled_on: 'instant', due_date: 'instant', canceled_on: 'instant', attempt: 'integer', history: 'text', outcome: 'text',
    outcome_code: 'text', updated_at: 'instant', collection_id: 'integer',
  },
};
const SUBSCRIPTION_UPDATE: RowsSpec = {
  key: 'subscriptions.update',
  table: 'subscriptions',
  by: 'id',
  columns: {
    id: 'integer', status: 'text', mandate_accepted: 'flag', mandate_accepted_date: 'instant', start_date: 'instant', cancel_date: 'instant',
    resume_date: 'instant', confirmation_sent: 'flag', subscription_webhook_url: 'text', transaction_webhook_url: 'text',
    success_redirect_url: 'text', metadata: 'json', cycle_anchor: 'text', next_cycle: 'integer', updated_at: 'instant', mandate_attention: 'text',
    mandate_attention_on: 'instant',
  },
};
const INVOICE_UPDATE: RowsSpec = {
  key: 'invoices.update',
  table: 'invoices',
  by: 'id',
  columns: {
    id: 'integer', status: 'text', number: 'integer', reference: 'text', invoice_date: 'instant', transaction_date: 'instant', send_email: 'flag',
    transaction_id: 'text', hosted_token: 'text', finalised_at: 'instant', updated_at: 'instant',
  },
};
const EVENT_INSERT: RowsSpec = {
  key: 'events.insert',
  table: 'events',
  columns: { account_id: 'integer', name: 'text', subscription_id: 'integer', transaction_id: 'text', status: 'text', occurred_at: 'instant', uid: 'text' },
};
const WORK_INSERT: RowsSpec = { key: 'due_work.insert', table: 'due_work', columns: { account_id: 'integer', due_at: 'instant', rank: 'integer', kind: 'text', subject: 'text' } };
const NOTIFICATION_INSERT: RowsSpec = {
  key: 'notifications.insert',
  table: 'notifications',
  columns: {
    account_id: 'integer', customer_id: 'integer', subscription_id: 'integer', kind: 'text', channel: 'text', language: 'text', recipient: 'text',
    subject: 'text', body: 'text', created_at: 'instant', next_send_at: 'instant',
  },
};

/** Writes every change of the ledger, in bulk. */
export function* flush(l: Ledger): Unit<void> {
  yield* followInvoices(l);
  yield* writeNotices(l);
  const created = new Set(l.created);
  for (const [id, items] of l.histories) {
    const tx = l.txns.get(id);
    if (tx && (l.changedTxns.has(tx) || created.has(tx))) tx.history = JSON.stringify(items);
  }
  yield* writeRows('insert', TRANSACTION_INSERT, l.created as unknown as Record<string, unknown>[]);
  yield* writeRows('update', TRANSACTION_UPDATE, [...l.changedTxns].filter((tx) => !created.has(tx)) as unknown as Record<string, unknown>[]);
  yield* writeRows('update', SUBSCRIPTION_UPDATE, [...l.changedSubs] as unknown as Record<string, unknown>[]);
  yield* writeRows('insert', EVENT_INSERT, l.events as unknown as Record<string, unknown>[]);
  yield* writeDeliveries(l);
  yield* writeRows('insert', WORK_INSERT, l.work as unknown as Record<string, unknown>[]);
  yield* writeRows('insert', NOTIFICATION_INSERT, l.notifications as unknown as Record<string, unknown>[]);
  yield* writeRows('update', INVOICE_UPDATE, [...l.changedInvoices] as unknown as Record<string, unknown>[]);
  for (const [accountId, counter] of l.counters) {
    if (counter.next !== counter.read) yield* run((q) => q.updateTable('accounts').set({ next_invoice_number: counter.next }).where('id', '=', accountId));
  }
}

// ---- invoices following their transactions ----

export function moveInvoice(l: Ledger, inv: Inv, to: InvoiceStatus, at: string): void {
  if (!canMove(INVOICE_TRANSITIONS, inv.status as InvoiceStatus, to)) throw new TransitionError(`invoice ${inv.id} cannot go from ${inv.status} to ${to}`);
  inv.status = to;
  inv.updated_at = at;
  l.changedInvoices.add(inv);
  l.count(`invoice.${to}`);
}

/** What an invoice becomes when its transaction ends so: funds in, failed for good (after every retry), canceled. */
const FOLLOWS: Partial<Record<string, InvoiceStatus>> = { fulfilled: 'paid', failed: 'charged_back', canceled: 'cancelled' };

/**
 * Invoices follow their transactions, by where each transaction ended up in this ledger (a failure
 * followed by a storno retry is not an end). A move the table does not allow (an invoice paid by
 * hand whose transaction is then canceled) leaves the invoice as it is.
 */
function* followInvoices(l: Ledger): Unit<void> {
  const follow: Txn[] = [];
  for (const tx of [...l.created, ...l.changedTxns]) if (tx.invoice_id !== null && FOLLOWS[tx.status] !== undefined) follow.push(tx);
  if (follow.length === 0) return;
  const missing = [...new Set(follow.map((tx) => tx.invoice_id!))].filter((id) => !l.invoices.has(id));
  if (missing.length) {
    for (const row of (yield* all((q, d) => d.locked(q.selectFrom('invoices').selectAll().where('id', 'in', missing).orderBy('id')))) as Inv[]) l.invoices.set(row.id, row);
  }
  for (const tx of follow) {
    const inv = l.invoices.get(tx.invoice_id!);
    const to = FOLLOWS[tx.status]!;
    if (inv && inv.status !== to && canMove(INVOICE_TRANSITIONS, inv.status as InvoiceStatus, to)) moveInvoice(l, inv, to, tx.updated_at);
  }
}

// ---- status changes ----

export function moveSubscription(l: Ledger, sub: Sub, to: SubscriptionStatus, at: string): void {
  if (sub.status === to) return;
  if (!canMove(SUBSCRIPTION_TRANSITIONS, sub.status as SubscriptionStatus, to)) throw new TransitionError(`subscription ${sub.id} cannot go from ${sub.status} to ${to}`);
  sub.status = to;
  sub.updated_at = at;
  l.changedSubs.add(sub);
  l.event(sub.account_id, sub.id, null, to, at);
  l.count(`subscription.${to}`);
}

interface Because {
  code?: string | null;
  newDueDate?: string;
}

export function moveTransaction(l: Ledger, tx: Txn, to: TransactionStatus, at: string, because: Because = {}): void {
  if (!canMove(TRANSACTION_TRANSITIONS, tx.status as TransactionStatus, to)) throw new TransitionError(`transaction ${tx.id} cannot go from ${tx.status} to ${to}`);
  tx.status = to;
  tx.updated_at = at;
  const code = because.code ?? null;
  l.historyOf(tx).push({ attempt: tx.attempt, reason: code === null ? null : (reasonText(code) ?? null), reason_code: code, recorded_on: at, status: to, new_due_date: because.newDueDate ?? null });
  l.changedTxns.add(tx);
  l.event(tx.account_id, tx.subscription_id, tx.id, to, at);
  l.count(`transaction.${to}`);
}

/** A new transaction in the ledger; its first status counts as a change (an event), its history starts empty. */
function newTransaction(l: Ledger, sub: Sub, at: string, fields: Pick<Txn, 'origin' | 'cycle' | 'due_date' | 'amount_cents' | 'description'> & { invoice_id?: number }): Txn {
  const tx: Txn = {
    id: randomUUID(),
    account_id: sub.account_id,
    subscription_id: sub.id,
    ...fields,
    invoice_id: fields.invoice_id ?? null,
    collection_id: null,
    status: 'queued',
    scheduled_on: null,
    canceled_on: null,
    webhook_url: sub.transaction_webhook_url,
    payment_method: sub.customer_payment_method,
    description: describeFor(fields.description, sub.customer_payment_method),
    attempt: 1,
    history: '[]',
    outcome: null,
    outcome_code: null,
    created_at: at,
    updated_at: at,
  };
  l.put(tx);
  l.histories.set(tx.id, []);
  l.created.push(tx);
  l.event(tx.account_id, sub.id, tx.id, 'queued', at);
  l.count('transaction.queued');
  return tx;
}

/** POST /transactions, or an invoice finalised: queued now, scheduled by due work as soon as it runs. */
export function addManualTransaction(l: Ledger, sub: Sub, at: string, amountCents: number, dueDate: string, description: string | null, invoiceId?: number): Txn {
  const tx = newTransaction(l, sub, at, { origin: invoiceId === undefined ? 'manual' : 'invoice', cycle: null, due_date: dueDate, amount_cents: amountCents, description, invoice_id: invoiceId });
  l.due(sub.account_id, 'transaction.schedule', tx.id, at);
  return tx;
}

/**
 * Accepts a queued or new transaction for collection on its due date (or now, when that has passed).
 * Under SEPA the clock does not collect it (a batch and the bank's report do), and the customer is
 * pre-notified now: see prenotify.
 */
function schedule(l: Ledger, tx: Txn, at: string): void {
  moveTransaction(l, tx, 'scheduled', at);
  tx.scheduled_on = at;
  if (l.sepa(tx.account_id)) prenotify(l, tx, at, true);
  else l.due(tx.account_id, 'transaction.collect', tx.id, tx.due_date > at ? tx.due_date : at);
}

/**
 * A transaction scheduled before its account went over to SEPA or back: pre-notified now (SEPA),
 * or collected by the clock again on its due date (simulation).
 */
export function recollect(l: Ledger, tx: Txn, at: string): void {
  if (l.sepa(tx.account_id)) {
    if (tx.status === 'scheduled') prenotify(l, tx, at, false);
    return;
  }
  const due = retryDueDate(l, tx);
  l.due(tx.account_id, 'transaction.collect', tx.id, due > at ? due : at);
}

/**
 * The customer is told the amount and the date of a SEPA collection when it is scheduled. It is
 * collected no sooner than the account's pre-notification days after the notice, and on a TARGET2
 * business day: a due date nearer, or on a closed day, moves, and the history item says why.
 */
function prenotify(l: Ledger, tx: Txn, at: string, scheduledNow: boolean): void {
  const rules = l.rules(tx.account_id);
  const zone = rules.time_zone;
  const noticeDay = dayAt(at, zone);
  const dueDay = dayAt(tx.due_date, zone);
  const earliest = addDays(noticeDay, rules.prenotification_days);
  const day = nextTarget2Day(dueDay < earliest ? earliest : dueDay);
  if (day !== dueDay) {
    tx.due_date = midnight(day, zone);
    const reason =
      dueDay < earliest
        ? `pre-notified on ${noticeDay}: collected no sooner than ${rules.prenotification_days} day${rules.prenotification_days === 1 ? '' : 's'} after the notice`
        : `${dueDay} is no TARGET2 business day: collected on the next one`;
    // Said by the item of the scheduling itself; one scheduled before gets an item of its own (no status change, no event).
    const items = l.historyOf(tx);
    if (scheduledNow) Object.assign(items.at(-1)!, { reason, new_due_date: tx.due_date });
    else items.push({ attempt: tx.attempt, reason, reason_code: null, recorded_on: at, status: tx.status as TransactionStatus, new_due_date: tx.due_date });
    tx.updated_at = at;
    l.changedTxns.add(tx);
  }
  l.notices.push(tx);
}

/**
 * A SEPA transaction put into collection batch `batchId`: on its way to the bank, as a collected one
 * is on its way under simulation. A plan's first attempt moves the plan on to its next cycle.
 */
export function putInBatch(l: Ledger, tx: Txn, batchId: number, at: string): void {
  tx.collection_id = batchId;
  tx.updated_at = at;
  l.changedTxns.add(tx);
  const sub = l.subs.get(tx.subscription_id)!;
  if (tx.origin === 'plan' && tx.attempt === 1) {
    sub.next_cycle = (tx.cycle ?? 0) + 1;
    l.changedSubs.add(sub);
    if (sub.status === 'active') schedulePlanCycle(l, sub, sub.next_cycle, at);
  }
}

/**
 * Out of a batch cancelled before its export: free for the next one, while its subscription still
 * collects (one paused or cancelled since cancels it, as due work would have).
 */
export function takeOutOfBatch(l: Ledger, tx: Txn, at: string): void {
  tx.collection_id = null;
  tx.updated_at = at;
  l.changedTxns.add(tx);
  if (l.subs.get(tx.subscription_id)?.status !== 'active') cancelTransaction(l, tx, at);
}

const isFuturePlan = (tx: Txn) => tx.origin === 'plan' && (tx.status === 'queued' || tx.status === 'scheduled');

/** Schedules plan cycle n, unless the subscription already has a future plan transaction: there is only ever one. */
function schedulePlanCycle(l: Ledger, sub: Sub, n: number, at: string, onDay?: string): void {
  if (l.openOf(sub.id).some(isFuturePlan)) return;
  const plan = l.plans.get(sub.subscription_plan_id)!;
  // A plan collected once has one cycle, on the anchor or, resumed after it, on the resume day.
  const day = onDay ?? cycleDay(sub.cycle_anchor!, plan.frequency as Frequency, n);
  if (day === null) return; // a plan collected once, already collected
  sub.next_cycle = n;
  l.changedSubs.add(sub);
  const tx = newTransaction(l, sub, at, { origin: 'plan', cycle: n, due_date: midnight(day, l.zone(sub.account_id)), amount_cents: plan.amount_cents, description: plan.name });
  schedule(l, tx, at);
}

/** The latest of the subscription's start, its plan's start and the day of `at`: nothing is collected before either start. */
const firstDay = (l: Ledger, sub: Sub, at: string): string => {
  const zone = l.zone(sub.account_id);
  const days = [dayAt(at, zone), dayAt(sub.start_date, zone), dayAt(l.plans.get(sub.subscription_plan_id)!.start_date, zone)];
  return days.reduce((a, b) => (b > a ? b : a));
};

/** Makes the subscription active and schedules its plan: from its anchor, or the first cycle on or after today when it has one. */
export function activate(l: Ledger, sub: Sub, at: string): void {
  moveSubscription(l, sub, 'active', at);
  sub.resume_date = null;
  l.changedSubs.add(sub);
  const from = firstDay(l, sub, at);
  if (sub.cycle_anchor === null) {
    sub.cycle_anchor = from;
    schedulePlanCycle(l, sub, 0, at);
    return;
  }
  const plan = l.plans.get(sub.subscription_plan_id)!;
  const next = firstCycleOnOrAfter(sub.cycle_anchor, plan.frequency as Frequency, sub.next_cycle, from);
  if (next) schedulePlanCycle(l, sub, next.n, at, next.day);
}

/** A new start before the first collection: the plan's cycles start over from it (or from today). */
export function restartCycles(l: Ledger, sub: Sub, at: string): void {
  for (const tx of l.openOf(sub.id)) if (tx.origin === 'plan') cancelTransaction(l, tx, at);
  sub.cycle_anchor = null;
  sub.next_cycle = 0;
  l.changedSubs.add(sub);
  if (sub.status === 'active') {
    sub.cycle_anchor = firstDay(l, sub, at);
    schedulePlanCycle(l, sub, 0, at);
  }
}

/** Cancels everything not yet collected (manual transactions too). */
function cancelOpen(l: Ledger, sub: Sub, at: string): void {
  for (const tx of l.openOf(sub.id)) cancelTransaction(l, tx, at);
}

/**
 * DELETE of a transaction: canceled. A plan's next collection canceled by hand skips that cycle;
 * the plan goes on with the one after it (an active subscription always has its next collection).
 */
export function cancelByHand(l: Ledger, tx: Txn, at: string): void {
  cancelTransaction(l, tx, at);
  const sub = l.subs.get(tx.subscription_id);
  if (!sub || tx.origin !== 'plan' || tx.attempt !== 1 || sub.status !== 'active') return;
  sub.next_cycle = (tx.cycle ?? 0) + 1;
  l.changedSubs.add(sub);
  schedulePlanCycle(l, sub, sub.next_cycle, at);
}

export function cancelTransaction(l: Ledger, tx: Txn, at: string): void {
  moveTransaction(l, tx, 'canceled', at);
  tx.canceled_on = at;
  tx.outcome = null;
  tx.outcome_code = null;
}

export function pause(l: Ledger, sub: Sub, at: string, resumeDate: string | null): void {
  moveSubscription(l, sub, 'paused', at);
  setResumeDate(l, sub, resumeDate);
  cancelOpen(l, sub, at);
}

export function setResumeDate(l: Ledger, sub: Sub, resumeDate: string | null): void {
  sub.resume_date = resumeDate;
  l.changedSubs.add(sub);
  if (resumeDate !== null) l.due(sub.account_id, 'subscription.resume', sub.id, resumeDate);
}

export function setCancelDate(l: Ledger, sub: Sub, cancelDate: string | null): void {
  sub.cancel_date = cancelDate;
  l.changedSubs.add(sub);
  if (cancelDate !== null) l.due(sub.account_id, 'subscription.cancel', sub.id, cancelDate);
}

/** Cancelled at `at`, for good; what is not yet collected is canceled, what was collected completes. */
export function cancel(l: Ledger, sub: Sub, at: string): void {
  moveSubscription(l, sub, 'cancelled', at);
  sub.cancel_date = at;
  sub.resume_date = null;
  l.changedSubs.add(sub);
  cancelOpen(l, sub, at);
}

// ---- collection ----

/**
 * After a return (failed, or charged back): a storno retry 3 days on while the plan allows one, else
 * failed for good. Under SEPA the retry is a re-presentation: on a TARGET2 business day, out of any
 * batch, waiting for the next one (the clock does not collect it).
 */
function retryOrEnd(l: Ledger, tx: Txn, at: string, code: string): void {
  const sub = l.subs.get(tx.subscription_id)!;
  const plan = l.plans.get(sub.subscription_plan_id)!;
  // A paused subscription collects nothing, retries included.
  if (tx.attempt <= plan.storno_retries && sub.status !== 'paused') {
    const zone = l.zone(tx.account_id);
    const sepa = l.sepa(tx.account_id);
    const day = addDays(dayAt(at, zone), RETRY_DAYS);
    const retry = midnight(sepa ? nextTarget2Day(day) : day, zone);
    moveTransaction(l, tx, 'rescheduled', at, { newDueDate: retry });
    tx.attempt += 1;
    tx.collection_id = null;
    if (!sepa) l.due(tx.account_id, 'transaction.collect', tx.id, retry);
  } else if (tx.status === 'charged_back') {
    moveTransaction(l, tx, 'failed', at, { code });
  }
}

/** Where a rescheduled transaction is next collected: the new due date of its last history item (its due_date keeps the first). */
export function retryDueDate(l: Ledger, tx: Txn): string {
  if (tx.status !== 'rescheduled') return tx.due_date;
  const items = l.historyOf(tx);
  for (let i = items.length - 1; i >= 0; i--) if (items[i].new_due_date !== null && items[i].status === 'rescheduled') return items[i].new_due_date!;
  return tx.due_date;
}

// ---- the bank's word (SEPA): a report's entry applied to the transaction it names ----

/** What applying an entry did: changed the transaction, or found it already so (a report read twice, a statement after a notification). */
export type Settled = 'changed' | 'unchanged';

/** Booked: the funds are in the creditor's account; fulfilled after the settlement days, as a simulated collection is. */
export function bookCollection(l: Ledger, tx: Txn, at: string): Settled {
  if (tx.status !== 'scheduled' && tx.status !== 'rescheduled') return 'unchanged';
  moveTransaction(l, tx, 'succeeded', at);
  const zone = l.zone(tx.account_id);
  l.due(tx.account_id, 'transaction.fulfil', tx.id, midnight(addDays(dayAt(at, zone), SETTLE_DAYS), zone));
  return 'changed';
}

/** Rejected before settlement (pain.002 RJCT, or a camt entry saying so): failed, then a retry where a retry can cure it. */
export function rejectCollection(l: Ledger, tx: Txn, code: string, at: string): Settled {
  if (tx.status !== 'scheduled' && tx.status !== 'rescheduled') return 'unchanged';
  moveTransaction(l, tx, 'failed', at, { code });
  afterBankReturn(l, tx, code, at);
  return 'changed';
}

/** Returned or refunded after settlement: charged back (collected first, when the booking was never reported), then as a reject. */
export function returnCollection(l: Ledger, tx: Txn, code: string, at: string): Settled {
  if (tx.status === 'scheduled' || tx.status === 'rescheduled') moveTransaction(l, tx, 'succeeded', at);
  if (tx.status !== 'succeeded' && tx.status !== 'fulfilled') return 'unchanged';
  moveTransaction(l, tx, 'charged_back', at, { code });
  afterBankReturn(l, tx, code, at);
  return 'changed';
}

/**
 * The plan's storno retries apply only to what a retry can cure (AM04, MS02, MS03...): any other
 * code fails at once and flags the subscription's mandate for attention.
 */
function afterBankReturn(l: Ledger, tx: Txn, code: string, at: string): void {
  if (retryable(code)) return retryOrEnd(l, tx, at, code);
  if (tx.status === 'charged_back') moveTransaction(l, tx, 'failed', at, { code });
  const sub = l.subs.get(tx.subscription_id)!;
  sub.mandate_attention = code;
  sub.mandate_attention_on = at;
  l.changedSubs.add(sub);
}

/** Takes the outcome an operator set for this attempt (it applies once). */
function takeOutcome(l: Ledger, tx: Txn): { outcome: Outcome; code: string } | undefined {
  if (tx.outcome === null) return undefined;
  const taken = { outcome: tx.outcome as Outcome, code: tx.outcome_code! };
  tx.outcome = null;
  tx.outcome_code = null;
  l.changedTxns.add(tx);
  return taken;
}

/** The due date is reached: collected (or failed, as the operator set), and the plan's next cycle scheduled. */
function collect(l: Ledger, tx: Txn, at: string): void {
  if (tx.status !== 'scheduled' && tx.status !== 'rescheduled') return;
  // Collected by the bank: work set up before the account went over to SEPA does nothing.
  if (l.sepa(tx.account_id) || tx.collection_id !== null) return;
  const firstAttempt = tx.attempt === 1;
  const set = takeOutcome(l, tx);
  if (set?.outcome === 'failed') moveTransaction(l, tx, 'failed', at, { code: set.code });
  else {
    if (set) {
      // A charge-back set beforehand arrives instead of the funds.
      tx.outcome = set.outcome;
      tx.outcome_code = set.code;
    }
    moveTransaction(l, tx, 'succeeded', at);
    const zone = l.zone(tx.account_id);
    l.due(tx.account_id, 'transaction.fulfil', tx.id, midnight(addDays(dayAt(at, zone), SETTLE_DAYS), zone));
  }
  const sub = l.subs.get(tx.subscription_id)!;
  if (tx.origin === 'plan' && firstAttempt) {
    // The cycle is collected: the next one is due next, whether or not there is one (a plan collected once has none).
    sub.next_cycle = (tx.cycle ?? 0) + 1;
    l.changedSubs.add(sub);
    if (sub.status === 'active') schedulePlanCycle(l, sub, sub.next_cycle, at);
  }
  if (set?.outcome === 'failed') retryOrEnd(l, tx, at, set.code);
}

function fulfil(l: Ledger, tx: Txn, at: string): void {
  if (tx.status !== 'succeeded') return;
  const set = takeOutcome(l, tx);
  if (set) {
    moveTransaction(l, tx, set.outcome, at, { code: set.code });
    retryOrEnd(l, tx, at, set.code);
  } else moveTransaction(l, tx, 'fulfilled', at);
}

/**
 * An operator's outcome for a transaction: before collection it is kept for the next attempt;
 * after it, it happens now (and a storno retry follows where the plan allows). Gives the refusal,
 * or undefined when done.
 */
export function setOutcome(l: Ledger, tx: Txn, outcome: Outcome, code: string, at: string): string | undefined {
  if ((OPEN_STATUSES as readonly string[]).includes(tx.status)) {
    tx.outcome = outcome;
    tx.outcome_code = code;
    tx.updated_at = at;
    l.changedTxns.add(tx);
    return undefined;
  }
  if (tx.status === 'succeeded' || (tx.status === 'fulfilled' && outcome === 'charged_back')) {
    tx.outcome = null;
    tx.outcome_code = null;
    moveTransaction(l, tx, outcome, at, { code });
    retryOrEnd(l, tx, at, code);
    return undefined;
  }
  if (tx.status === 'fulfilled') return 'a fulfilled transaction can only be charged back (its funds are in)';
  return `a ${tx.status} transaction has no outcome left to set`;
}
// ---- due work ----

export interface DueItem {
  id: number;
  account_id: number;
  due_at: string;
  rank: number;
  kind: string;
  subject: string;
}

/** Does one piece of due work at its moment. Work that no longer applies (a canceled transaction, a moved date) is dropped. */
export function doWork(l: Ledger, item: DueItem): void {
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
