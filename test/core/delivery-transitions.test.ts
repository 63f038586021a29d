// Webhook delivery statuses and DELIVERY_TRANSITIONS, on the run's engine: every status change the
// outbox makes (recording a sender's attempts, a retry by hand) is one the table lists, and every
// change the table lists is one the outbox makes, so the table and the code cannot drift apart.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, recordAttempts, retryDelivery, type Attempt } from '../../src/lib/core/outbox.js';
import { canMove, DELIVERY_TRANSITIONS, type DeliveryStatus } from '../../src/lib/core/transitions.js';
import { all, run } from '../../src/lib/store/unit.js';
import { context, TestClock } from '../api/support.js';
import { testCore, type TestCore } from '../helpers/store.js';

const OWNER = 'sender-a';

interface Row {
  status: DeliveryStatus;
  attempts?: number;
  /** The sender holding it; none by default. */
  claimedBy?: string;
}

/** Writes one delivery as it stands in `row`, due now; gives its id. */
async function seed(core: TestCore, row: Row): Promise<number> {
  const account = (await core.account()).id;
  const at = core.clock.now().toISOString();
  const held = row.claimedBy === undefined ? null : new Date(Date.now() + 60_000).toISOString();
  await core.store.write(() =>
    run((q) =>
      q.insertInto('webhook_deliveries').values({
        account_id: account,
        event_uid: randomUUID(),
        delivery_id: randomUUID(),
        event: 'subscription.active',
        url: 'http://hooks.example.com/in',
        host: 'hooks.example.com:80',
        allow_private: 0,
        body: '{}',
        status: row.status,
        attempts: row.attempts ?? 0,
        next_at: at,
        claimed_by: row.claimedBy ?? null,
        claimed_until: held,
        created_at: at,
        updated_at: at,
      }),
    ),
  );
  const [last] = await core.store.read(() =>
    all((q) => q.selectFrom('webhook_deliveries').select('id').orderBy('id', 'desc').limit(1)),
  );
  return last.id;
}

const statusOf = async (core: TestCore, id: number): Promise<DeliveryStatus> => {
  const [row] = await core.store.read(() =>
    all((q) => q.selectFrom('webhook_deliveries').select('status').where('id', '=', id)),
  );
  return row.status;
};

/** One attempt by OWNER: answered `status`, or none (abandoned: cut short before it was made). */
const attempt = (id: number, tries: number, o: { status?: number; abandoned?: boolean }): Attempt => ({
  id,
  host: 'hooks.example.com:80',
  tries,
  dueAt: new Date(0).toISOString(),
  ...o,
});

const record = async (core: TestCore, a: Attempt) =>
  await recordAttempts(core.store, [a], { at: core.clock.now(), owner: OWNER, realNow: Date.now() });

interface Case {
  what: string;
  from: Row;
  act: (core: TestCore, id: number) => Promise<unknown>;
  to: DeliveryStatus;
}

/** Every way the outbox writes a delivery's status, from each status it may find the row in. */
const CASES: Case[] = [
  {
    what: 'a 2xx answer to a held row',
    from: { status: 'pending', claimedBy: OWNER },
    act: (core, id) => record(core, attempt(id, 0, { status: 204 })),
    to: 'delivered',
  },
  {
    what: 'a 2xx answer after the claim lapsed and another sender gave up',
    from: { status: 'failed', attempts: MAX_ATTEMPTS },
    act: (core, id) => record(core, attempt(id, MAX_ATTEMPTS - 1, { status: 200 })),
    to: 'delivered',
  },
  {
    what: 'a 2xx answer after another sender delivered it',
    from: { status: 'delivered', attempts: 1 },
    act: (core, id) => record(core, attempt(id, 0, { status: 200 })),
    to: 'delivered',
  },
  {
    what: 'a failed attempt with attempts left',
    from: { status: 'pending', claimedBy: OWNER },
    act: (core, id) => record(core, attempt(id, 0, { status: 500 })),
    to: 'pending',
  },
  {
    what: 'the last attempt failing',
    from: { status: 'pending', attempts: MAX_ATTEMPTS - 1, claimedBy: OWNER },
    act: (core, id) => record(core, attempt(id, MAX_ATTEMPTS - 1, { status: 500 })),
    to: 'failed',
  },
  {
    what: 'an attempt let go untried',
    from: { status: 'pending', claimedBy: OWNER },
    act: (core, id) => record(core, attempt(id, 0, { abandoned: true })),
    to: 'pending',
  },
  {
    what: 'a failed attempt on a row another sender has since given up',
    from: { status: 'failed', attempts: MAX_ATTEMPTS },
    act: (core, id) => record(core, attempt(id, 3, { status: 500 })),
    to: 'failed',
  },
  {
    what: 'a failed attempt on a row another sender has since delivered',
    from: { status: 'delivered', attempts: 1 },
    act: (core, id) => record(core, attempt(id, 0, { status: 500 })),
    to: 'delivered',
  },
  {
    what: 'a retry by hand of a failed delivery',
    from: { status: 'failed', attempts: MAX_ATTEMPTS },
    act: async (core, id) => expect((await retryDelivery(await context(core), id)).ok).toBe(true),
    to: 'pending',
  },
  {
    what: 'a retry by hand of a delivered one',
    from: { status: 'delivered', attempts: 1 },
    act: async (core, id) => expect((await retryDelivery(await context(core), id)).ok).toBe(true),
    to: 'pending',
  },
  {
    what: 'a retry by hand of a pending one tried before',
    from: { status: 'pending', attempts: 2 },
    act: async (core, id) => expect((await retryDelivery(await context(core), id)).ok).toBe(true),
    to: 'pending',
  },
  {
    what: 'a retry by hand of a pending one never tried (refused)',
    from: { status: 'pending' },
    act: async (core, id) => expect((await retryDelivery(await context(core), id)).ok).toBe(false),
    to: 'pending',
  },
];

const pairs = (changes: Iterable<[string, string]>): string[] =>
  [...new Set([...changes].map(([from, to]) => `${from} -> ${to}`))].sort();

describe('webhook delivery statuses', () => {
  it('change only as DELIVERY_TRANSITIONS lists, and make every change it lists', async () => {
    const core = await testCore({ clock: new TestClock() });
    const made: [DeliveryStatus, DeliveryStatus][] = [];
    for (const c of CASES) {
      const id = await seed(core, c.from);
      await c.act(core, id);
      const to = await statusOf(core, id);
      expect(`${c.what}: ${to}`).toBe(`${c.what}: ${c.to}`);
      if (to !== c.from.status) {
        expect(canMove(DELIVERY_TRANSITIONS, c.from.status, to), `${c.what}: ${c.from.status} -> ${to}`).toBe(true);
        made.push([c.from.status, to]);
      }
    }
    const listed = Object.entries(DELIVERY_TRANSITIONS).flatMap(([from, tos]) =>
      tos.map((to): [string, string] => [from, to]),
    );
    expect(pairs(made)).toEqual(pairs(listed));
  });
});
