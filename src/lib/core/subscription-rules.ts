// The rules of a subscription: activated (its plan's cycles scheduled), paused, resumed, cancelled,
// now or on a date. Each status change goes through SUBSCRIPTION_TRANSITIONS; what it means for the
// subscription's transactions (scheduled, canceled) the transaction rules do.
import type { SubscriptionStatus } from '../schemas/vocabulary.js';
import type { Ledger, Sub } from './ledger.js';
import { dayAt, firstCycleOnOrAfter, type Frequency } from './schedule.js';
import { cancelTransaction, schedulePlanCycle } from './transaction-rules.js';
import { canMove, SUBSCRIPTION_TRANSITIONS, TransitionError } from './transitions.js';

export function moveSubscription(l: Ledger, sub: Sub, to: SubscriptionStatus, at: string): void {
  if (sub.status === to) return;
  if (!canMove(SUBSCRIPTION_TRANSITIONS, sub.status as SubscriptionStatus, to))
    throw new TransitionError(`subscription ${sub.id} cannot go from ${sub.status} to ${to}`);
  const from = sub.status;
  sub.status = to;
  sub.updated_at = at;
  l.changedSubs.add(sub);
  l.event(sub.account_id, sub.id, null, to, at, { from });
  l.count(`subscription.${to}`);
}

/** The latest of the subscription's start, its plan's start and the day of `at`: nothing is collected before either. */
const firstDay = (l: Ledger, sub: Sub, at: string): string => {
  const zone = l.zone(sub.account_id);
  const days = [
    dayAt(at, zone),
    dayAt(sub.start_date, zone),
    dayAt(l.plans.get(sub.subscription_plan_id)!.start_date, zone),
  ];
  return days.reduce((a, b) => (b > a ? b : a));
};

/**
 * Makes the subscription active and schedules its plan: from its anchor, or the first cycle on or after today when it
 * has one.
 */
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
