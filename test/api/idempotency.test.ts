// Idempotency-Key on POST, on both engines: the first answer replayed for 24 hours and nothing made
// twice, a different request with the key refused (422), keys scoped to the account, a request
// refused before writing judged again, and the same key sent many times at once made once.
import { describe, expect, it } from 'vitest';
import { createRouter } from '../../src/lib/api/router.js';
import { createAccount, findAccount } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import type { Account } from '../../src/lib/core/context.js';
import { StoreBusyError, type Store } from '../../src/lib/store/store.js';
import type { Unit } from '../../src/lib/store/unit.js';
import { testCore, TEST_NOW } from '../helpers/store.js';

const body = (last: string) => JSON.stringify({ data: { type: 'customer', attributes: { first_name: 'Jan', last_name: last, email: 'jan@example.com' } } });

async function setup(now = TEST_NOW) {
  const core = await testCore();
  const account = await core.account();
  const at = (iso: string) => createRouter({ store: core.store, clock: fixedClock(iso), baseUrl: 'http://x' });
  const router = at(now);
  const post = (key: string | undefined, last = 'Jansen', on = router, as: Account = account) => Promise.resolve(on.handle({ method: 'POST', path: '/customers', body: body(last), idempotencyKey: key }, as));
  const total = async (as: Account = account) => ((await router.handle({ method: 'GET', path: '/customers' }, as)).body as { meta: { total: number } }).meta.total;
  return { core, account, at, post, total };
}

describe('Idempotency-Key', () => {
  it('the same key again replays the first answer (status, Location, body) and makes nothing new; the answers name the key', async () => {
    const { post, total } = await setup();
    const first = await post('k-1');
    expect(first.status).toBe(201);
    expect(first.headers['idempotency-key']).toBe('k-1');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('k-1');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.body).toEqual(first.body);
    expect(await total()).toBe(1);
    // Without a key, a POST is a new request each time.
    expect((await post(undefined)).headers['idempotency-key']).toBeUndefined();
    expect(await total()).toBe(2);
  });

  it('the same key with another body is 422 and changes nothing', async () => {
    const { post, total } = await setup();
    await post('k-2', 'Jansen');
    const other = await post('k-2', 'Pietersen');
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ errors: [{ status: '422', detail: expect.stringContaining('used with a different request') }] });
    expect(await total()).toBe(1);
  });

  it('keys belong to one account: another account with the same key makes its own', async () => {
    const { core, post, total } = await setup();
    const made = await createAccount(core.store, core.clock, 'other');
    expect(made.ok).toBe(true);
    const other = (await core.store.read(() => findAccount('other')))!;
    await post('shared');
    const theirs = await post('shared', 'Jansen', undefined, other);
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await total(other)).toBe(1);
  });

  it('after 24 hours the key is free again', async () => {
    const { at, post, total } = await setup();
    await post('k-3');
    const nearly = at('2026-11-22T09:59:59.000Z');
    expect((await post('k-3', 'Jansen', nearly)).headers['idempotent-replayed']).toBe('true');
    const later = at('2026-11-22T10:00:01.000Z');
    const fresh = await post('k-3', 'Jansen', later);
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(await total()).toBe(2);
  });

  it('a request refused before it wrote anything keeps no key: fixed, it is judged again', async () => {
    const { core, account, post, total } = await setup();
    const refused = await core.router.handle({ method: 'POST', path: '/customers', body: JSON.stringify({ data: { type: 'customer', attributes: { first_name: 'Jan' } } }), idempotencyKey: 'k-4' }, account);
    expect(refused.status).toBe(400);
    expect(refused.headers['idempotency-key']).toBe('k-4');
    expect((await post('k-4')).status).toBe(201);
    expect(await total()).toBe(1);
  });

  it('a key that no header could carry is 400; a GET with a key names it and changes nothing', async () => {
    const { core, account, post } = await setup();
    expect((await post('with space')).status).toBe(400);
    expect((await post('x'.repeat(256))).status).toBe(400);
    const read = await core.router.handle({ method: 'GET', path: '/customers', idempotencyKey: 'probe' }, account);
    expect(read.status).toBe(200);
    expect(read.headers['idempotency-key']).toBe('probe');
  });

  it("an answer another process's lock keeps from being stored is still given; the key stays in flight", async () => {
    const { core, account, post, total } = await setup();
    let writes = 0;
    // The request's own write commits; the next (storing its answer) finds SQLite's lock held past the wait.
    const held = Object.assign(Object.create(core.store) as Store, {
      write: <T>(unit: () => Unit<T>, keep?: (value: T) => boolean) =>
        ++writes === 2
          ? Promise.reject(new StoreBusyError('store busy, try again', { file: 'billing.db', waitedMs: 5000 }))
          : core.store.write(unit, keep),
    });
    const router = createRouter({ store: held, clock: fixedClock(TEST_NOW), baseUrl: 'http://x' });
    const answer = await post('k-6', 'Jansen', router, account);
    expect(answer.status).toBe(201);
    expect(await total()).toBe(1);
    const again = await post('k-6');
    expect(again.status).toBe(409);
    expect(await total()).toBe(1);
  });

  it('the same key sent ten times at once makes one customer; every answer is the first or its replay (or 409 while it is in flight)', async () => {
    const { post, total } = await setup();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('k-5')));
    expect(await total()).toBe(1);
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => (a.body as { data: { id: string } }).data.id));
    expect(ids.size).toBe(1);
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    expect(answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
  });
});
