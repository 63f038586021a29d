// Idempotency-Key on POST, on both engines: the first answer replayed for 24 hours and nothing made
// twice, a different request with the key refused (422), keys scoped to the account, a request
// refused before writing judged again, the same key sent many times at once made once, and a
// request cut off after a write committed (a server killed before it stored the answer) answered
// from what its writes recorded, going on from the last of them, never doing one twice.
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../src/lib/api/http.js';
import { answerOnce } from '../../src/lib/api/idempotency.js';
import { createRouter } from '../../src/lib/api/router.js';
import { createAccount, findAccount } from '../../src/lib/core/accounts.js';
import { fixedClock, type Clock } from '../../src/lib/core/clock.js';
import type { Account } from '../../src/lib/core/context.js';
import { createCustomer } from '../../src/lib/core/customer-writes.js';
import { TABLES } from '../../src/lib/store/migrations.js';
import { StoreBusyError, type Store } from '../../src/lib/store/store.js';
import { all, get, run, type Unit } from '../../src/lib/store/unit.js';
import { testCore, TEST_NOW, type TestCore } from '../helpers/store.js';
import { makePlan } from './support.js';

const body = (last: string) =>
  JSON.stringify({
    data: { type: 'customer', attributes: { first_name: 'Jan', last_name: last, email: 'jan@example.com' } },
  });

async function setup(now = TEST_NOW) {
  const core = await testCore();
  const account = await core.account();
  const at = (iso: string) => createRouter({ store: core.store, clock: fixedClock(iso), baseUrl: 'http://x' });
  const router = at(now);
  const post = (key: string | undefined, last = 'Jansen', on = router, as: Account = account) =>
    Promise.resolve(on.handle({ method: 'POST', path: '/customers', body: body(last), idempotencyKey: key }, as));
  const total = async (as: Account = account) =>
    ((await router.handle({ method: 'GET', path: '/customers' }, as)).body as { meta: { total: number } }).meta.total;
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
    expect(other.body).toMatchObject({
      errors: [{ status: '422', detail: expect.stringContaining('used with a different request') }],
    });
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
    const refused = await core.router.handle(
      {
        method: 'POST',
        path: '/customers',
        body: JSON.stringify({ data: { type: 'customer', attributes: { first_name: 'Jan' } } }),
        idempotencyKey: 'k-4',
      },
      account,
    );
    expect(refused.status).toBe(400);
    expect(refused.headers['idempotency-key']).toBe('k-4');
    expect((await post('k-4')).status).toBe(201);
    expect(await total()).toBe(1);
  });

  it('a key that no header could carry is 400; a GET with a key names it and changes nothing', async () => {
    const { core, account, post } = await setup();
    expect((await post('with space')).status).toBe(400);
    const tooLong = await post('x'.repeat(256));
    expect(tooLong.status).toBe(400);
    // A whole error object: its title, and the header it is about.
    expect(tooLong.body).toEqual({
      errors: [
        {
          status: '400',
          title: 'Invalid Parameter',
          detail: 'the Idempotency-Key header must be 1 to 255 visible ASCII characters',
          source: { header: 'Idempotency-Key' },
        },
      ],
      meta: { original: null },
    });
    const read = await core.router.handle({ method: 'GET', path: '/customers', idempotencyKey: 'probe' }, account);
    expect(read.status).toBe(200);
    expect(read.headers['idempotency-key']).toBe('probe');
  });

  it("an answer another process's lock keeps from being stored is still given, and given again from the recorded write", async () => {
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
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await total()).toBe(1);
  });

  it('the same key ten times at once makes one customer; each answer is the first or its replay, no 409', async () => {
    const { post, total } = await setup();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('k-5')));
    expect(await total()).toBe(1);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
  });
});

/** Rows per table: what a request made, or did not make twice. */
async function counts(store: Store): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await store.read(() => get((q) => q.selectFrom(table).select((eb) => eb.fn.countAll().as('n'))));
    result[table] = Number(row!.n);
  }
  return result;
}

/** What a server killed between a write's commit and the storing of its answer leaves: the key and its writes. */
const loseAnswer = (store: Store, key: string) =>
  store.write(() =>
    run((q) =>
      q.updateTable('idempotency_keys').set({ status: null, headers: null, body: null }).where('key', '=', key),
    ),
  );

type Post = [method: string, path: string, attributes?: Record<string, unknown>, type?: string];

const keyed = ([method, path, attributes, type]: Post, key: string) => ({
  method,
  path,
  body: attributes ? JSON.stringify({ data: { type, attributes } }) : undefined,
  idempotencyKey: key,
});

describe('Idempotency-Key of a request cut off after it wrote (the server killed before it stored the answer)', () => {
  /** Every POST route, each with what it needs made first. */
  async function arrange(core: TestCore) {
    const account = await core.account();
    const router = createRouter({ store: core.store, clock: fixedClock(TEST_NOW), baseUrl: 'http://x' });
    const send = async (post: Post, key?: string) =>
      (await router.handle(keyed(post, key!), account)) as ApiResponse & { body: any };
    const made = async (post: Post) => (await send(post)).body.data.id as string;
    const jan = { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' };
    const customer = await made(['POST', '/customers', jan, 'customer']);
    const plan = await makePlan(core);
    const hook = { subscription_webhook_url: 'https://hooks.example.com/s' };
    const subscribe = { customer_id: customer, subscription_plan_id: plan, status: 'active', ...hook };
    const confirmed = { ...subscribe, confirmation_sent: true };
    const subscription = Number(await made(['POST', '/subscriptions', confirmed, 'subscription']));
    const invoice = await made(['POST', '/invoices', { subscription_id: subscription }, 'invoice']);
    const line = { invoice_id: Number(invoice), description: 'lunchbox', amount: 10, tax_rate: 21, quantity: 2 };
    expect((await send(['POST', '/invoice-lines', line, 'invoice-line'])).status).toBe(201);
    expect((await send(['PATCH', `/invoices/${invoice}/finalise`])).status).toBe(200);
    const [delivery] = await core.store.read(() =>
      all((q) => q.selectFrom('webhook_deliveries').select('id').orderBy('id').limit(1)),
    );
    await core.store.write(() =>
      run((q) =>
        q.updateTable('webhook_deliveries').set({ status: 'failed', attempts: 10 }).where('id', '=', delivery.id),
      ),
    );
    const draft = await made(['POST', '/invoices', { subscription_id: subscription }, 'invoice']);
    const manual = { subscription_id: subscription, amount: '3.00', due_date: '2026-12-20' };
    const posts: Post[] = [
      ['POST', '/customers', { first_name: 'Piet', last_name: 'Pietersen', email: 'piet@example.com' }, 'customer'],
      ['POST', '/subscriptions', { ...subscribe, confirmation_sent: false }, 'subscription'],
      ['POST', '/transactions', manual, 'transaction'],
      ['POST', '/invoices', { subscription_id: subscription }, 'invoice'],
      ['POST', '/invoice-lines', { ...line, invoice_id: Number(draft) }, 'invoice-line'],
      ['POST', `/invoices/${invoice}/credit`],
      ['POST', `/webhook-deliveries/${delivery.id}/retry`],
    ];
    return { account, posts, send };
  }

  it('every POST route answers the key again with its first answer, an hour on too, making nothing twice', async () => {
    const core = await testCore();
    const { account, posts, send } = await arrange(core);
    const anHourOn = fixedClock('2026-11-21T11:00:00.000Z');
    const later = createRouter({ store: core.store, clock: anHourOn, baseUrl: 'http://x' });
    for (const [n, post] of posts.entries()) {
      const key = `lost-${n}`;
      const path = post[1];
      const shown = (answer: ApiResponse) => ({
        path,
        status: answer.status,
        location: answer.headers.location,
        body: answer.body,
      });
      const first = await send(post, key);
      expect(first.status, `${path}: ${JSON.stringify(first.body)}`).toBeLessThan(300);
      await loseAnswer(core.store, key);
      const before = await counts(core.store);
      const again = await later.handle(keyed(post, key), account);
      expect(shown(again)).toEqual(shown(first));
      expect(again.headers['idempotent-replayed'], path).toBe('true');
      expect(await counts(core.store), `${path}: nothing made or changed again`).toEqual(before);
      // Its answer is stored now: given as it is.
      expect(shown(await later.handle(keyed(post, key), account))).toEqual(shown(first));
    }
  }, 90_000);

  /**
   * A request of two writes (two customers), answered with both ids; `cut` throws as a killed
   * server stops: before its first write, after the first, or after the second.
   */
  async function twoWrites() {
    const core = await testCore();
    const account = await core.account();
    const request = { method: 'POST', path: '/customers', body: '{}', idempotencyKey: 'two' };
    const made = async (store: Store, clock: Clock, last: string) => {
      const attributes = { first_name: 'Jan', last_name: last, email: `${last}@example.com` };
      const result = await createCustomer({ store, clock, account }, attributes);
      if (!result.ok) throw new Error('refused');
      return result.value.customer.id;
    };
    const handle =
      (cut?: 0 | 1 | 2) =>
      async (store: Store, clock: Clock): Promise<ApiResponse> => {
        if (cut === 0) throw new Error('killed');
        const a = await made(store, clock, 'a');
        if (cut === 1) throw new Error('killed');
        await new Promise((resolve) => setTimeout(resolve, 5));
        const b = await made(store, clock, 'b');
        if (cut === 2) throw new Error('killed');
        return { status: 201, headers: {}, body: { ids: [a, b] } };
      };
    const send = (cut?: 0 | 1 | 2, clock: Clock = core.clock) =>
      answerOnce(core.store, clock, account, request, handle(cut));
    const customers = async () => {
      const rows = await core.store.read(() =>
        all((q) => q.selectFrom('customers').select(['id', 'last_name']).orderBy('id')),
      );
      return rows.map((c) => ({ id: c.id, last_name: c.last_name }));
    };
    return { core, account, request, send, customers };
  }

  it('several writes cut off after the first go on from it: the first not done again, the second once', async () => {
    const { send, customers } = await twoWrites();
    await expect(send(1)).rejects.toThrow('killed');
    const [a, ...none] = await customers();
    expect({ a: a.last_name, none }).toEqual({ a: 'a', none: [] });
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const both = await customers();
    expect(both.map((c) => c.last_name)).toEqual(['a', 'b']);
    expect(both[0]).toEqual(a);
    expect(again.body).toEqual({ ids: both.map((c) => c.id) });
    expect((await send()).body).toEqual(again.body);
    expect(await customers()).toEqual(both);
  });

  it('several writes cut off after the last, before the answer: answered from both, none done again', async () => {
    const { send, customers } = await twoWrites();
    await expect(send(2)).rejects.toThrow('killed');
    const both = await customers();
    expect(both).toHaveLength(2);
    const again = await send(undefined, fixedClock('2026-11-21T18:00:00.000Z'));
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ ids: both.map((c) => c.id) });
    expect(await customers()).toEqual(both);
  });

  it('cut off before its first write committed: no key left, so sent again it is carried out as new', async () => {
    const { send, customers } = await twoWrites();
    await expect(send(0)).rejects.toThrow('killed');
    expect(await customers()).toEqual([]);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await customers()).toHaveLength(2);
  });

  it('several writes, run at once (the first and clients sending it again): each write once, one answer', async () => {
    const { send, customers } = await twoWrites();
    const answers = await Promise.all(Array.from({ length: 6 }, () => send()));
    expect(await customers()).toHaveLength(2);
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
  });

  it('judged differently when sent again than when it wrote: 409, nothing done again, no answer kept', async () => {
    const { core, account, request, send, customers } = await twoWrites();
    await expect(send(1)).rejects.toThrow('killed');
    const refuse = (): Promise<ApiResponse> => Promise.resolve({ status: 400, headers: {} });
    const refused = await answerOnce(core.store, core.clock, account, request, refuse);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ errors: [{ detail: expect.stringContaining('cannot be made again') }] });
    expect(await customers()).toHaveLength(1);
    expect((await send()).status).toBe(201);
    expect(await customers()).toHaveLength(2);
  });
});
