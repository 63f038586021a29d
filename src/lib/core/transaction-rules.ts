// The rules of a transaction, whatever its origin (a plan's cycle, by hand, an invoice's total):
// made queued, scheduled for its due date, collected on it (succeeded, or failed as an operator
// set), fulfilled when the funds are in, retried after a return while the plan allows, canceled
// before collection. Each status change goes through TRANSACTION_TRANSITIONS, written once for
// requests and for due work.
import { randomUUID } from 'node:crypto';
import { REASON_CODES } from '../schemas/sepa.js';
import type { Outcome, TransactionStatus } from '../schemas/vocabulary.js';
import type { Ledger, Sub, Txn } from './ledger.js';
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
  tx.status = to;
  tx.updated_at = at;
  const code = because.code ?? null;
  l.historyOf(tx).push({
    attempt: tx.attempt,
    reason: code === null ? null : (REASON_CODES.get(code) ?? null),
    reason_code: code,
    recorded_on: at,
    status: to,
    new_due_date: because.newDueDate ?? null,
  });
  l.changedTxns.add(tx);
  l.event(tx.account_id, tx.subscription_id, tx.id, to, at);
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

/** Accepts a queued or new transaction for collection on its due date (or now, when that has passed). */
export function schedule(l: Ledger, tx: Txn, at: string): void {
  moveTransaction(l, tx, 'scheduled', at);
  tx.scheduled_on = at;
  l.due(tx.account_id, 'transaction.collect', tx.id, tx.due_date > at ? tx.due_date : at);
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
 * After a return (failed, or charged back): a storno retry 3 days on while the plan allows one, else failed for
 * good.
 */
function retryOrEnd(l: Ledger, tx: Txn, at: string, code: string): void {
  const sub = l.subs.get(tx.subscription_id)!;
  const plan = l.plans.get(sub.subscription_plan_id)!;
  // A paused subscription collects nothing, retries included.
  if (tx.attempt <= plan.storno_retries && sub.status !== 'paused') {
    const zone = l.zone(tx.account_id);
    const retry = midnight(addDays(dayAt(at, zone), RETRY_DAYS), zone);
    moveTransaction(l, tx, 'rescheduled', at, { newDueDate: retry });
    tx.attempt += 1;
    l.due(tx.account_id, 'transaction.collect', tx.id, retry);
  } else if (tx.status === 'charged_back') {
    moveTransaction(l, tx, 'failed', at, { code });
  }
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
