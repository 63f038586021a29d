// Property: whatever a client and an operator do to one, two or three subscriptions (create them in
// any status, PATCH their status and dates, make and delete transactions, set simulated outcomes)
// while the store's clock moves forward by hours to months, the rows in the store keep the rules of
// the lifecycle, read straight from the tables after every step:
//
//   (a) every status is one of its table's; a transaction's history follows TRANSACTION_TRANSITIONS
//       from `queued` and ends at its status; a subscription's status events follow
//       SUBSCRIPTION_TRANSITIONS after the first (its creation, "status as supplied") and end at its
//       status; a transaction has one event per status change (queued, then one per history item);
//   (b) a subscription never has two plan transactions queued or scheduled;
//   (c) no transaction is due before its subscription's start date (compared by local day: the
//       core plans on days, a start of 15:30 is collected from 00:00 of its day), canceled ones
//       aside (a start date moved later before the first collection cancels the plan's first
//       transaction and plans from the new one);
//   (d) a paused or cancelled subscription has nothing queued or scheduled, a paused one no retry
//       (rescheduled) either; a cancelled one may have one: its charge-back is still followed up;
//   (e) a request answered 4xx (or a simulated outcome refused) changed no row of any table;
//   (f) a plan cycle is collected at most once (no two plan transactions of a subscription that are
//       not canceled share a cycle), on the cycle's day counted from the anchor (a plan collected
//       once: on its day or, resumed after it, later);
//   (g) no transaction is made due on a day before the day it was made;
//   (h) right after the clock moved, nothing due by then is left undone (queued, scheduled past its
//       due date, a retry past its new due date, a collection past its fulfilment, a resume or a
//       cancel past its date);
//   (i) across a step, an activation plans cycle 0 on the later of the start day and that day, a
//       resume the first cycle on or after the resume day (never an earlier or an already made one);
//   (j) every attempt is collected at its moment (the due date, or when it was scheduled if later;
//       a retry on its new due date, 00:00 three days after the return) and fulfilled 00:00 three
//       days after its collection;
//   and no request is ever answered 5xx, no due work throws.
//
// Below the property: the wrong-state and bad-input requests it throws at random, one by one as use
// cases, each refused without changing anything; and the smallest reproductions of what it found.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CoreContext } from '../../src/lib/core/context.js';
import { addDays, cycleDay, dayAt, midnight, type Frequency } from '../../src/lib/core/schedule.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import {
  canMove,
  OPEN_STATUSES,
  SUBSCRIPTION_TRANSITIONS,
  TRANSACTION_TRANSITIONS,
} from '../../src/lib/core/transitions.js';
import {
  SUBSCRIPTION_STATUSES,
  type SubscriptionStatus,
  type TransactionStatus,
} from '../../src/lib/schemas/vocabulary.js';
import { all } from '../../src/lib/store/unit.js';
import type { Runtime } from '../../src/lib/runtime/runtime.js';
import { ENGINE } from '../helpers/engine.js';
import { testCore } from '../helpers/store.js';
import { context, createCustomer, expectError, makePlan, send, type Answer } from '../api/support.js';

const TZ = 'Europe/Amsterdam';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The plans of every run: monthly with two storno retries, weekly with one, once with none. */
const PLANS = [
  { name: 'Monthly', amount: '10.00', frequency: 'monthly', storno_retries: 2 },
  { name: 'Weekly', amount: '2.50', frequency: 'weekly', storno_retries: 1 },
  { name: 'Once', amount: '99.00', frequency: 'once', storno_retries: 0 },
] as const;
const MAX_SUBSCRIPTIONS = 3;

// ---- the store, as rows ----

interface Rows {
  accounts: unknown[];
  api_keys: unknown[];
  customers: unknown[];
  plans: { id: number; frequency: string; storno_retries: number }[];
  subscriptions: {
    id: number;
    status: string;
    start_date: string;
    cancel_date: string | null;
    resume_date: string | null;
    subscription_plan_id: number;
    cycle_anchor: string | null;
    next_cycle: number;
  }[];
  transactions: {
    seq: number;
    id: string;
    subscription_id: number;
    origin: string;
    cycle: number | null;
    status: string;
    due_date: string;
    history: string;
    created_at: string;
    attempt: number;
  }[];
  events: { id: number; name: string; subscription_id: number; transaction_id: string | null; status: string }[];
  due_work: unknown[];
  notifications: unknown[];
  store_clock: unknown[];
}

/** Every row of every table of the store (in a fixed order), in one read snapshot. */
const snapshot = (core: Runtime): Promise<Rows> =>
  Promise.resolve(
    core.store.read(function* () {
      return {
        accounts: yield* all((q) => q.selectFrom('accounts').selectAll().orderBy('id')),
        api_keys: yield* all((q) => q.selectFrom('api_keys').selectAll().orderBy('id')),
        customers: yield* all((q) => q.selectFrom('customers').selectAll().orderBy('id')),
        plans: yield* all((q) => q.selectFrom('subscription_plans').selectAll().orderBy('id')),
        subscriptions: yield* all((q) => q.selectFrom('subscriptions').selectAll().orderBy('id')),
        transactions: yield* all((q) => q.selectFrom('transactions').selectAll().orderBy('seq')),
        events: yield* all((q) => q.selectFrom('events').selectAll().orderBy('id')),
        due_work: yield* all((q) => q.selectFrom('due_work').selectAll().orderBy('id')),
        notifications: yield* all((q) => q.selectFrom('notifications').selectAll().orderBy('id')),
        store_clock: yield* all((q) => q.selectFrom('store_clock').selectAll()),
      };
    }),
  );

const iso = (instant: unknown): string =>
  instant instanceof Date ? instant.toISOString() : new Date(String(instant)).toISOString();
const day = (instant: unknown): string => dayAt(iso(instant), TZ);
const OPEN = OPEN_STATUSES as readonly string[];

interface HistoryItem {
  attempt: number;
  status: string;
  recorded_on: string;
  new_due_date: string | null;
}

/** The rules (a)-(d), (f)-(h) and (j) on the rows; `movedTo` is the time the clock was just moved to, for (h). */
function checkRules(rows: Rows, movedTo?: string): void {
  const subs = new Map(rows.subscriptions.map((s) => [s.id, s]));
  const plans = new Map(rows.plans.map((p) => [p.id, p]));
  const eventsOf = (pick: (e: Rows['events'][number]) => boolean) => rows.events.filter(pick).map((e) => e.status);

  for (const sub of rows.subscriptions) {
    const where = `subscription ${sub.id}`;
    // (a) its status, and its status events.
    expect(SUBSCRIPTION_STATUSES, where).toContain(sub.status);
    const statuses = eventsOf(
      (e) => e.name === 'subscription.status' && e.subscription_id === sub.id,
    ) as SubscriptionStatus[];
    expect(statuses.length, `${where}: a creation event`).toBeGreaterThan(0);
    for (let i = 1; i < statuses.length; i++) {
      expect(
        canMove(SUBSCRIPTION_TRANSITIONS, statuses[i - 1], statuses[i]),
        `${where}: events ${statuses.join(' -> ')}`,
      ).toBe(true);
    }
    expect(statuses.at(-1), `${where}: its last event is its status`).toBe(sub.status);

    const mine = rows.transactions.filter((t) => t.subscription_id === sub.id);
    // (b) at most one future plan transaction.
    const future = mine.filter((t) => t.origin === 'plan' && (t.status === 'queued' || t.status === 'scheduled'));
    expect(
      future.length,
      `${where}: future plan transactions ${JSON.stringify(future.map((t) => [t.cycle, t.status, iso(t.due_date)]))}`,
    ).toBeLessThanOrEqual(1);
    // (d) nothing queued or scheduled while paused or cancelled.
    if (sub.status === 'paused' || sub.status === 'cancelled') {
      // Paused: no retry either (a return while paused fails for good).
      const open = mine.filter(
        (t) =>
          t.status === 'queued' || t.status === 'scheduled' || (sub.status === 'paused' && t.status === 'rescheduled'),
      );
      expect(
        open.map((t) => `${t.origin} ${t.status} ${iso(t.due_date)}`),
        `${where} is ${sub.status}`,
      ).toEqual([]);
    }
    // (f) each cycle collected at most once, on its day counted from the anchor.
    const plan = plans.get(sub.subscription_plan_id)!;
    const cycles = mine.filter((t) => t.origin === 'plan' && t.status !== 'canceled');
    const seen = new Set<number>();
    for (const t of cycles) {
      expect(
        seen.has(t.cycle!),
        `${where}: cycle ${t.cycle} made twice: ${JSON.stringify(cycles.map((c) => [c.cycle, c.status, iso(c.due_date)]))}`,
      ).toBe(false);
      seen.add(t.cycle!);
      expect(sub.cycle_anchor, `${where}: plan transactions without an anchor`).not.toBeNull();
      const cycleDate = midnight(cycleDay(sub.cycle_anchor!, plan.frequency as Frequency, t.cycle!)!, TZ);
      // A plan collected once whose day passed while paused is due on its resume day (the first day on or after it).
      if (plan.frequency === 'once')
        expect(
          iso(t.due_date) >= cycleDate,
          `${where}: due ${iso(t.due_date)}, before its day ${sub.cycle_anchor}`,
        ).toBe(true);
      else expect(iso(t.due_date), `${where}: cycle ${t.cycle} from anchor ${sub.cycle_anchor}`).toBe(cycleDate);
    }
    // (h) a resume or a cancel past its date is done.
    if (movedTo !== undefined) {
      if (sub.status === 'paused' && sub.resume_date !== null)
        expect(
          iso(sub.resume_date) > movedTo,
          `${where}: resume date ${iso(sub.resume_date)} passed at ${movedTo}`,
        ).toBe(true);
      if (sub.status !== 'cancelled' && sub.cancel_date !== null)
        expect(
          iso(sub.cancel_date) > movedTo,
          `${where}: cancel date ${iso(sub.cancel_date)} passed at ${movedTo}`,
        ).toBe(true);
    }
  }

  for (const tx of rows.transactions) {
    const where = `transaction ${tx.id} (${tx.origin}${tx.cycle === null ? '' : ` cycle ${tx.cycle}`}, due ${iso(tx.due_date)})`;
    const sub = subs.get(tx.subscription_id)!;
    // (a) status, history, events.
    expect(Object.keys(TRANSACTION_TRANSITIONS), where).toContain(tx.status);
    const history = JSON.parse(tx.history) as HistoryItem[];
    let previous: TransactionStatus = 'queued';
    for (const item of history) {
      expect(
        canMove(TRANSACTION_TRANSITIONS, previous, item.status as TransactionStatus),
        `${where}: history ${['queued', ...history.map((h) => h.status)].join(' -> ')}`,
      ).toBe(true);
      previous = item.status as TransactionStatus;
    }
    expect(previous, `${where}: its last history item is its status`).toBe(tx.status);
    expect(
      eventsOf((e) => e.transaction_id === tx.id),
      `${where}: one event per status change`,
    ).toEqual(['queued', ...history.map((h) => h.status)]);
    // (c) not due before the subscription's start day; (g) nor before the day it was made.
    if (tx.status !== 'canceled')
      expect(
        day(tx.due_date) >= day(sub.start_date),
        `${where}: due before the start date ${iso(sub.start_date)} of subscription ${sub.id}`,
      ).toBe(true);
    expect(
      day(tx.due_date) >= day(tx.created_at),
      `${where}: made on ${iso(tx.created_at)}, due on an earlier day`,
    ).toBe(true);
    // (h) nothing left undone.
    if (movedTo !== undefined) {
      expect(tx.status, `${where}: still queued at ${movedTo}`).not.toBe('queued');
      if (tx.status === 'scheduled')
        expect(iso(tx.due_date) > movedTo, `${where}: not collected at ${movedTo}`).toBe(true);
      const last = history.at(-1);
      if (tx.status === 'rescheduled')
        expect(
          iso(last!.new_due_date!) > movedTo,
          `${where}: retry due ${last!.new_due_date} not collected at ${movedTo}`,
        ).toBe(true);
      if (tx.status === 'succeeded') {
        const settles = midnight(addDays(day(last!.recorded_on), 3), TZ);
        expect(settles > movedTo, `${where}: collected ${last!.recorded_on}, not fulfilled at ${movedTo}`).toBe(true);
      }
    }
    // (j) each attempt collected at its moment: its due date (or when it was scheduled, if later), a
    // retry on its new due date, 3 days after the return at 00:00; funds in 3 days after collection.
    let collectAt: string | undefined;
    let collectedAt: string | undefined;
    let before: string = 'queued';
    for (const item of history) {
      const recorded = iso(item.recorded_on);
      if (item.status === 'scheduled') collectAt = iso(tx.due_date) > recorded ? iso(tx.due_date) : recorded;
      if (item.status === 'rescheduled') {
        collectAt = midnight(addDays(day(recorded), 3), TZ);
        expect(iso(item.new_due_date!), `${where}: retry 3 days after ${recorded}`).toBe(collectAt);
      }
      if (
        (item.status === 'succeeded' || item.status === 'failed') &&
        (before === 'scheduled' || before === 'rescheduled')
      ) {
        expect(recorded, `${where}: attempt ${item.attempt} collected at its moment`).toBe(collectAt);
        if (item.status === 'succeeded') collectedAt = recorded;
      }
      if (item.status === 'fulfilled')
        expect(recorded, `${where}: fulfilled 3 days after ${collectedAt}`).toBe(
          midnight(addDays(day(collectedAt!), 3), TZ),
        );
      before = item.status;
    }
  }
}

/**
 * (i) Across one step: a subscription activated plans cycle 0 on the later of its start day and
 * the activation day (the plans here start on the first day); one resumed plans the first cycle on
 * or after the resume day (by a PATCH or by its resume date), never one before it.
 */
function checkStep(before: Rows, after: Rows): void {
  const known = new Set(before.transactions.map((t) => t.id));
  const plans = new Map(after.plans.map((p) => [p.id, p]));
  for (const was of before.subscriptions) {
    const now = after.subscriptions.find((s) => s.id === was.id)!;
    if (now.status !== 'active' || (was.status !== 'paused' && was.status !== 'unverified')) continue;
    const made = after.transactions
      .filter((t) => t.subscription_id === was.id && t.origin === 'plan' && !known.has(t.id))
      .sort((x, y) => x.cycle! - y.cycle!);
    const where = `subscription ${was.id}, ${was.status} -> active`;
    if (was.cycle_anchor === null) {
      expect(made.length, `${where}: its first plan transaction`).toBeGreaterThan(0);
      const first = made[0];
      expect(first.cycle, where).toBe(0);
      const start = day(now.start_date);
      const from = day(first.created_at);
      expect(day(first.due_date), `${where}: cycle 0 on the later of ${start} and ${from}`).toBe(
        start > from ? start : from,
      );
      continue;
    }
    if (made.length === 0) continue; // a plan collected once, already collected
    const first = made[0];
    const resumed = day(first.created_at);
    const frequency = plans.get(now.subscription_plan_id)!.frequency as Frequency;
    expect(
      day(first.due_date) >= resumed,
      `${where}: cycle ${first.cycle} due ${iso(first.due_date)}, before the resume day ${resumed}`,
    ).toBe(true);
    expect(first.cycle! >= was.next_cycle, `${where}: cycle ${first.cycle} again (next was ${was.next_cycle})`).toBe(
      true,
    );
    if (first.cycle! > was.next_cycle)
      expect(
        cycleDay(now.cycle_anchor!, frequency, first.cycle! - 1)! < resumed,
        `${where}: cycle ${first.cycle! - 1} was on or after the resume day ${resumed}`,
      ).toBe(true);
  }
}

// ---- operations ----

/** A date relative to the clock's day: a plain date, or a datetime with an offset at some hour. */
interface DateSpec {
  days: number;
  hour: number | null;
}
const dateSpec = (min: number, max: number): fc.Arbitrary<DateSpec> =>
  fc.record({ days: fc.integer({ min, max }), hour: fc.option(fc.integer({ min: 0, max: 23 }), { freq: 3 }) });
const dateText = (spec: DateSpec, now: string): string => {
  const d = addDays(dayAt(now, TZ), spec.days);
  return spec.hour === null ? d : `${d}T${String(spec.hour).padStart(2, '0')}:30:00+01:00`;
};

type Op =
  | {
      kind: 'create';
      plan: number;
      status: SubscriptionStatus | null;
      start: DateSpec | null;
      mandate: boolean;
      resume: DateSpec | null;
      cancel: DateSpec | null;
    }
  | {
      kind: 'patch';
      sub: number;
      status: SubscriptionStatus | null;
      mandate: boolean | null;
      resume: DateSpec | null | 'clear';
      cancel: DateSpec | null | 'clear';
      start: DateSpec | null;
    }
  | { kind: 'post-transaction'; sub: number; amount: string | number; due: DateSpec | null }
  | { kind: 'delete-transaction'; pick: number; among: Among }
  | { kind: 'simulate'; pick: number; among: Among; outcome: 'charged_back' | 'failed'; code: string | undefined }
  | { kind: 'advance'; ms: number }
  | { kind: 'bad'; request: number; sub: number };

/** An index into the subscriptions (or transactions) there are; large ones name one that does not exist. */
const pick = fc.oneof({ weight: 9, arbitrary: fc.nat(20) }, { weight: 1, arbitrary: fc.constant(-1) });
/** Mostly what a client means to do, now and then a combination the API refuses. */
const createStatus = fc.constantFrom<SubscriptionStatus | null>(
  'active',
  'active',
  'active',
  'paused',
  'paused',
  'unverified',
  'cancelled',
  null,
);
const createArb = fc
  .record({
    kind: fc.constant('create' as const),
    plan: fc.nat(PLANS.length - 1),
    status: createStatus,
    start: fc.option(dateSpec(-20, 60), { freq: 2 }),
    mandate: fc.boolean(),
    resume: fc.option(dateSpec(1, 60)),
    cancel: fc.option(dateSpec(0, 150), { freq: 4 }),
  })
  // A resume date belongs to a subscription made paused (now and then, not: a 400).
  .chain((op) =>
    fc
      .constantFrom(true, true, true, true, false)
      .map((fits) => (fits && op.status !== 'paused' ? { ...op, resume: null } : op)),
  );

/** A PATCH, by intent: activate (mostly with the mandate), pause (with a resume date or not), cancel now or later, a new start, or anything. */
const patchArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ sub: pick, mandate: fc.constantFrom(true, true, true, null) }).map(({ sub, mandate }): Op => ({
    kind: 'patch',
    sub,
    status: 'active',
    mandate,
    resume: null,
    cancel: null,
    start: null,
  })),
  fc.record({ sub: pick, resume: fc.option(dateSpec(1, 90)) }).map(({ sub, resume }): Op => ({
    kind: 'patch',
    sub,
    status: 'paused',
    mandate: null,
    resume,
    cancel: null,
    start: null,
  })),
  fc.record({ sub: pick }).map(({ sub }): Op => ({
    kind: 'patch',
    sub,
    status: 'cancelled',
    mandate: null,
    resume: null,
    cancel: null,
    start: null,
  })),
  fc
    .record({ sub: pick, cancel: fc.oneof(dateSpec(0, 120), fc.constant('clear' as const)) })
    .map(({ sub, cancel }): Op => ({
      kind: 'patch',
      sub,
      status: null,
      mandate: null,
      resume: null,
      cancel,
      start: null,
    })),
  fc.record({ sub: pick, start: dateSpec(-10, 60) }).map(({ sub, start }): Op => ({
    kind: 'patch',
    sub,
    status: null,
    mandate: null,
    resume: null,
    cancel: null,
    start,
  })),
  fc.record({
    kind: fc.constant('patch' as const),
    sub: pick,
    status: fc.constantFrom<SubscriptionStatus | null>('active', 'paused', 'cancelled', 'unverified', null),
    mandate: fc.option(fc.boolean(), { freq: 2 }),
    resume: fc.oneof(fc.constant(null), fc.constant('clear' as const), dateSpec(-1, 90)),
    cancel: fc.oneof(fc.constant(null), fc.constant('clear' as const), dateSpec(-1, 150)),
    start: fc.option(dateSpec(-10, 60), { freq: 5 }),
  }),
);

/** Which transactions an operation picks from: those not yet collected, those collected, or any. */
type Among = 'open' | 'collected' | 'any';
const among = fc.constantFrom<Among>('open', 'collected', 'collected', 'any');

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: createArb },
  { weight: 5, arbitrary: patchArb },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('post-transaction' as const),
      sub: pick,
      amount: fc.constantFrom<string | number>('5.00', '5.00', 12.5, 3, '7.25', '0.00', '1.234'),
      due: fc.option(fc.oneof({ weight: 5, arbitrary: dateSpec(0, 40) }, { weight: 1, arbitrary: dateSpec(-2, -1) }), {
        freq: 3,
      }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('delete-transaction' as const),
      pick,
      among: fc.constantFrom<Among>('open', 'open', 'any'),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('simulate' as const),
      pick,
      among,
      outcome: fc.constantFrom<'charged_back' | 'failed'>('charged_back', 'charged_back', 'failed'),
      code: fc.constantFrom<string | undefined>(undefined, 'AM04', 'MD06', 'MS02', 'XX99'),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      // From an hour to three months, most of them days to weeks.
      ms: fc.oneof(
        fc.integer({ min: HOUR, max: DAY }),
        fc.integer({ min: DAY, max: 21 * DAY }),
        fc.integer({ min: 21 * DAY, max: 92 * DAY }),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('bad' as const), request: fc.nat(badRequestCount() - 1), sub: pick }),
  },
);

function badRequestCount(): number {
  return badRequests('1', '2026-11-21T10:00:00.000Z').length;
}

/**
 * Requests refused whatever the state (`always`), or refused in some states only (a PATCH to the
 * status the subscription has is a 200 that changes nothing): each 4xx must change nothing.
 */
function badRequests(subId: string, now: string): { method: string; path: string; body?: unknown; always: boolean }[] {
  const patch = (attributes: Record<string, unknown>, id = subId) => ({
    method: 'PATCH',
    path: `/subscriptions/${id}`,
    body: { data: { type: 'subscription', id, attributes } },
  });
  const yesterday = addDays(dayAt(now, TZ), -1);
  const always = <T>(request: T) => ({ ...request, always: true });
  const sometimes = <T>(request: T) => ({ ...request, always: false });
  return [
    // Wrong state for some: unverified is never entered again; active needs an accepted mandate; cancelled is final.
    sometimes(patch({ status: 'unverified' })),
    sometimes(patch({ status: 'active' })),
    sometimes(patch({ status: 'paused' })),
    sometimes(patch({ start_date: addDays(yesterday, 40) })),
    sometimes({
      method: 'POST',
      path: '/transactions',
      body: { data: { type: 'transaction', attributes: { subscription_id: Number(subId), amount: '5.00' } } },
    }),
    // Bad input for all.
    always(patch({ status: 'sleeping' })),
    always(patch({ resume_date: yesterday, status: 'paused' })),
    always(patch({ cancel_date: yesterday })),
    always(patch({ resume_date: addDays(yesterday, 30), status: 'active' })),
    always(patch({ mandate_accepted: true, mandate_accepted_date: null })),
    always(patch({ mandate_accepted_date: addDays(yesterday, 5) })),
    always(patch({ start_date: 'someday' })),
    always(patch({ start_date: null })),
    always(patch({ mandate_code: 'NEW-CODE' })),
    always(patch({ status: 'active', colour: 'blue' })),
    always(patch({ status: 'active' }, '424242')),
    always({
      method: 'PATCH',
      path: `/subscriptions/${subId}`,
      body: { data: { type: 'subscription', id: '424243', attributes: { status: 'paused' } } },
    }),
    always({
      method: 'POST',
      path: '/subscriptions',
      body: {
        data: {
          type: 'subscription',
          attributes: { customer_id: 1, subscription_plan_id: 1, status: 'active', mandate_accepted: true },
        },
      },
    }),
    always({
      method: 'POST',
      path: '/subscriptions',
      body: {
        data: { type: 'subscription', attributes: { customer_id: 99, subscription_plan_id: 1, status: 'active' } },
      },
    }),
    always({
      method: 'POST',
      path: '/subscriptions',
      body: {
        data: {
          type: 'subscription',
          attributes: { customer_id: 1, subscription_plan_id: 1, status: 'active', resume_date: addDays(yesterday, 9) },
        },
      },
    }),
    always({
      method: 'POST',
      path: '/transactions',
      body: {
        data: {
          type: 'transaction',
          attributes: { subscription_id: Number(subId), amount: '5.00', due_date: yesterday },
        },
      },
    }),
    always({
      method: 'POST',
      path: '/transactions',
      body: { data: { type: 'transaction', attributes: { subscription_id: Number(subId), amount: '-5.00' } } },
    }),
    always({
      method: 'POST',
      path: '/transactions',
      body: { data: { type: 'transaction', attributes: { subscription_id: 424242, amount: '5.00' } } },
    }),
    always({
      method: 'POST',
      path: '/transactions',
      body: {
        data: {
          type: 'transaction',
          attributes: { subscription_id: Number(subId), amount: '5.00', status: 'succeeded' },
        },
      },
    }),
    always({ method: 'DELETE', path: '/transactions/00000000-0000-4000-8000-000000000000' }),
    always({ method: 'POST', path: '/transactions', body: '{"data": ' }),
  ];
}

interface Run {
  core: Runtime;
  ctx: CoreContext;
  trace: string[];
}

const now = (run: Run) => run.core.clock.now().toISOString();

/** Does one operation; tells whether it was refused (4xx, or an outcome refused), so nothing may have changed. */
async function apply(run: Run, op: Op, rows: Rows): Promise<{ refused: boolean; moved?: string }> {
  const subIds = rows.subscriptions.map((s) => String(s.id));
  const subOf = (i: number) => (i < 0 || subIds.length === 0 ? '424242' : subIds[i % subIds.length]);
  const txOf = (i: number, from: Among) => {
    const collected = (t: Rows['transactions'][number]) => ['succeeded', 'fulfilled'].includes(t.status);
    const wanted = rows.transactions.filter((t) =>
      from === 'open' ? OPEN.includes(t.status) : from === 'collected' ? collected(t) : true,
    );
    const candidates = wanted.length > 0 ? wanted : rows.transactions;
    return i < 0 || candidates.length === 0
      ? '00000000-0000-4000-8000-000000000000'
      : candidates[i % candidates.length].id;
  };
  const at = now(run);
  const request = async (method: string, path: string, body?: unknown): Promise<{ refused: boolean }> => {
    const answer: Answer = await send(run.core, method, path, { body });
    run.trace.push(
      `${at} ${method} ${path} ${body === undefined ? '' : JSON.stringify((body as { data?: { attributes?: unknown } }).data?.attributes ?? body)} -> ${answer.status}${answer.status >= 400 ? ` ${JSON.stringify(answer.body.errors?.map((e: { title: string; detail: string }) => `${e.title}: ${e.detail}`))}` : ''}`,
    );
    expect(answer.status, `${method} ${path}: never a 5xx: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
    return { refused: answer.status >= 400 };
  };
  switch (op.kind) {
    case 'create': {
      if (rows.subscriptions.length >= MAX_SUBSCRIPTIONS) return { refused: false };
      const attributes: Record<string, unknown> = { customer_id: 1, subscription_plan_id: rows.plans[op.plan].id };
      if (op.status) attributes.status = op.status;
      if (op.start) attributes.start_date = dateText(op.start, at);
      if (op.mandate)
        Object.assign(attributes, { mandate_accepted: true, mandate_accepted_date: addDays(dayAt(at, TZ), -1) });
      if (op.resume) attributes.resume_date = dateText(op.resume, at);
      if (op.cancel) attributes.cancel_date = dateText(op.cancel, at);
      return request('POST', '/subscriptions', { data: { type: 'subscription', attributes } });
    }
    case 'patch': {
      const id = subOf(op.sub);
      const attributes: Record<string, unknown> = {};
      if (op.status) attributes.status = op.status;
      if (op.mandate !== null) attributes.mandate_accepted = op.mandate;
      if (op.mandate) attributes.mandate_accepted_date = addDays(dayAt(at, TZ), -1);
      if (op.resume) attributes.resume_date = op.resume === 'clear' ? null : dateText(op.resume, at);
      if (op.cancel) attributes.cancel_date = op.cancel === 'clear' ? null : dateText(op.cancel, at);
      if (op.start) attributes.start_date = dateText(op.start, at);
      return request('PATCH', `/subscriptions/${id}`, { data: { type: 'subscription', id, attributes } });
    }
    case 'post-transaction': {
      const attributes: Record<string, unknown> = { subscription_id: Number(subOf(op.sub)), amount: op.amount };
      if (op.due) attributes.due_date = dateText(op.due, at);
      return request('POST', '/transactions', { data: { type: 'transaction', attributes } });
    }
    case 'delete-transaction':
      return request('DELETE', `/transactions/${txOf(op.pick, op.among)}`);
    case 'simulate': {
      const id = txOf(op.pick, op.among);
      const result = await simulateOutcome(run.ctx, id, op.outcome, op.code);
      run.trace.push(
        `${at} simulate ${op.outcome} ${op.code ?? ''} on ${id} -> ${result.ok ? 'ok' : JSON.stringify(result.failure)}`,
      );
      return { refused: !result.ok };
    }
    case 'advance': {
      const to = new Date(Date.parse(at) + op.ms).toISOString();
      const moved = await setClock(run.core, to);
      run.trace.push(
        `${at} clock -> ${to}: ${moved.ok ? JSON.stringify(moved.value.changes) : JSON.stringify(moved.failure)}`,
      );
      expect(moved.ok).toBe(true);
      return { refused: false, moved: to };
    }
    case 'bad': {
      const chosen = badRequests(subOf(op.sub), at)[op.request];
      const answer = await request(chosen.method, chosen.path, chosen.body);
      if (chosen.always)
        expect(answer.refused, `${chosen.method} ${chosen.path} ${JSON.stringify(chosen.body)} is refused`).toBe(true);
      return answer;
    }
  }
}

/** A fresh store with the plans and one customer, at the helpers' fixed time (2026-11-21T10:00Z). */
async function arrange(): Promise<Run> {
  const core = await testCore();
  for (const plan of PLANS) await makePlan(core, { ...plan });
  await createCustomer(core);
  return { core, ctx: await context(core), trace: [] };
}

async function runOps(ops: Op[]): Promise<void> {
  const run = await arrange();
  try {
    let rows = await snapshot(run.core);
    for (const op of ops) {
      const done = await apply(run, op, rows);
      const after = await snapshot(run.core);
      try {
        if (done.refused) expect(after, '(e) a refused request changed nothing').toEqual(rows);
        checkRules(after, done.moved);
        checkStep(rows, after);
      } catch (error) {
        (error as Error).message += `\n\nsteps:\n${run.trace.join('\n')}`;
        throw error;
      }
      rows = after;
    }
  } finally {
    await run.core.store.close();
  }
}

describe('the lifecycle under random operations', () => {
  // A fresh store per run: cheap on SQLite, about half a second on PostgreSQL (a new database).
  const numRuns = ENGINE === 'postgres' ? 30 : 100;

  it('keeps its rules after every step', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        // One or two subscriptions to begin with, then anything (at most three subscriptions in all).
        fc.tuple(fc.array(createArb, { minLength: 1, maxLength: 2 }), fc.array(opArb, { minLength: 5, maxLength: 40 })),
        async ([creates, ops]) => runOps([...creates, ...ops]),
      ),
      // Shrinking makes a store per attempt: bounded, so a failure is reported within minutes.
      { numRuns, interruptAfterTimeLimit: 180_000, markInterruptAsFailure: false },
    );
  });
});

// ---- the refusals, one by one ----

interface Scene {
  run: Run;
  request(method: string, path: string, body?: unknown): Promise<Answer>;
  patch(id: string, attributes: Record<string, unknown>): Promise<Answer>;
  advance(to: string): Promise<void>;
  transactions(subscriptionId?: string): Promise<Rows['transactions']>;
  /** Asserts the answer is the refusal given and that no row of any table changed. */
  refused(make: () => Promise<Answer>, title: string, pointer: string): Promise<void>;
}

async function scene(): Promise<Scene> {
  const run = await arrange();
  const request = (method: string, path: string, body?: unknown) => send(run.core, method, path, { body });
  const scene: Scene = {
    run,
    request,
    patch: (id, attributes) =>
      request('PATCH', `/subscriptions/${id}`, { data: { type: 'subscription', id, attributes } }),
    async advance(to) {
      const moved = await setClock(run.core, to);
      expect(moved.ok, JSON.stringify(moved)).toBe(true);
    },
    async transactions(subscriptionId) {
      const rows = (await snapshot(run.core)).transactions;
      return subscriptionId === undefined ? rows : rows.filter((t) => t.subscription_id === Number(subscriptionId));
    },
    async refused(make, title, pointer) {
      const before = await snapshot(run.core);
      const answer = await make();
      expectError(answer, 400, title, { pointer });
      expect(await snapshot(run.core)).toEqual(before);
    },
  };
  return scene;
}

const subscriptionBody = (attributes: Record<string, unknown>) => ({
  data: { type: 'subscription', attributes: { customer_id: 1, ...attributes } },
});
const MANDATE = { mandate_accepted: true, mandate_accepted_date: '2026-11-20' };

/** Makes a subscription (plan 1 = monthly unless told) and returns its id. */
async function subscribe(s: Scene, attributes: Record<string, unknown>): Promise<string> {
  const answer = await s.request(
    'POST',
    '/subscriptions',
    subscriptionBody({ subscription_plan_id: 1, ...attributes }),
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data.id as string;
}

const transactionBody = (attributes: Record<string, unknown>) => ({ data: { type: 'transaction', attributes } });

describe('wrong-state and bad-input requests are refused and change nothing', () => {
  it('an unverified subscription: activating without a mandate, pausing, and making a transaction are Invalid State', async () => {
    const s = await scene();
    const id = await subscribe(s, {});
    await s.refused(() => s.patch(id, { status: 'active' }), 'Invalid State', '/data/attributes/status');
    await s.refused(
      () => s.patch(id, { status: 'active', mandate_accepted: false }),
      'Invalid State',
      '/data/attributes/status',
    );
    await s.refused(() => s.patch(id, { status: 'paused' }), 'Invalid State', '/data/attributes/status');
    await s.refused(
      () => s.request('POST', '/transactions', transactionBody({ subscription_id: Number(id), amount: '5.00' })),
      'Invalid State',
      '/data/attributes/subscription_id',
    );
    // The mandate accepted without its date is a bad attribute, not a state.
    await s.refused(
      () => s.patch(id, { status: 'active', mandate_accepted: true }),
      'Invalid Attribute',
      '/data/attributes/mandate_accepted_date',
    );
  });

  it('an active subscription: back to unverified, a past resume or cancel date, a resume date without pausing, a start date once collected', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', ...MANDATE });
    await s.refused(() => s.patch(id, { status: 'unverified' }), 'Invalid State', '/data/attributes/status');
    await s.refused(
      () => s.patch(id, { status: 'paused', resume_date: '2026-11-21' }),
      'Invalid Attribute',
      '/data/attributes/resume_date',
    );
    await s.refused(
      () => s.patch(id, { cancel_date: '2026-11-20' }),
      'Invalid Attribute',
      '/data/attributes/cancel_date',
    );
    await s.refused(
      () => s.patch(id, { resume_date: '2026-12-24' }),
      'Invalid Attribute',
      '/data/attributes/resume_date',
    );
    await s.refused(
      () => s.patch(id, { mandate_accepted_date: '2026-11-22' }),
      'Invalid Attribute',
      '/data/attributes/mandate_accepted_date',
    );
    await s.advance('2026-11-21T12:00:00Z'); // cycle 0 (today) collected
    await s.refused(() => s.patch(id, { start_date: '2026-12-05' }), 'Invalid State', '/data/attributes/start_date');
    await s.refused(
      () =>
        s.request(
          'POST',
          '/transactions',
          transactionBody({ subscription_id: Number(id), amount: '5.00', due_date: '2026-11-20' }),
        ),
      'Invalid Attribute',
      '/data/attributes/due_date',
    );
    await s.refused(
      () => s.request('POST', '/transactions', transactionBody({ subscription_id: Number(id), amount: '0' })),
      'Invalid Attribute',
      '/data/attributes/amount',
    );
  });

  it('a manual transaction is not made before the start date', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', start_date: '2026-12-10', ...MANDATE });
    await s.refused(
      () =>
        s.request(
          'POST',
          '/transactions',
          transactionBody({ subscription_id: Number(id), amount: '5.00', due_date: '2026-12-09' }),
        ),
      'Invalid Attribute',
      '/data/attributes/due_date',
    );
    // Without a due date it is due on the start date.
    const made = await s.request(
      'POST',
      '/transactions',
      transactionBody({ subscription_id: Number(id), amount: '5.00' }),
    );
    expect(made.status).toBe(201);
    expect(made.body.data.attributes).toMatchObject({
      status: 'queued',
      due_date: '2026-12-10T00:00:00+01:00',
      history: [],
    });
  });

  it('a paused subscription takes no transaction, and cannot be paused with a past resume date', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', ...MANDATE });
    expect((await s.patch(id, { status: 'paused', resume_date: '2026-12-01' })).status).toBe(200);
    await s.refused(
      () => s.request('POST', '/transactions', transactionBody({ subscription_id: Number(id), amount: '5.00' })),
      'Invalid State',
      '/data/attributes/subscription_id',
    );
    await s.refused(
      () => s.patch(id, { status: 'paused', resume_date: '2026-11-20' }),
      'Invalid Attribute',
      '/data/attributes/resume_date',
    );
    await s.refused(() => s.patch(id, { status: 'unverified' }), 'Invalid State', '/data/attributes/status');
  });

  it('a cancelled subscription is final: no status, no dates, no transactions', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', ...MANDATE });
    expect((await s.patch(id, { status: 'cancelled' })).status).toBe(200);
    for (const status of ['active', 'paused', 'unverified'])
      await s.refused(() => s.patch(id, { status, ...MANDATE }), 'Invalid State', '/data/attributes/status');
    await s.refused(() => s.patch(id, { cancel_date: '2026-12-24' }), 'Invalid State', '/data/attributes/cancel_date');
    await s.refused(
      () => s.patch(id, { status: 'cancelled', resume_date: '2026-12-24' }),
      'Invalid Attribute',
      '/data/attributes/resume_date',
    );
    await s.refused(
      () => s.request('POST', '/transactions', transactionBody({ subscription_id: Number(id), amount: '5.00' })),
      'Invalid State',
      '/data/attributes/subscription_id',
    );
  });

  it('DELETE /transactions: only what is not yet collected; a collected, fulfilled or canceled one is Invalid State, an unknown one 404', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', ...MANDATE });
    await s.advance('2026-11-21T12:00:00Z'); // cycle 0 collected, cycle 1 scheduled
    const [collected, next] = await s.transactions(id);
    expect([collected.status, next.status]).toEqual(['succeeded', 'scheduled']);
    await s.refused(() => s.request('DELETE', `/transactions/${collected.id}`), 'Invalid State', '/data');
    await s.advance('2026-11-25T12:00:00Z');
    expect((await s.transactions(id))[0].status).toBe('fulfilled');
    await s.refused(() => s.request('DELETE', `/transactions/${collected.id}`), 'Invalid State', '/data');
    expect((await s.request('DELETE', `/transactions/${next.id}`)).status).toBe(204);
    await s.refused(() => s.request('DELETE', `/transactions/${next.id}`), 'Invalid State', '/data');
    const before = await snapshot(s.run.core);
    expectError(await s.request('DELETE', '/transactions/00000000-0000-4000-8000-000000000000'), 404, 'Not Found');
    expect(await snapshot(s.run.core)).toEqual(before);
  });

  it('a simulated outcome is refused on a fulfilled transaction (failed), a canceled one, and with an unknown code; nothing changes', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', ...MANDATE });
    await s.advance('2026-11-25T12:00:00Z');
    const [fulfilled, next] = await s.transactions(id);
    expect([fulfilled.status, next.status]).toEqual(['fulfilled', 'scheduled']);
    expect((await s.request('DELETE', `/transactions/${next.id}`)).status).toBe(204);
    for (const [tx, outcome, code] of [
      [fulfilled.id, 'failed', 'AM04'],
      [next.id, 'charged_back', 'MD06'],
      [fulfilled.id, 'charged_back', 'XX99'],
    ] as const) {
      const before = await snapshot(s.run.core);
      const result = await simulateOutcome(s.run.ctx, tx, outcome, code);
      expect(result.ok, `${outcome} ${code}`).toBe(false);
      expect(await snapshot(s.run.core)).toEqual(before);
    }
  });
});

// ---- what the property found: the smallest reproductions, kept as regressions ----

/** The rules of the property on the store as it is. */
const rulesHold = async (s: Scene) => checkRules(await snapshot(s.run.core));

describe('what the property found', () => {
  it('a subscription created paused is paused from its first event: no change unverified -> paused, which the table does not allow', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'paused' });
    const events = (await snapshot(s.run.core)).events
      .filter((e) => e.name === 'subscription.status' && e.subscription_id === Number(id))
      .map((e) => e.status);
    for (let i = 1; i < events.length; i++)
      expect(
        canMove(SUBSCRIPTION_TRANSITIONS, events[i - 1] as SubscriptionStatus, events[i] as SubscriptionStatus),
        events.join(' -> '),
      ).toBe(true);
    expect(events.at(-1)).toBe('paused');
  });

  it('a plan collected once is not collected again after a pause and a resume', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', subscription_plan_id: 3, ...MANDATE });
    await s.advance('2026-11-21T12:00:00Z'); // collected
    await s.advance('2026-11-25T12:00:00Z'); // fulfilled
    expect((await s.patch(id, { status: 'paused' })).status).toBe(200);
    expect((await s.patch(id, { status: 'active' })).status).toBe(200);
    await s.advance('2026-12-31T12:00:00Z');
    expect((await s.transactions(id)).map((t) => [t.origin, t.cycle, t.status])).toEqual([['plan', 0, 'fulfilled']]);
    await rulesHold(s);
  });

  it('a plan collected once keeps its start date (no second collection on a new one)', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', subscription_plan_id: 3, ...MANDATE });
    await s.advance('2026-11-21T12:00:00Z'); // collected
    const moved = await s.patch(id, { start_date: '2026-12-01' });
    expectError(moved, 400, 'Invalid State', { pointer: '/data/attributes/start_date' });
    await s.advance('2026-12-31T12:00:00Z');
    expect((await s.transactions(id)).filter((t) => t.status !== 'canceled')).toHaveLength(1);
    await rulesHold(s);
  });

  it('a start date moved past an open manual transaction does not leave it to be collected before the start', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', start_date: '2026-12-01', ...MANDATE });
    expect(
      (
        await s.request(
          'POST',
          '/transactions',
          transactionBody({ subscription_id: Number(id), amount: '5.00', due_date: '2026-12-05' }),
        )
      ).status,
    ).toBe(201);
    await s.patch(id, { start_date: '2027-01-15' }); // refused, or the transaction goes with it: either keeps the rules
    await s.advance('2026-12-06T12:00:00Z');
    await rulesHold(s);
  });

  it('a start date cannot move past a manual transaction already collected (before the plan collected anything)', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', ...MANDATE });
    const [cycle0] = await s.transactions(id);
    expect((await s.request('DELETE', `/transactions/${cycle0.id}`)).status).toBe(204);
    expect(
      (await s.request('POST', '/transactions', transactionBody({ subscription_id: Number(id), amount: '5.00' })))
        .status,
    ).toBe(201);
    await s.advance('2026-11-21T12:00:00Z'); // the manual transaction is collected
    expectError(await s.patch(id, { start_date: '2026-12-01' }), 400, 'Invalid State', {
      pointer: '/data/attributes/start_date',
    });
    await rulesHold(s);
  });

  it('a plan collected once, paused before its day and resumed after it, is not made due on its old day (before the resume day)', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', subscription_plan_id: 3, start_date: '2026-11-26', ...MANDATE });
    expect((await s.patch(id, { status: 'paused' })).status).toBe(200); // its one transaction (Nov 26) canceled
    await s.advance('2026-12-05T10:00:00Z');
    expect((await s.patch(id, { status: 'active' })).status).toBe(200);
    // It was made due 2026-11-26 (its old day), on 2026-12-05, and collected at once. The first cycle
    // date on or after the resume day: for a plan collected once whose day has passed, the resume
    // day itself (firstCycleOnOrAfter says so) or none at all; never a day before it.
    for (const tx of (await s.transactions(id)).filter((t) => t.status !== 'canceled'))
      expect(day(tx.due_date) >= '2026-12-05', `due ${day(tx.due_date)}`).toBe(true);
    await rulesHold(s);
  });

  it('an active subscription keeps one future plan transaction: deleting the scheduled one schedules the next cycle', async () => {
    const s = await scene();
    const id = await subscribe(s, { status: 'active', start_date: '2026-12-01', ...MANDATE });
    const [cycle0] = await s.transactions(id);
    expect((await s.request('DELETE', `/transactions/${cycle0.id}`)).status).toBe(204);
    // Now nothing more is ever collected for this active subscription (until a pause and a resume):
    // "exactly one future plan transaction exists at a time" (README: "Subscriptions, transactions and the clock") no longer holds.
    const future = (await s.transactions(id)).filter(
      (t) => t.origin === 'plan' && (t.status === 'queued' || t.status === 'scheduled'),
    );
    expect(future.map((t) => [t.cycle, iso(t.due_date)])).toEqual([[1, midnight('2027-01-01', TZ)]]);
  });
});
