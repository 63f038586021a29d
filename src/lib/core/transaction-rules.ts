// The rules of a transaction, whatever its origin (a plan's cycle, by hand, an invoice's total):
// made queued, scheduled for its due date, collected on it (succeeded, or failed as an operator
// set), fulfilled when the funds are in, retried after a return while the plan allows, canceled
// before collection. Each status change goes through TRANSACTION_TRANSITIONS, written once for
// requests and for due work.
import { randomUUID } from './random.js';
import type { Outcome, TransactionStatus } from '../schemas/vocabulary.js';
import { nextTarget2Day } from '../sepa/calendar.js';
import { reasonText, retryable } from '../sepa/reasons.js';
import type { HistoryItem, Ledger, Sub, Txn } from './ledger.js';
import { addDays, cycleDay, dayAt, midnight, type Frequency } from './schedule.js';
import { canMove, OPEN_STATUSES, TRANSACTION_TRANSITIONS, TransitionError } from './transitions.js';

/** Days from collection to the funds being in (fulfilled), and from a return to its retry. */
const FULFIL_DAYS = 3;
const RETRY_DAYS = 3;

/** Statement text cut for a payment method: SEPA allows 140 characters, card statements 22. */
const describeFor = (text: string | null, paymentMethod: string): string | null =>
  text === null
    ? null
    : [...text]
        .slice(0, paymentMethod === 'creditcard' ? 22 : 140)
        .join('')
        .trimEnd();

interface Because {
  code?: string | null;
  newDueDate?: string;
}

function moveTransaction(l: Ledger, tx: Txn, to: TransactionStatus, at: string, because: Because = {}): void {
  if (!canMove(TRANSACTION_TRANSITIONS, tx.status as TransactionStatus, to))
    throw new TransitionError(`transaction ${tx.id} cannot go from ${tx.status} to ${to}`);
  const from = tx.status;
  tx.status = to;
  tx.updated_at = at;
  const code = because.code ?? null;
  l.historyOf(tx).push({
    attempt: tx.attempt,
    reason: code === null ? null : (reasonText(code) ?? null),
    reason_code: code,
    recorded_on: at,
    status: to,
    new_due_date: because.newDueDate ?? null,
  });
  l.changedTxns.add(tx);
  l.event(tx.account_id, tx.subscription_id, tx.id, to, at, { from, code, amountCents: tx.amount_cents });
  l.count(`transaction.${to}`);
}

/** A new transaction in the ledger; its first status counts as a change (an event), its history starts empty. */
function newTransaction(
  l: Ledger,
  sub: Sub,
  at: string,
  fields: Pick<Txn, 'origin' | 'cycle' | 'due_date' | 'amount_cents' | 'description'> & { invoice_id?: number },
): Txn {
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
    reason_code: null,
    created_at: at,
    updated_at: at,
  };
  l.put(tx);
  l.histories.set(tx.id, []);
  l.created.push(tx);
  l.event(tx.account_id, sub.id, tx.id, 'queued', at, { amountCents: tx.amount_cents });
  l.count('transaction.queued');
  return tx;
}

/** POST /transactions, or an invoice finalised: queued now, scheduled by due work as soon as it runs. */
export function addManualTransaction(
  l: Ledger,
  sub: Sub,
  at: string,
  amountCents: number,
  dueDate: string,
  description: string | null,
  invoiceId?: number,
): Txn {
  const tx = newTransaction(l, sub, at, {
    origin: invoiceId === undefined ? 'manual' : 'invoice',
    cycle: null,
    due_date: dueDate,
    amount_cents: amountCents,
    description,
    invoice_id: invoiceId,
  });
  l.due(sub.account_id, 'transaction.schedule', tx.id, at);
  return tx;
}

/**
 * Accepts a queued or new transaction for collection on its due date (or now, when that has passed).
 * Under SEPA the clock does not collect it (a batch and the bank's report do), and the customer is
 * pre-notified now: see prenotify.
 */
export function schedule(l: Ledger, tx: Txn, at: string): void {
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
    const days = rules.prenotification_days;
    const reason =
      dueDay < earliest
        ? `pre-notified on ${noticeDay}: collected no sooner than ${days} day${days === 1 ? '' : 's'} after the notice`
        : `${dueDay} is no TARGET2 business day: collected on the next one`;
    // Said by the item of the scheduling itself; one scheduled before gets an item of its own (no status change, no event).
    const items = l.historyOf(tx);
    if (scheduledNow) Object.assign(items.at(-1)!, { reason, new_due_date: tx.due_date });
    else
      items.push({
        attempt: tx.attempt,
        reason,
        reason_code: null,
        recorded_on: at,
        status: tx.status as TransactionStatus,
        new_due_date: tx.due_date,
      });
    tx.updated_at = at;
    l.changedTxns.add(tx);
  }
  l.notices.push(tx);
}

/**
 * A batched plan collection's date is reached: the plan's next cycle is scheduled, as the clock does
 * on a simulated collection's due date (collect). Not when its batch was cancelled before (the
 * transaction free again, or canceled): the batch that takes it next sets this up again. A retry
 * after a reject still counts, and so does a cycle already moved on.
 */
export function presented(l: Ledger, tx: Txn, at: string): void {
  if (tx.origin !== 'plan' || tx.cycle === null) return;
  if (tx.attempt === 1 && tx.collection_id === null && (tx.status === 'scheduled' || tx.status === 'canceled')) return;
  const sub = l.subs.get(tx.subscription_id);
  if (!sub || sub.next_cycle > tx.cycle) return;
  sub.next_cycle = tx.cycle + 1;
  l.changedSubs.add(sub);
  if (sub.status === 'active') schedulePlanCycle(l, sub, sub.next_cycle, at);
}

/**
 * Out of a batch cancelled before its export: free for the next one, while its subscription still
 * collects (one paused or cancelled since cancels it, as due work would have). An account gone
 * back to simulation since has the clock collect it again, as it does the rest.
 */
export function takeOutOfBatch(l: Ledger, tx: Txn, at: string): void {
  tx.collection_id = null;
  tx.updated_at = at;
  l.changedTxns.add(tx);
  if (l.subs.get(tx.subscription_id)?.status !== 'active') cancelTransaction(l, tx, at);
  else if (!l.sepa(tx.account_id)) recollect(l, tx, at);
}

const isFuturePlan = (tx: Txn) => tx.origin === 'plan' && (tx.status === 'queued' || tx.status === 'scheduled');

/** Schedules plan cycle n, unless the subscription already has a future plan transaction: there is only ever one. */
export function schedulePlanCycle(l: Ledger, sub: Sub, n: number, at: string, onDay?: string): void {
  if (l.openOf(sub.id).some(isFuturePlan)) return;
  const plan = l.plans.get(sub.subscription_plan_id)!;
  // A plan collected once has one cycle, on the anchor or, resumed after it, on the resume day.
  const day = onDay ?? cycleDay(sub.cycle_anchor!, plan.frequency as Frequency, n);
  if (day === null) return; // a plan collected once, already collected
  sub.next_cycle = n;
  l.changedSubs.add(sub);
  const tx = newTransaction(l, sub, at, {
    origin: 'plan',
    cycle: n,
    due_date: midnight(day, l.zone(sub.account_id)),
    amount_cents: plan.amount_cents,
    description: plan.name,
  });
  schedule(l, tx, at);
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

// ---- collection ----

/**
 * After a return (failed, or charged back): a storno retry 3 days on while the plan allows one, else
 * failed for good. Under SEPA the retry is a re-presentation: pre-notified like any collection (no
 * sooner than the account's pre-notification days after the notice), on a TARGET2 business day, out
 * of any batch, waiting for the next one (the clock does not collect it).
 */
function retryOrEnd(l: Ledger, tx: Txn, at: string, code: string): void {
  const sub = l.subs.get(tx.subscription_id)!;
  const plan = l.plans.get(sub.subscription_plan_id)!;
  // A paused subscription collects nothing, retries included. A cancelled one still follows up the
  // returns of what was in progress when it was cancelled (collected, or in a batch at the bank):
  // the money is owed all the same. An invoice credited in full is owed nothing, so its returned
  // collection ends (a retry would charge for what was credited).
  const owed = tx.invoice_id === null || !l.creditedInFull(tx.invoice_id);
  if (owed && tx.attempt <= plan.storno_retries && sub.status !== 'paused') {
    const zone = l.zone(tx.account_id);
    const sepa = l.sepa(tx.account_id);
    const today = dayAt(at, zone);
    let day = addDays(today, RETRY_DAYS);
    if (sepa) {
      const noticed = addDays(today, l.rules(tx.account_id).prenotification_days);
      day = nextTarget2Day(noticed > day ? noticed : day);
    }
    const retry = midnight(day, zone);
    moveTransaction(l, tx, 'rescheduled', at, { newDueDate: retry });
    tx.attempt += 1;
    tx.collection_id = null;
    if (sepa) l.notices.push(tx);
    else l.due(tx.account_id, 'transaction.collect', tx.id, retry);
  } else if (tx.status === 'charged_back') {
    moveTransaction(l, tx, 'failed', at, { code });
  }
}

/** Where a rescheduled transaction is next collected: the new due date of its last history item (its due_date keeps the first). */
export function retryDueDate(l: Ledger, tx: Txn): string {
  return tx.status === 'rescheduled' ? retryDueOf(l.historyOf(tx), tx.due_date) : tx.due_date;
}

/** A rescheduled transaction's next due date, from its history (its first due date without one). */
export function retryDueOf(items: readonly HistoryItem[], dueDate: string): string {
  for (let i = items.length - 1; i >= 0; i--)
    if (items[i].new_due_date !== null && items[i].status === 'rescheduled') return items[i].new_due_date!;
  return dueDate;
}

// ---- the bank's word (SEPA): a report's entry applied to the transaction it names ----

/** What applying an entry did: changed the transaction, or found it already so (a report read twice, a statement after a notification). */
export type Settled = 'changed' | 'unchanged';

/** Booked: the funds are in the creditor's account; fulfilled after the settlement days, as a simulated collection is. */
export function bookCollection(l: Ledger, tx: Txn, at: string): Settled {
  if (tx.status !== 'scheduled' && tx.status !== 'rescheduled') return 'unchanged';
  moveTransaction(l, tx, 'succeeded', at);
  const zone = l.zone(tx.account_id);
  l.due(tx.account_id, 'transaction.fulfil', tx.id, midnight(addDays(dayAt(at, zone), FULFIL_DAYS), zone));
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
export function collect(l: Ledger, tx: Txn, at: string): void {
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
    l.due(tx.account_id, 'transaction.fulfil', tx.id, midnight(addDays(dayAt(at, zone), FULFIL_DAYS), zone));
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

export function fulfil(l: Ledger, tx: Txn, at: string): void {
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
