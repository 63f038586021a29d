// Creating and changing subscriptions: every rule checked first, then one write transaction that
// changes the subscription, its transactions, its events and its due work together.
import { validateAttributes, type AttributeProblem } from '../schemas/common.js';
import {
  subscriptionCreateSchema,
  subscriptionUpdateSchema,
  SUBSCRIPTION_READ_ONLY_ON_CREATE,
  SUBSCRIPTION_READ_ONLY_ON_UPDATE,
} from '../schemas/subscription.js';
import type { SubscriptionStatus } from '../schemas/vocabulary.js';
import { get, run, type MaybePromise, type Unit } from '../store/unit.js';
import { allowsPrivateWebhooks, transactLocked, nowIso, type CoreContext } from './context.js';
import { flush, Ledger, loadRules, loadSubscriptions, type Sub } from './ledger.js';
import {
  activate,
  cancel,
  moveSubscription,
  pause,
  restartCycles,
  setCancelDate,
  setResumeDate,
} from './subscription-rules.js';
import { newConfirmationToken } from './mandate.js';
import { confirmationPath, mandateConfirmation } from './notifications.js';
import { getPlan } from './plans.js';
import { fail, invalidAttributes, ok, type Result } from './result.js';
import { dayAt, midnight } from './schedule.js';
import { findSubscriptionWithTransactions } from './subscriptions.js';
import { formatInstant, parseDateInput, readInstants } from './time.js';
import { canMove, OPEN_STATUSES, SUBSCRIPTION_TRANSITIONS } from './transitions.js';
import { hostOf, isPrivateTarget } from './webhooks.js';
import { findCustomer, type Subscription } from './customers.js';

export interface SubscriptionWithTransactions {
  subscription: Subscription;
  transactionIds: string[];
  /** Asked for the status it already had, and nothing else: nothing was written. */
  unchanged?: true;
}

const URLS = ['subscription_webhook_url', 'transaction_webhook_url'] as const;
const DATES = ['mandate_accepted_date', 'start_date', 'cancel_date', 'resume_date'] as const;
type DateName = (typeof DATES)[number];

/** Rules on the values themselves, alike for create and update. */
function checkValues(
  ctx: CoreContext,
  value: Record<string, unknown>,
  dates: Partial<Record<DateName, string | null>>,
  problems: AttributeProblem[],
): void {
  const now = nowIso(ctx);
  const tz = ctx.account.time_zone;
  const today = midnight(dayAt(now, tz), tz);
  if (dates.mandate_accepted_date && dates.mandate_accepted_date > now)
    problems.push({ attribute: 'mandate_accepted_date', detail: 'must not be in the future' });
  if (dates.cancel_date && dates.cancel_date < today)
    problems.push({ attribute: 'cancel_date', detail: 'must be today or later (today cancels at once)' });
  if (dates.resume_date && dates.resume_date <= now)
    problems.push({ attribute: 'resume_date', detail: 'must be in the future' });
  if (ctx.allowPrivateWebhooks === false) {
    for (const name of URLS) {
      const url = value[name];
      if (typeof url === 'string' && (isPrivateTarget(url) || ctx.privateHosts?.has(hostOf(url) ?? '')))
        problems.push({
          attribute: name,
          detail:
            'must be reachable from outside: loopback, private and link-local addresses are refused by this server',
        });
    }
  }
}

const has = (problems: AttributeProblem[], name: string) => problems.some((p) => p.attribute === name);

/** The answer to a write: the subscription as it now is, with its transactions. */
function* answer(ctx: CoreContext, id: number): Unit<Result<SubscriptionWithTransactions>> {
  return ok((yield* findSubscriptionWithTransactions(ctx, id))!);
}

/**
 * READ COMMITTED on PostgreSQL (transactLocked): it changes no row that exists, and what it reads
 * holds until it commits: the plan by its shared lock (a change of it waits), the customer and the
 * account by the foreign keys' locks (no delete meanwhile; a customer changed meanwhile is as if
 * changed after), an unused mandate code by the unique index (a taken one fails the insert, and the
 * store runs the create again to refuse it). SERIALIZABLE failed concurrent creates for nothing:
 * each one's lookups of its new subscription by id (the updates of its mandate code and status, the
 * foreign key check of its transaction) take predicate locks on the last page of the primary key,
 * which every other create writes its new id into: 550 rollbacks in a race of 8 x 50 creates.
 */
export function createSubscription(
  ctx: CoreContext,
  attributes: Record<string, unknown>,
): MaybePromise<Result<SubscriptionWithTransactions>> {
  const prepared = prepareSubscription(ctx, attributes);
  return prepared.ok ? transactLocked(ctx.store, prepared.value) : prepared;
}

/**
 * A create in two halves: the rules that need no store, then the unit that checks the rest and
 * writes (refusing before its first write). An import runs many such units in one transaction.
 */
export function prepareSubscription(
  ctx: CoreContext,
  attributes: Record<string, unknown>,
): Result<() => Unit<Result<SubscriptionWithTransactions>>> {
  const { value, problems } = validateAttributes(subscriptionCreateSchema, attributes, {
    readOnly: SUBSCRIPTION_READ_ONLY_ON_CREATE,
  });
  const tz = ctx.account.time_zone;
  const dates = readInstants(value, DATES, tz, problems);
  checkValues(ctx, value, dates, problems);
  const status = value.status ?? 'unverified';
  if (value.mandate_accepted === true && !dates.mandate_accepted_date && !has(problems, 'mandate_accepted_date')) {
    problems.push({ attribute: 'mandate_accepted_date', detail: 'is required when mandate_accepted is true' });
  }
  if (dates.resume_date && status !== 'paused')
    problems.push({ attribute: 'resume_date', detail: 'applies only to a subscription created paused' });
  if (problems.length) return invalidAttributes(problems);

  return ok(function* () {
    const now = nowIso(ctx);
    const customer = yield* findCustomer(ctx, value.customer_id);
    const planFound = yield* getPlan(ctx, value.subscription_plan_id, { shared: true });
    const plan = planFound.ok ? planFound.value : undefined;
    const found: AttributeProblem[] = [];
    if (!customer) found.push({ attribute: 'customer_id', detail: `no customer with id ${value.customer_id}` });
    if (!plan)
      found.push({
        attribute: 'subscription_plan_id',
        detail: `no subscription plan with id ${value.subscription_plan_id}`,
      });
    else if (plan.status !== 'active')
      found.push({
        attribute: 'subscription_plan_id',
        detail: `the plan ${plan.id} is ${plan.status}: subscriptions are made only on active plans`,
      });
    else if (plan.archived === 1)
      found.push({
        attribute: 'subscription_plan_id',
        detail: `the plan ${plan.id} is archived: it takes no new subscriptions (billing plans update ${plan.id} --no-archived)`,
      });
    if (value.mandate_code !== undefined) {
      const taken = yield* get((q) =>
        q
          .selectFrom('subscriptions')
          .select('id')
          .where('account_id', '=', ctx.account.id)
          .where('mandate_code', '=', value.mandate_code!),
      );
      if (taken)
        found.push({ attribute: 'mandate_code', detail: `is already the mandate code of subscription ${taken.id}` });
    }
    if (found.length) return invalidAttributes<SubscriptionWithTransactions>(found);

    const accepted = value.mandate_accepted === true;
    const inserted = (yield* get((q) =>
      q
        .insertInto('subscriptions')
        .values({
          account_id: ctx.account.id,
          customer_id: customer!.id,
          subscription_plan_id: plan!.id,
          // A generated code needs the id: a placeholder no client can send (MNDT- codes are refused), set below.
          mandate_code: value.mandate_code ?? `MNDT-pending-${now}-${Math.random()}`,
          mandate_accepted: accepted ? 1 : 0,
          mandate_accepted_date: dates.mandate_accepted_date ?? null,
          start_date: dates.start_date ?? midnight(dayAt(now, tz), tz),
          status: 'unverified',
          cancel_date: null,
          resume_date: null,
          confirmation_sent: value.confirmation_sent ? 1 : 0,
          subscription_webhook_url: value.subscription_webhook_url ?? null,
          transaction_webhook_url: value.transaction_webhook_url ?? null,
          success_redirect_url: value.success_redirect_url ?? null,
          metadata: value.metadata === undefined || value.metadata === null ? null : JSON.stringify(value.metadata),
          archived: 0,
          created_at: now,
          updated_at: now,
          cycle_anchor: null,
          next_cycle: 0,
          confirmation_token: newConfirmationToken(),
        })
        .returningAll(),
    ))!;
    if (value.mandate_code === undefined) {
      inserted.mandate_code = `MNDT-${inserted.id}`;
      yield* run((q) =>
        q.updateTable('subscriptions').set({ mandate_code: inserted.mandate_code }).where('id', '=', inserted.id),
      );
    }
    const l = new Ledger(allowsPrivateWebhooks(ctx));
    // The account's rules as stored, not as the request's (maybe cached) account had them.
    yield* loadRules(l, [ctx.account.id]);
    l.plans.set(plan!.id, plan!);
    const sub: Sub = { ...inserted, customer_payment_method: customer!.payment_method };
    l.subs.set(sub.id, sub);
    // Its first status is the one asked for, as its one creation event: paused from the start is
    // no move out of unverified. Active and cancelled are moves from unverified, with what they do:
    // active schedules at once, mandate or not (rule 5 wins over rule 6).
    const initial = status === 'paused' ? 'paused' : 'unverified';
    sub.status = initial;
    l.changedSubs.add(sub);
    l.event(sub.account_id, sub.id, null, initial, now);
    l.count(`subscription.${initial}`);
    if (status === 'active') activate(l, sub, now);
    else if (status === 'paused') setResumeDate(l, sub, dates.resume_date ?? null);
    else if (status === 'cancelled') cancel(l, sub, now);
    if (dates.cancel_date && sub.status !== 'cancelled') {
      if (dates.cancel_date <= now) cancel(l, sub, now);
      else setCancelDate(l, sub, dates.cancel_date);
    }
    if (!accepted && !value.confirmation_sent)
      l.notifications.push(mandateConfirmation(ctx, customer!, plan!, sub, now));
    yield* flush(l);
    // The answer from what was written, not read back: on PostgreSQL a read of the transactions
    // index would take predicate locks that concurrent creates conflict on (serialization failures).
    const { customer_payment_method: _, ...subscription } = sub;
    const transactionIds = l.created.sort((a, b) => (a.due_date < b.due_date ? 1 : -1)).map((tx) => tx.id);
    return ok({ subscription, transactionIds });
  });
}

/** Whether a read-only attribute of a PATCH carries the value the subscription has (a client sending back what it read). */
function isCurrentValue(ctx: CoreContext, sub: Sub, name: string, given: unknown): boolean {
  const tz = ctx.account.time_zone;
  switch (name) {
    case 'mandate_code':
      return given === sub.mandate_code;
    case 'customer_id':
    case 'subscription_plan_id':
      return (typeof given === 'number' || typeof given === 'string') && String(given).trim() === String(sub[name]);
    case 'archived':
      return given === (sub.archived === 1);
    case 'confirmation_page':
      return typeof given === 'string' && given.endsWith(confirmationPath(sub.id, sub.confirmation_token));
    case 'created_at':
    case 'updated_at': {
      if (typeof given !== 'string') return false;
      const instant = parseDateInput(given.trim(), tz);
      return instant !== null && formatInstant(instant, tz) === formatInstant(sub[name], tz);
    }
    default:
      return false;
  }
}

const stateFailure = (attribute: string | undefined, detail: string) =>
  fail<SubscriptionWithTransactions>({ kind: 'invalid_state', attribute, detail });

/** READ COMMITTED (transactLocked): what it changes it has locked (loadSubscriptions), as due work does. */
export function updateSubscription(
  ctx: CoreContext,
  id: number,
  attributes: Record<string, unknown>,
): MaybePromise<Result<SubscriptionWithTransactions>> {
  const tz = ctx.account.time_zone;
  return transactLocked(ctx.store, function* () {
    const now = nowIso(ctx);
    const l = new Ledger(allowsPrivateWebhooks(ctx));
    yield* loadSubscriptions(l, [id], ctx.account.id); // and the account's rules, as stored
    const sub = l.subs.get(id);
    if (!sub) return fail<SubscriptionWithTransactions>({ kind: 'not_found', detail: `no subscription with id ${id}` });
    const { value, problems } = validateAttributes(subscriptionUpdateSchema, attributes, {
      readOnly: SUBSCRIPTION_READ_ONLY_ON_UPDATE,
      unchanged: (name, given) => isCurrentValue(ctx, sub, name, given),
    });
    const dates = readInstants(value, DATES, tz, problems);
    checkValues(ctx, value, dates, problems);
    const from = sub.status as SubscriptionStatus;
    const to = value.status ?? from;
    const accepted = value.mandate_accepted ?? sub.mandate_accepted === 1;
    const acceptedDate =
      dates.mandate_accepted_date !== undefined ? dates.mandate_accepted_date : sub.mandate_accepted_date;
    if (accepted && !acceptedDate && !has(problems, 'mandate_accepted_date'))
      problems.push({ attribute: 'mandate_accepted_date', detail: 'is required when mandate_accepted is true' });
    if (dates.resume_date && to !== 'paused')
      problems.push({
        attribute: 'resume_date',
        detail: 'applies only to a paused subscription (send status paused with it)',
      });
    if (problems.length) return invalidAttributes<SubscriptionWithTransactions>(problems);

    // The state: what may change from where the subscription is.
    if (from === 'cancelled') {
      if (to !== 'cancelled')
        return stateFailure(
          'status',
          'a cancelled subscription is cancelled for good: it cannot be activated, paused or resumed',
        );
      if (dates.cancel_date !== undefined || dates.resume_date !== undefined)
        return stateFailure(
          dates.cancel_date !== undefined ? 'cancel_date' : 'resume_date',
          'the subscription is already cancelled',
        );
    }
    // The status it already has, and nothing else: nothing changes (no updated_at, no event, no
    // webhook), and the answer says so. A pause or cancel sent again by a script is harmless.
    if (to === from && value.status !== undefined && Object.values(value).filter((v) => v !== undefined).length === 1) {
      const current = yield* answer(ctx, id);
      return current.ok ? ok({ ...current.value, unchanged: true as const }) : current;
    }
    if (to !== from && !canMove(SUBSCRIPTION_TRANSITIONS, from, to))
      return stateFailure('status', `a subscription cannot go from ${from} to ${to}`);
    if (to === 'active' && from !== 'active' && !accepted) {
      return stateFailure(
        'status',
        'activating needs an accepted mandate: send mandate_accepted true and mandate_accepted_date with it (or let the customer accept on the confirmation page)',
      );
    }
    if (dates.start_date !== undefined && dates.start_date !== sub.start_date && sub.next_cycle > 0) {
      return stateFailure(
        'start_date',
        'the start date cannot change once the plan has collected: transactions are planned from it',
      );
    }
    if (dates.start_date === null)
      return invalidAttributes<SubscriptionWithTransactions>([
        { attribute: 'start_date', detail: 'must not be empty' },
      ]);
    if (dates.start_date !== undefined && dates.start_date > sub.start_date) {
      // Nothing is collected before the start: a transaction that is (or was) due before the new one stands in the way.
      const before = yield* get((q) =>
        q
          .selectFrom('transactions')
          .select(['id', 'due_date'])
          .where('subscription_id', '=', id)
          .where('status', '!=', 'canceled')
          .where('due_date', '<', dates.start_date!)
          // The plan's own future transaction is planned again from the new start.
          .where((eb) => eb.not(eb.and([eb('origin', '=', 'plan'), eb('status', 'in', OPEN_STATUSES)])))
          .orderBy('due_date')
          .limit(1),
      );
      if (before) {
        return stateFailure(
          'start_date',
          `transaction ${before.id} is due on ${dayAt(before.due_date, tz)}, before the new start date: cancel it first (a collected one keeps the start where it is)`,
        );
      }
    }

    // Plain attributes. A mandate signed again answers a bank's refusal of the old one (MD01 no valid mandate).
    if (dates.mandate_accepted_date !== undefined && dates.mandate_accepted_date !== sub.mandate_accepted_date) {
      sub.mandate_attention = null;
      sub.mandate_attention_on = null;
    }
    if (value.mandate_accepted !== undefined) sub.mandate_accepted = value.mandate_accepted ? 1 : 0;
    if (dates.mandate_accepted_date !== undefined) sub.mandate_accepted_date = dates.mandate_accepted_date;
    for (const name of ['subscription_webhook_url', 'transaction_webhook_url', 'success_redirect_url'] as const)
      if (value[name] !== undefined) sub[name] = value[name] ?? null;
    if (value.metadata !== undefined) sub.metadata = value.metadata === null ? null : JSON.stringify(value.metadata);
    const confirmAgain = value.confirmation_sent === false && sub.confirmation_sent === 1 && !accepted;
    // Back to false is the operator's way to replace a link that went astray: the page gets a new
    // secret (the old URL answers 404 from now on), which a new confirmation, if one is due, carries.
    if (value.confirmation_sent === false && sub.confirmation_sent === 1) {
      sub.confirmation_token = newConfirmationToken();
    }
    if (value.confirmation_sent !== undefined) sub.confirmation_sent = value.confirmation_sent ? 1 : 0;
    sub.updated_at = now;
    l.changedSubs.add(sub);

    // A new start before the first collection: the plan starts over from it.
    if (dates.start_date && dates.start_date !== sub.start_date) {
      sub.start_date = dates.start_date;
      if (sub.cycle_anchor !== null) restartCycles(l, sub, now);
    }

    // The status.
    if (to !== from) {
      if (to === 'active') activate(l, sub, now);
      else if (to === 'paused') pause(l, sub, now, dates.resume_date ?? null);
      else if (to === 'cancelled') cancel(l, sub, now);
      else moveSubscription(l, sub, to, now);
    } else if (dates.resume_date !== undefined) setResumeDate(l, sub, dates.resume_date);
    if (dates.cancel_date !== undefined && sub.status !== 'cancelled') {
      if (dates.cancel_date !== null && dates.cancel_date <= now) cancel(l, sub, now);
      else setCancelDate(l, sub, dates.cancel_date);
    }
    if (confirmAgain) {
      const customer = (yield* findCustomer(ctx, sub.customer_id))!;
      l.notifications.push(mandateConfirmation(ctx, customer, l.plans.get(sub.subscription_plan_id)!, sub, now));
    }
    yield* flush(l);
    return yield* answer(ctx, id);
  });
}
