// Reads in one snapshot: a read transaction does not see what another connection commits while it
// runs, nested reads share it, and every GET the router answers runs inside exactly one of them.
import { describe, expect, it } from 'vitest';
import { createRouter } from '../../src/lib/api/router.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { createCustomer } from '../../src/lib/core/customer-writes.js';
import { openStore, type Store } from '../../src/lib/store/store.js';
import { testCore, TEST_NOW } from '../helpers/store.js';

const countCustomers = (store: Store) => store.get(store.q.selectFrom('customers').select((eb) => eb.fn.countAll<number>().as('n')))!.n;

describe('store.read', () => {
  it('sees one snapshot: a commit by another connection in the middle is not seen until the read ends', () => {
    const core = testCore();
    const ctx = { store: core.store, clock: core.clock, account: core.account() };
    const other = openStore(core.dbPath);
    try {
      const seen = core.store.read(() => {
        const before = countCustomers(core.store);
        createCustomer({ ...ctx, store: other }, { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' });
        const nested = core.store.read(() => countCustomers(core.store));
        return [before, countCustomers(core.store), nested];
      });
      expect(seen).toEqual([0, 0, 0]);
      expect(countCustomers(core.store)).toBe(1);
    } finally {
      other.close();
    }
  });
});

describe('router reads', () => {
  it('answers a GET at once, every query of it inside one read of the store; writes answer through a promise', async () => {
    const core = testCore();
    const account = core.account();
    const calls: string[] = [];
    let depth = 0;
    // The real store, with reads and queries recorded (prepared queries are where the hot reads go).
    const store: Store = {
      ...core.store,
      read: (fn) => {
        if (depth === 0) calls.push('read'); // nested reads share the outer one's snapshot
        depth++;
        try {
          return core.store.read(fn);
        } finally {
          depth--;
        }
      },
      prepared: (key, build) => {
        const query = core.store.prepared(key, build);
        const record = <T>(run: () => T) => (calls.push(depth > 0 ? 'query in read' : 'query outside'), run());
        return { all: (...a) => record(() => query.all(...a)), get: (...a) => record(() => query.get(...a)), run: (...a) => record(() => query.run(...a)) };
      },
      get: (query) => (calls.push(depth > 0 ? 'query in read' : 'query outside'), core.store.get(query)),
      all: (query) => (calls.push(depth > 0 ? 'query in read' : 'query outside'), core.store.all(query)),
    };
    const router = createRouter({ store, clock: fixedClock(TEST_NOW), baseUrl: 'http://x' });
    const created = await router.handle({ method: 'POST', path: '/customers', body: JSON.stringify({ data: { type: 'customer', attributes: { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' } } }) }, account);
    expect(created.status).toBe(201);

    for (const path of ['/customers', '/customers/1', '/customers/1/subscriptions', '/subscription-plans']) {
      calls.length = 0;
      const answer = router.handle({ method: 'GET', path, query: path === '/customers' ? 'include=subscriptions' : undefined }, account);
      expect(answer).not.toBeInstanceOf(Promise);
      expect((answer as { status: number }).status).toBe(200);
      expect(calls[0]).toBe('read');
      expect(calls.filter((c) => c === 'read')).toHaveLength(1);
      expect(calls.filter((c) => c.startsWith('query')).length).toBeGreaterThan(0);
      expect(calls.filter((c) => c === 'query outside')).toEqual([]);
    }
    expect(router.handle({ method: 'PATCH', path: '/customers/1', body: '{}' }, account)).toBeInstanceOf(Promise);
  });
});
