// A year of a monthly plan, through every door: two subscriptions anchored on January 31, collected
// on the last day of each month (Feb 28, Apr 30, ... Dec 31: the anchor's month end is kept), each
// collection fulfilled 3 days later; one of them paused for two months and resumed by PATCH; a
// collection of the other charged back after it was fulfilled, retried twice and failed for good.
//
// The clock is the store's test time, moved forward step by step (setClock does the due work on the
// way). Each collection is looked at a second before its due day starts (still scheduled) and at
// 00:00 Europe/Amsterdam (succeeded), each fulfilment likewise 3 days on. Dates are written as the
// API shows them: summer time (+02:00) runs from March 28 to October 31, 2027.
//
// Why two subscriptions: a pause that skips two months and twelve collections in one year cannot
// both hold for one subscription. A shows the twelve and the charge-back; B the pause and resume.
import { describe, expect, it } from 'vitest';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import { all } from '../../src/lib/store/unit.js';
import { doors, type OpenDoor } from './doors.js';

type Json = any;

const PLAN = { name: 'Monthly', amount: '10.00', frequency: 'monthly', storno_retries: 2 };

/** The twelve cycle days of a plan anchored on 2027-01-31, as the API shows their midnights. */
const CYCLES = [
  '2027-01-31T00:00:00+01:00',
  '2027-02-28T00:00:00+01:00',
  '2027-03-31T00:00:00+02:00',
  '2027-04-30T00:00:00+02:00',
  '2027-05-31T00:00:00+02:00',
  '2027-06-30T00:00:00+02:00',
  '2027-07-31T00:00:00+02:00',
  '2027-08-31T00:00:00+02:00',
  '2027-09-30T00:00:00+02:00',
  '2027-10-31T00:00:00+02:00', // summer time ends at 03:00 that day: its midnight is still +02:00
  '2027-11-30T00:00:00+01:00',
  '2027-12-31T00:00:00+01:00',
];
/** The 3-days-later midnights: when each collection is fulfilled. */
const FULFILLED = [
  '2027-02-03T00:00:00+01:00',
  '2027-03-03T00:00:00+01:00',
  '2027-04-03T00:00:00+02:00',
  '2027-05-03T00:00:00+02:00',
  '2027-06-03T00:00:00+02:00',
  '2027-07-03T00:00:00+02:00',
  '2027-08-03T00:00:00+02:00',
  '2027-09-03T00:00:00+02:00',
  '2027-10-03T00:00:00+02:00',
  '2027-11-03T00:00:00+01:00',
  '2027-12-03T00:00:00+01:00',
  '2028-01-03T00:00:00+01:00',
];
const NEXT_YEAR = '2028-01-31T00:00:00+01:00';

const CREATED = '2027-01-20T09:00:00+01:00';
const PAUSED = '2027-04-10T10:00:00+02:00';
const RESUMED = '2027-06-15T10:00:00+02:00';
/** B's cycles: April 30 canceled by the pause, May 31 skipped, June 30 the first on or after the resume day. */
const B_COLLECTED = [0, 1, 2, 5, 6, 7, 8, 9, 10, 11];
const B_CANCELED = 3;

/** A's collection that is charged back (April 30, fulfilled May 3), and what follows. */
const RETURNED = 3;
const FIRST_CHARGE_BACK = '2027-05-05T10:00:00+02:00';
const FIRST_RETRY = '2027-05-08T00:00:00+02:00';
const SECOND_CHARGE_BACK = '2027-05-09T10:00:00+02:00';
const SECOND_RETRY = '2027-05-12T00:00:00+02:00';
/** While the second retry waits for its due date: the outcome of that attempt, set beforehand. */
const OUTCOME_SET = '2027-05-10T10:00:00+02:00';
const LAST_RETURN = '2027-05-15T00:00:00+02:00';
const END = '2028-01-04T12:00:00+01:00';

const item = (
  status: string,
  recorded_on: string,
  extra: { attempt?: number; code?: string; reason?: string; new_due_date?: string } = {},
) => ({
  attempt: extra.attempt ?? 1,
  reason: extra.reason ?? null,
  reason_code: extra.code ?? null,
  recorded_on,
  status,
  new_due_date: extra.new_due_date ?? null,
});

/** The history of a plan transaction collected once and fulfilled: scheduled when the cycle before was collected. */
const collectedHistory = (n: number, scheduledAt: string) => [
  item('scheduled', scheduledAt),
  item('succeeded', CYCLES[n]),
  item('fulfilled', FULFILLED[n]),
];

/** [due, status] pairs in the order the API lists a subscription's transactions: newest due date first. */
const newestFirst = (pairs: string[][]) => [...pairs].sort((x, y) => Date.parse(y[0]) - Date.parse(x[0]));

const instantBefore = (iso: string) => new Date(Date.parse(iso) - 1000).toISOString();

async function request(
  door: OpenDoor,
  method: string,
  path: string,
  body?: unknown,
  query?: Record<string, string>,
): Promise<{ status: number; body: Json }> {
  const answer = await door.transport.request({ method, path, body, query });
  return { status: answer.status, body: answer.body as Json };
}

async function ok(
  door: OpenDoor,
  method: string,
  path: string,
  expected: number,
  body?: unknown,
  query?: Record<string, string>,
): Promise<Json> {
  const answer = await request(door, method, path, body, query);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(expected);
  return answer.body;
}

/** A subscription's transactions as the API lists them (newest due date first). */
const transactionsOf = async (door: OpenDoor, id: string): Promise<Json[]> =>
  (await ok(door, 'GET', `/subscriptions/${id}/transactions`, 200, undefined, { 'page[size]': '100' })).data;

/** The one transaction of a subscription due at an instant (as the API shows it). */
async function dueOn(door: OpenDoor, id: string, due: string): Promise<Json> {
  const found = (await transactionsOf(door, id)).filter((t) => t.attributes.due_date === due);
  expect(found, `subscription ${id}: one transaction due ${due}`).toHaveLength(1);
  return found[0];
}

const patchStatus = (door: OpenDoor, id: string, attributes: Record<string, unknown>) =>
  ok(door, 'PATCH', `/subscriptions/${id}`, 200, { data: { type: 'subscription', id, attributes } });

async function simulate(door: OpenDoor, id: string, code: string): Promise<void> {
  const result = await simulateOutcome(door.operator, id, 'charged_back', code);
  expect(result.ok, JSON.stringify(result)).toBe(true);
}

/** A moment of the year and what is done or looked at then; run in time order. */
interface Step {
  at: string;
  what: string;
  run(): Promise<void>;
}

for (const door of doors) {
  describe(`a year through the ${door.name} door`, () => {
    it(
      'collects a monthly plan on the month-end days, pauses and resumes, retries a charge-back twice and fails it',
      { timeout: 180_000 },
      async () => {
        const open = await door.open();
        try {
          await year(open);
        } finally {
          await open.close();
        }
      },
    );
  });
}

async function year(door: OpenDoor): Promise<void> {
  // The store starts at its fixed test time (2026-11-21); the year's story starts on January 20.
  await door.advanceTo(CREATED);
  await door.seedPlan(PLAN);
  const plans = await ok(door, 'GET', '/subscription-plans', 200);
  expect(plans.data).toHaveLength(1);
  const planId = plans.data[0].id;
  expect(plans.data[0].attributes).toMatchObject({ amount: '10.00', frequency: 'monthly', storno_retries: 2 });
  const customer = await ok(door, 'POST', '/customers', 201, {
    data: { type: 'customer', attributes: { first_name: 'Year', last_name: 'Long', email: 'year@example.com' } },
  });
  const create = async () =>
    (
      await ok(door, 'POST', '/subscriptions', 201, {
        data: {
          type: 'subscription',
          attributes: {
            customer_id: customer.data.id,
            subscription_plan_id: planId,
            status: 'active',
            start_date: '2027-01-31',
            mandate_accepted: true,
            mandate_accepted_date: '2027-01-15',
          },
        },
      })
    ).data;
  const a = await create();
  const b = await create();
  for (const sub of [a, b]) {
    expect(sub.attributes).toMatchObject({
      status: 'active',
      start_date: CYCLES[0],
      mandate_accepted: true,
      mandate_accepted_date: '2027-01-15T00:00:00+01:00',
      created_at: CREATED,
    });
    // Activation schedules the first plan transaction on the start date (later than today).
    const [first, ...rest] = await transactionsOf(door, sub.id);
    expect(rest).toEqual([]);
    expect(first.attributes).toEqual({
      status: 'scheduled',
      scheduled_on: CREATED,
      due_date: CYCLES[0],
      amount: 10,
      canceled_on: null,
      webhook_url: null,
      payment_method: 'directdebit',
      description: 'Monthly',
      history: [item('scheduled', CREATED)],
    });
    expect(sub.relationships.transactions.data).toEqual([{ type: 'transaction', id: first.id }]);
  }

  const steps: Step[] = [];
  const at = (when: string, what: string, run: () => Promise<void>) =>
    steps.push({ at: new Date(when).toISOString(), what, run });
  const expectStatus = async (id: string, due: string, status: string, what: string) => {
    expect((await dueOn(door, id, due)).attributes.status, what).toBe(status);
  };

  // Every collection: scheduled until its day starts, succeeded from 00:00; fulfilled 3 days on.
  const watch = (sub: Json, name: string, cycles: number[]) => {
    for (const n of cycles) {
      at(instantBefore(CYCLES[n]), `${name} ${CYCLES[n]} not yet due`, () =>
        expectStatus(sub.id, CYCLES[n], 'scheduled', `${name} a second before ${CYCLES[n]}`),
      );
      at(CYCLES[n], `${name} ${CYCLES[n]} collected`, async () => {
        await expectStatus(sub.id, CYCLES[n], 'succeeded', `${name} at ${CYCLES[n]}`);
        // The next cycle is scheduled by the collection, one month on (from the anchor).
        if (n + 1 < CYCLES.length)
          await expectStatus(sub.id, CYCLES[n + 1], 'scheduled', `${name}: cycle after ${CYCLES[n]}`);
      });
      at(instantBefore(FULFILLED[n]), `${name} ${CYCLES[n]} not yet fulfilled`, () =>
        expectStatus(sub.id, CYCLES[n], 'succeeded', `${name} a second before ${FULFILLED[n]}`),
      );
      at(FULFILLED[n], `${name} ${CYCLES[n]} fulfilled`, () =>
        expectStatus(sub.id, CYCLES[n], 'fulfilled', `${name} at ${FULFILLED[n]}`),
      );
    }
  };
  watch(
    a,
    'A',
    CYCLES.map((_, n) => n),
  );
  watch(b, 'B', B_COLLECTED);

  // B: paused on April 10 (April 30's transaction is canceled), resumed on June 15.
  at(PAUSED, 'B paused', async () => {
    const paused = await patchStatus(door, b.id, { status: 'paused' });
    expect(paused.data.attributes).toMatchObject({ status: 'paused', resume_date: null, updated_at: PAUSED });
    const canceled = await dueOn(door, b.id, CYCLES[B_CANCELED]);
    expect(canceled.attributes).toMatchObject({ status: 'canceled', canceled_on: PAUSED });
    // Nothing of B is open while it is paused.
    expect(
      (await transactionsOf(door, b.id)).filter((t) =>
        ['queued', 'scheduled', 'rescheduled'].includes(t.attributes.status),
      ),
    ).toEqual([]);
  });
  at(instantBefore(CYCLES[4]), 'B still paused before May 31', async () => {
    expect((await transactionsOf(door, b.id)).map((t) => t.attributes.due_date)).toEqual([
      CYCLES[3],
      CYCLES[2],
      CYCLES[1],
      CYCLES[0],
    ]);
  });
  at(RESUMED, 'B resumed', async () => {
    const resumed = await patchStatus(door, b.id, { status: 'active' });
    expect(resumed.data.attributes).toMatchObject({ status: 'active', resume_date: null, updated_at: RESUMED });
    // The first cycle date on or after June 15: June 30 (April 30 and May 31 are skipped, not made up).
    const next = await dueOn(door, b.id, CYCLES[5]);
    expect(next.attributes).toMatchObject({
      status: 'scheduled',
      scheduled_on: RESUMED,
      history: [item('scheduled', RESUMED)],
    });
    expect((await transactionsOf(door, b.id)).map((t) => t.attributes.due_date)).toEqual([
      CYCLES[5],
      CYCLES[3],
      CYCLES[2],
      CYCLES[1],
      CYCLES[0],
    ]);
  });

  // A: April 30's collection, fulfilled on May 3, is charged back on May 5 and retried on May 8;
  // charged back again on May 9 and retried on May 12; that attempt is set to be charged back too
  // (beforehand): collected, then returned on May 15 instead of fulfilled, with no retry left.
  let returned = '';
  at(FIRST_CHARGE_BACK, 'A charged back', async () => {
    returned = (await dueOn(door, a.id, CYCLES[RETURNED])).id;
    await simulate(door, returned, 'MD06');
    const tx = await ok(door, 'GET', `/transactions/${returned}`, 200);
    expect(tx.data.attributes.status).toBe('rescheduled');
    expect(tx.data.attributes.history.slice(-2)).toEqual([
      item('charged_back', FIRST_CHARGE_BACK, { code: 'MD06', reason: 'Refund requested by the debtor' }),
      item('rescheduled', FIRST_CHARGE_BACK, { new_due_date: FIRST_RETRY }),
    ]);
  });
  at(instantBefore(FIRST_RETRY), 'A retry not yet due', () =>
    expectStatus(a.id, CYCLES[RETURNED], 'rescheduled', 'before the first retry'),
  );
  at(FIRST_RETRY, 'A retried', () => expectStatus(a.id, CYCLES[RETURNED], 'succeeded', 'at the first retry'));
  at(SECOND_CHARGE_BACK, 'A charged back again', async () => {
    await simulate(door, returned, 'AM04');
    await expectStatus(a.id, CYCLES[RETURNED], 'rescheduled', 'after the second charge-back');
  });
  at(OUTCOME_SET, 'A outcome of the last retry set', async () => {
    await simulate(door, returned, 'MS02');
    // Set for the coming attempt: nothing happens yet.
    await expectStatus(a.id, CYCLES[RETURNED], 'rescheduled', 'with an outcome set');
  });
  at(SECOND_RETRY, 'A retried again', () => expectStatus(a.id, CYCLES[RETURNED], 'succeeded', 'at the second retry'));
  at(instantBefore(LAST_RETURN), 'A not yet returned', () =>
    expectStatus(a.id, CYCLES[RETURNED], 'succeeded', 'before the last return'),
  );
  at(LAST_RETURN, 'A failed', () => expectStatus(a.id, CYCLES[RETURNED], 'failed', 'after the last return'));
  at(END, 'the end', async () => {});

  steps.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
  for (const step of steps) {
    await door.advanceTo(step.at);
    await step.run();
  }

  // ---- the year, as the API shows it at the end ----

  // A: twelve collections, all fulfilled but the returned one; January 31, 2028 scheduled.
  const aTxs = await transactionsOf(door, a.id);
  expect(aTxs.map((t) => [t.attributes.due_date, t.attributes.status])).toEqual(
    newestFirst([[NEXT_YEAR, 'scheduled'], ...CYCLES.map((due, n) => [due, n === RETURNED ? 'failed' : 'fulfilled'])]),
  );
  const aByDue = new Map(aTxs.map((t) => [t.attributes.due_date, t]));
  CYCLES.forEach((due, n) => {
    const tx = aByDue.get(due);
    const scheduledAt = n === 0 ? CREATED : CYCLES[n - 1];
    expect(tx.attributes).toMatchObject({
      scheduled_on: scheduledAt,
      amount: 10,
      description: 'Monthly',
      canceled_on: null,
      payment_method: 'directdebit',
    });
    if (n !== RETURNED) expect(tx.attributes.history, `A ${due}`).toEqual(collectedHistory(n, scheduledAt));
  });
  expect(aByDue.get(NEXT_YEAR).attributes.history).toEqual([item('scheduled', CYCLES[11])]);

  // The returned one, item by item: each attempt collected at 00:00 of its (new) due day.
  const failed = await ok(door, 'GET', `/transactions/${returned}`, 200);
  expect(failed.data.attributes).toMatchObject({
    status: 'failed',
    due_date: CYCLES[RETURNED],
    scheduled_on: CYCLES[RETURNED - 1],
    canceled_on: null,
  });
  expect(failed.data.attributes.history).toEqual([
    item('scheduled', CYCLES[RETURNED - 1]),
    item('succeeded', CYCLES[RETURNED]),
    item('fulfilled', FULFILLED[RETURNED]),
    item('charged_back', FIRST_CHARGE_BACK, { code: 'MD06', reason: 'Refund requested by the debtor' }),
    item('rescheduled', FIRST_CHARGE_BACK, { new_due_date: FIRST_RETRY }),
    item('succeeded', FIRST_RETRY, { attempt: 2 }),
    item('charged_back', SECOND_CHARGE_BACK, { attempt: 2, code: 'AM04', reason: 'Insufficient funds' }),
    item('rescheduled', SECOND_CHARGE_BACK, { attempt: 2, new_due_date: SECOND_RETRY }),
    item('succeeded', SECOND_RETRY, { attempt: 3 }),
    item('charged_back', LAST_RETURN, { attempt: 3, code: 'MS02', reason: 'Refused by the debtor' }),
    item('failed', LAST_RETURN, { attempt: 3, code: 'MS02', reason: 'Refused by the debtor' }),
  ]);
  // A failed return is final: no outcome is left to set.
  const refused = await simulateOutcome(door.operator, returned, 'charged_back', 'MD06');
  expect(refused.ok).toBe(false);

  // B: ten collections, April 30 canceled by the pause, May 31 never made; January 31, 2028 scheduled.
  const bTxs = await transactionsOf(door, b.id);
  expect(bTxs.map((t) => [t.attributes.due_date, t.attributes.status])).toEqual(
    newestFirst([
      [NEXT_YEAR, 'scheduled'],
      ...B_COLLECTED.map((n) => [CYCLES[n], 'fulfilled']),
      [CYCLES[B_CANCELED], 'canceled'],
    ]),
  );
  const bByDue = new Map(bTxs.map((t) => [t.attributes.due_date, t]));
  for (const n of B_COLLECTED) {
    const scheduledAt = n === 0 ? CREATED : n === 5 ? RESUMED : CYCLES[n - 1];
    expect(bByDue.get(CYCLES[n]).attributes.history, `B ${CYCLES[n]}`).toEqual(collectedHistory(n, scheduledAt));
  }
  expect(bByDue.get(CYCLES[B_CANCELED]).attributes).toMatchObject({
    canceled_on: PAUSED,
    scheduled_on: CYCLES[2],
    history: [item('scheduled', CYCLES[2]), item('canceled', PAUSED)],
  });

  const subs = await ok(door, 'GET', '/subscriptions', 200);
  expect(subs.data.map((s: Json) => [s.id, s.attributes.status])).toEqual([
    [a.id, 'active'],
    [b.id, 'active'],
  ]);

  // Every status change is an event: per subscription, and per transaction (queued, then its history).
  const { store } = door.operator;
  const events = await store.read(() =>
    all((q) => q.selectFrom('events').selectAll().where('account_id', '=', door.operator.account.id).orderBy('id')),
  );
  const subEvents = (id: string) =>
    events.filter((e) => e.name === 'subscription.status' && e.subscription_id === Number(id)).map((e) => e.status);
  expect(subEvents(a.id)).toEqual(['unverified', 'active']);
  expect(subEvents(b.id)).toEqual(['unverified', 'active', 'paused', 'active']);
  for (const tx of [...aTxs, ...bTxs]) {
    const mine = events.filter((e) => e.transaction_id === tx.id);
    expect(
      mine.map((e) => e.status),
      `events of ${tx.attributes.due_date}`,
    ).toEqual(['queued', ...(tx.id === returned ? failed.data : tx).attributes.history.map((h: Json) => h.status)]);
  }
}
