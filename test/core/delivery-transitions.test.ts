// Webhook delivery statuses and DELIVERY_TRANSITIONS, on the run's engine: every status change the
// outbox makes (recording a sender's attempts, a retry by hand) is one the table lists, and every
// change the table lists is one the outbox makes, so the table and the code cannot drift apart.
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, recordAttempts, retryDelivery } from '../../src/lib/core/outbox.js';
import { canMove, DELIVERY_TRANSITIONS, type DeliveryStatus } from '../../src/lib/core/transitions.js';
import { context, TestClock } from '../api/support.js';
import { DELIVERY_HOST, deliveryState, seedDelivery, type DeliverySeed } from '../helpers/deliveries.js';
import { testCore, type TestCore } from '../helpers/store.js';

const OWNER = 'sender-a';
const LAST = MAX_ATTEMPTS - 1;

type Act = (core: TestCore, id: number) => Promise<unknown>;

/** One attempt by OWNER after `tries`: answered `status`, or let go untried (cut short by its deadline). */
const attempt =
  (tries: number, o: { status?: number; abandoned?: boolean }): Act =>
  async (core, id) => {
    const a = { id, host: DELIVERY_HOST, tries, dueAt: new Date(0).toISOString(), ...o };
    await recordAttempts(core.store, [a], { at: core.clock.now(), owner: OWNER, realNow: Date.now() });
  };

/** A retry by hand, accepted or refused. */
const retry =
  (accepted: boolean): Act =>
  async (core, id) =>
    expect((await retryDelivery(await context(core), id)).ok).toBe(accepted);

const held = (status: DeliveryStatus, attempts = 0): DeliverySeed => ({ status, attempts, claimedBy: OWNER });
const free = (status: DeliveryStatus, attempts = 0): DeliverySeed => ({ status, attempts });

/** Every way the outbox writes a delivery's status, from each status it may find the row in. */
const CASES: [what: string, from: DeliverySeed, act: Act, to: DeliveryStatus][] = [
  ['a 2xx answer to a held row', held('pending'), attempt(0, { status: 204 }), 'delivered'],
  [
    'a 2xx answer after the claim lapsed and another sender gave up',
    free('failed', MAX_ATTEMPTS),
    attempt(LAST, { status: 200 }),
    'delivered',
  ],
  ['a 2xx answer after another sender delivered it', free('delivered', 1), attempt(0, { status: 200 }), 'delivered'],
  ['a failed attempt with attempts left', held('pending'), attempt(0, { status: 500 }), 'pending'],
  ['the last attempt failing', held('pending', LAST), attempt(LAST, { status: 500 }), 'failed'],
  ['an attempt let go untried', held('pending'), attempt(0, { abandoned: true }), 'pending'],
  [
    'a failed attempt on a row another sender gave up',
    free('failed', MAX_ATTEMPTS),
    attempt(3, { status: 500 }),
    'failed',
  ],
  [
    'a failed attempt on a row another sender delivered',
    free('delivered', 1),
    attempt(0, { status: 500 }),
    'delivered',
  ],
  ['a retry by hand of a failed delivery', free('failed', MAX_ATTEMPTS), retry(true), 'pending'],
  ['a retry by hand of a delivered one', free('delivered', 1), retry(true), 'pending'],
  ['a retry by hand of a pending one tried before', free('pending', 2), retry(true), 'pending'],
  ['a retry by hand of a pending one never tried (refused)', free('pending'), retry(false), 'pending'],
];

const pairs = (changes: Iterable<[string, string]>): string[] =>
  [...new Set([...changes].map(([from, to]) => `${from} -> ${to}`))].sort();

describe('webhook delivery statuses', () => {
  it('change only as DELIVERY_TRANSITIONS lists, and make every change it lists', async () => {
    const core = await testCore({ clock: new TestClock() });
    const made: [DeliveryStatus, DeliveryStatus][] = [];
    for (const [what, from, act, expected] of CASES) {
      const id = await seedDelivery(core, from);
      await act(core, id);
      const { status: to } = await deliveryState(core, id);
      expect(`${what}: ${to}`).toBe(`${what}: ${expected}`);
      if (to !== from.status) {
        expect(canMove(DELIVERY_TRANSITIONS, from.status, to), `${what}: ${from.status} -> ${to}`).toBe(true);
        made.push([from.status, to]);
      }
    }
    const listed = Object.entries(DELIVERY_TRANSITIONS).flatMap(([from, tos]) =>
      tos.map((to): [string, string] => [from, to]),
    );
    expect(pairs(made)).toEqual(pairs(listed));
  });
});
