// The router's own promises: an exception inside a handler is a 500 without details, and the
// failure is told to whoever asked (serve logs it); nothing of the error reaches the client.
import { describe, expect, it } from 'vitest';
import { createRouter } from '../../src/lib/api/router.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { StoreBusyError, type Store } from '../../src/lib/store/store.js';
import { ENGINE } from '../helpers/engine.js';
import { testCore, TEST_NOW } from '../helpers/store.js';

describe('router', () => {
  it('when a handler throws (here: the store is closed), answers 500 Internal Error without stack or SQL', async () => {
    const core = await testCore();
    const account = await core.account();
    const seen: unknown[] = [];
    const router = createRouter({
      store: core.store,
      clock: fixedClock(TEST_NOW),
      baseUrl: 'http://x',
      onError: (error) => seen.push(error),
    });
    await core.store.close();
    const response = await router.handle({ method: 'GET', path: '/customers/1' }, account);
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/vnd.api+json');
    const text = JSON.stringify(response.body);
    expect(response.body).toEqual({
      errors: [
        { status: '500', title: 'Internal Error', detail: 'an internal error occurred; the request changed nothing' },
      ],
    });
    expect(text).not.toMatch(/select|sqlite|at \w+ \(/i);
    expect(seen).toHaveLength(1);
    // The engine's own words for a closed store: better-sqlite3's connection, or pg's pool.
    expect(String(seen[0])).toMatch(ENGINE === 'sqlite' ? /not open/i : /the store is closed/i);
  });

  it('when concurrent writes outlast the store retries (StoreBusyError), answers 503 with Retry-After, not a 500', async () => {
    const core = await testCore();
    const account = await core.account();
    const seen: unknown[] = [];
    const refuse = () => Promise.reject(new StoreBusyError('the write met concurrent writes 12 times'));
    const busy = { ...core.store, write: refuse, writeOne: refuse, work: refuse } as Store;
    const router = createRouter({
      store: busy,
      clock: fixedClock(TEST_NOW),
      baseUrl: 'http://x',
      onError: (error) => seen.push(error),
    });
    const response = await router.handle(
      {
        method: 'POST',
        path: '/customers',
        body: JSON.stringify({
          data: { type: 'customer', attributes: { first_name: 'A', last_name: 'B', email: 'a@example.com' } },
        }),
      },
      account,
    );
    expect(response.status, String(seen[0])).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body).toEqual({
      errors: [
        {
          status: '503',
          title: 'Service Unavailable',
          detail: 'the store is busy with concurrent writes; the request changed nothing, send it again',
        },
      ],
    });
    expect(seen).toEqual([]);
    expect((await core.router.handle({ method: 'GET', path: '/customers' }, account)).body).toMatchObject({
      meta: { total: 0 },
    });
  });

  it("another process's SQLite lock past the wait: 503 not naming the file; the embedded door throws", async () => {
    const core = await testCore();
    const account = await core.account();
    const message = 'store busy, try again: another process, pid 7 (sqlite3), kept /srv/billing.db locked …';
    const lock = { file: '/srv/billing.db', holder: 'pid 7 (sqlite3)', waitedMs: 5000 };
    const refuse = () => Promise.reject(new StoreBusyError(message, lock));
    const busy = { ...core.store, write: refuse, writeOne: refuse, work: refuse } as Store;
    const attributes = { first_name: 'A', last_name: 'B', email: 'a@b.nl' };
    const body = JSON.stringify({ data: { type: 'customer', attributes } });
    const post = { method: 'POST', path: '/customers', body };
    const router = (store: Store, throwWhenLocked?: boolean) =>
      createRouter({ store, clock: fixedClock(TEST_NOW), baseUrl: 'http://x', throwWhenLocked });
    const response = await router(busy).handle(post, account);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    const detail =
      'the store is busy: another process holds its write lock; the request changed nothing, send it again';
    expect(response.body).toEqual({ errors: [{ status: '503', title: 'Service Unavailable', detail }] });
    const thrown = await Promise.resolve(router(busy, true).handle(post, account)).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(StoreBusyError);
    expect((thrown as Error).message).toMatch(/^store busy, try again: .*\/srv\/billing\.db/);
    // PostgreSQL's kind of busy (no lock) is still answered by the embedded door too.
    const conflicts = () => Promise.reject(new StoreBusyError('the write met concurrent writes 12 times'));
    const pg = router({ ...core.store, write: conflicts, writeOne: conflicts, work: conflicts } as Store, true);
    expect((await pg.handle(post, account)).status).toBe(503);
  });

  it('a trailing slash reaches the same resource; anything after a numeric id segment is 404', async () => {
    const core = await testCore();
    const account = await core.account();
    expect((await core.router.handle({ method: 'GET', path: '/customers/' }, account)).status).toBe(200);
    expect((await core.router.handle({ method: 'GET', path: '/customers/1x' }, account)).status).toBe(404);
    expect((await core.router.handle({ method: 'GET', path: '/customers/01' }, account)).status).toBe(404);
  });
});
