// Reads in one snapshot: a read unit does not see what another connection commits while it runs
// (on SQLite nested reads share it), and every GET the router answers runs inside exactly one read.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createRouter } from '../../src/lib/api/router.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { createCustomer } from '../../src/lib/core/customer-writes.js';
import type { SqliteStore } from '../../src/lib/store/store.js';
import { get, run, wait, type Unit } from '../../src/lib/store/unit.js';
import { ENGINE } from '../helpers/engine.js';
import { testCore, testStore, TEST_NOW } from '../helpers/store.js';

function* countCustomers(): Unit<number> {
  return (yield* get((q) => q.selectFrom('customers').select((eb) => eb.fn.countAll<number>().as('n'))))!.n;
}

const JAN = { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' };

describe.runIf(ENGINE === 'sqlite')('store.read on SQLite (SQLite only)', () => {
  it('sees one snapshot: a commit by another connection in the middle is not seen until the read ends, and a nested read shares it', async () => {
    const core = await testCore();
    const store = core.store as SqliteStore;
    const ctx = { store, clock: core.clock, account: await core.account() };
    const other = (await testStore(core.dbPath)) as SqliteStore;
    const seen = store.read(function* () {
      const before = yield* countCustomers();
      const made = createCustomer({ ...ctx, store: other }, JAN);
      expect(made).toMatchObject({ ok: true }); // committed, synchronously, between the two queries
      const nested = store.read(countCustomers);
      return [before, yield* countCustomers(), nested];
    });
    expect(seen).toEqual([0, 0, 0]);
    expect(store.read(countCustomers)).toBe(1);
  });
});

describe.runIf(ENGINE === 'postgres')('store.read on PostgreSQL (PostgreSQL only)', () => {
  it('sees one snapshot: a commit by another connection between its queries is not seen until the read ends', async () => {
    const core = await testCore();
    const account = await core.account();
    const other = await testStore(core.dbPath);
    // The other connection inserts a customer and holds its transaction open, with an advisory
    // lock, until the read has made its first query; the read then waits for that lock, which is
    // free only once the other transaction has committed, and counts again.
    const LOCK = 7_411_230_777;
    let locked!: () => void;
    const inserted = new Promise<void>((resolve) => (locked = resolve));
    let release!: () => void;
    const go = new Promise<void>((resolve) => (release = resolve));
    const writing = other.bulkWrite(function* () {
      yield* get((q) => q.selectNoFrom(sql<string>`pg_advisory_xact_lock(${LOCK})::text`.as('locked')));
      yield* run((q) =>
        q.insertInto('customers').values({
          account_id: account.id,
          ...JAN,
          payment_method: 'directdebit',
          language: 'nl',
          archived: 0,
          search_text: '',
          created_at: TEST_NOW,
          updated_at: TEST_NOW,
        }),
      );
      locked();
      yield* wait(go);
    });
    let seen: number[];
    try {
      await inserted;
      seen = await core.store.read(function* () {
        const before = yield* countCustomers();
        release(); // the other transaction commits now
        yield* get((q) => q.selectNoFrom(sql<string>`pg_advisory_xact_lock_shared(${LOCK})::text`.as('committed')));
        return [before, yield* countCustomers()];
      });
    } finally {
      release(); // never leave the other transaction open
      await writing;
    }
    expect(seen).toEqual([0, 0]);
    expect(await core.store.read(countCustomers)).toBe(1);
    // A read that starts after the commit sees it, in one query or in several.
    expect(
      await core.store.read(function* () {
        return [yield* countCustomers(), yield* countCustomers()];
      }),
    ).toEqual([1, 1]);
  });
});

describe(`router reads on ${ENGINE}`, () => {
  it('answers a GET with every query of it inside one read of the store, at once on SQLite and through a promise on PostgreSQL; writes answer through a promise', async () => {
    const core = await testCore();
    const account = await core.account();
    const calls: string[] = [];
    // Every query a unit yields, recorded with the kind of transaction that runs it.
    function* recorded<T>(kind: 'read' | 'write', unit: Unit<T>): Unit<T> {
      let step = unit.next();
      while (!step.done) {
        calls.push(`query in ${kind}`);
        let value: unknown;
        try {
          value = yield step.value;
        } catch (error) {
          step = unit.throw(error);
          continue;
        }
        step = unit.next(value);
      }
      return step.value;
    }
    // The real store, with its reads, writes and their queries recorded.
    const store = {
      ...core.store,
      read: <T>(unit: () => Unit<T>, key?: string) => {
        calls.push('read');
        return core.store.read(() => recorded('read', unit()), key);
      },
      write: <T>(unit: () => Unit<T>, keep?: (value: T) => boolean) => {
        calls.push('write');
        return core.store.write(() => recorded('write', unit()), keep);
      },
    };
    const router = createRouter({ store, clock: fixedClock(TEST_NOW), baseUrl: 'http://x' });
    const created = await router.handle(
      { method: 'POST', path: '/customers', body: JSON.stringify({ data: { type: 'customer', attributes: JAN } }) },
      account,
    );
    expect(created.status).toBe(201);

    for (const path of ['/customers', '/customers/1', '/customers/1/subscriptions', '/subscription-plans']) {
      calls.length = 0;
      const answer = router.handle(
        { method: 'GET', path, query: path === '/customers' ? 'include=subscriptions' : undefined },
        account,
      );
      if (ENGINE === 'sqlite') expect(answer).not.toBeInstanceOf(Promise);
      else expect(answer).toBeInstanceOf(Promise);
      expect((await answer).status).toBe(200);
      expect(calls[0]).toBe('read');
      expect(calls.filter((c) => c === 'read')).toHaveLength(1);
      expect(calls.filter((c) => c === 'query in read').length).toBeGreaterThan(0);
      expect(calls.filter((c) => c !== 'read' && c !== 'query in read')).toEqual([]);
    }
    const patch = router.handle({ method: 'PATCH', path: '/customers/1', body: '{}' }, account);
    expect(patch).toBeInstanceOf(Promise);
    await patch;
  });
});
