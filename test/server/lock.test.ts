// `billing serve` on SQLite while another process (a child of its own) holds the store's write lock
// with BEGIN IMMEDIATE: reads keep being answered, a write waits for the lock without holding up
// the server and gives up after BILLING_BUSY_MS with 503 and nothing written, and due work and
// webhook sending skip their turns without a word and catch up once the lock is free. The server
// is the built CLI in a child process, as deployed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rotateKey } from '../../src/lib/core/accounts.js';
import { systemClock } from '../../src/lib/core/clock.js';
import { all } from '../../src/lib/store/unit.js';
import { startPages } from '../browser/fixture.js';
import { createCustomer, makePlan, send, VALID_IBAN } from '../api/support.js';
import { BIN, ensureBundle, TEST_CONFIG_DIR, watchServe, type ServeChild } from '../helpers/cli.js';
import { within } from '../helpers/children.js';
import { holdWriteLock } from '../helpers/lock.js';
import { storeWithAccount, tempDbPath, testCore } from '../helpers/store.js';

// Built again when the bundle predates the bound on waiting for the lock.
beforeAll(() => ensureBundle('BILLING_BUSY_MS'), 120_000);

const children: ChildProcess[] = [];
const receivers: Server[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(
    receivers.splice(0).map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))),
  );
});

function serve(dbPath: string, env: Record<string, string> = {}, flags: string[] = []): ServeChild {
  const child = spawn(process.execPath, [BIN, '--db', dbPath, 'serve', '--port', '0', ...flags], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return watchServe(child);
}

/**
 * SIGTERM, exit 0, and every line it wrote: nothing but requests, listening and stopping (no error,
 * no "database is locked").
 */
async function stopQuietly(server: ServeChild): Promise<string[]> {
  server.child.kill('SIGTERM');
  expect(await within(server.exited, 15_000, 'billing serve to exit')).toBe(0);
  const lines = server
    .output()
    .stderr.split('\n')
    .filter((line) => line !== '');
  const unexpected = lines.filter(
    (line) =>
      !/^(GET|POST|PATCH|DELETE) \S+ \d{3} \d+ms$/.test(line) &&
      !/^billing serve: (listening on|shutting down|stopped)/.test(line),
  );
  expect(unexpected).toEqual([]);
  return lines;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(50);
  }
}

const customer = (n: number) =>
  JSON.stringify({
    data: {
      type: 'customer',
      attributes: { first_name: 'Jan', last_name: `Jansen ${n}`, email: `jan${n}@example.com` },
    },
  });

function client(url: string, key: string) {
  const headers = { 'x-authorization': key, 'content-type': 'application/vnd.api+json' };
  return {
    get: (path: string) => fetch(`${url}${path}`, { headers }),
    post: (path: string, body: string, extra: Record<string, string> = {}) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body }),
    count: async () => (await (await fetch(`${url}/customers`, { headers })).json()).meta.total as number,
  };
}

/** billing serve on a store with customer 1, waiting BILLING_BUSY_MS `busyMs` for the lock a child then holds. */
async function servedAndLocked(busyMs: string) {
  const { dbPath, key } = await storeWithAccount();
  const server = serve(dbPath, { BILLING_BUSY_MS: busyMs });
  const api = client(`http://127.0.0.1:${await server.port}`, key);
  expect((await api.post('/customers', customer(1))).status).toBe(201);
  return { server, api, key, holder: await holdWriteLock(dbPath) };
}

describe('billing serve while another process holds the SQLite write lock', () => {
  it('answers GETs while a POST waits for the lock; the POST succeeds once the lock is let go', async () => {
    const { server, api, holder } = await servedAndLocked('60000');
    let postAnswered = false;
    const posted = api.post('/customers', customer(2)).finally(() => (postAnswered = true));
    // Over two seconds: the due-work timer and the webhook sender turn every second (each a write
    // that blocked the whole server while the lock was held, before).
    for (let i = 1; i <= 10; i++) {
      const got = await api.get('/customers/1');
      expect(got.status).toBe(200);
      expect((await got.json()).data.attributes.last_name).toBe('Jansen 1');
      expect(postAnswered, `GET ${i} was answered only after the waiting POST`).toBe(false);
      await sleep(200);
    }
    expect(await api.count()).toBe(1);
    await holder.release();
    expect((await posted).status).toBe(201);
    expect(await api.count()).toBe(2);
    const lines = await stopQuietly(server);
    expect(lines.filter((line) => line.startsWith('GET /customers/1 200'))).toHaveLength(10);
  }, 120_000);

  it('answers a write the lock outlasts 503 with Retry-After, writing nothing (nor its key)', async () => {
    const { server, api, holder, key } = await servedAndLocked('1000');
    const refused = await api.post('/customers', customer(2), { 'idempotency-key': 'lock-1' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      errors: [
        {
          status: '503',
          title: 'Service Unavailable',
          detail: 'the store is busy: another process holds its write lock; the request changed nothing, send it again',
        },
      ],
    });
    const patched = await fetch(`http://127.0.0.1:${await server.port}/customers/1`, {
      method: 'PATCH',
      headers: { 'x-authorization': key, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'customer', id: '1', attributes: { city: 'Utrecht' } } }),
    });
    expect(patched.status).toBe(503);
    await holder.release();

    expect(await api.count()).toBe(1);
    expect((await (await api.get('/customers/1')).json()).data.attributes.city).not.toBe('Utrecht');
    // The key was not kept: the same request, sent again, is carried out (not replayed, not 409).
    const again = await api.post('/customers', customer(2), { 'idempotency-key': 'lock-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await api.count()).toBe(2);
    const lines = await stopQuietly(server);
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/customers 503 \d+ms$/));
  }, 120_000);

  it('starts while the lock is held; due work and webhooks skip turns quietly, then catch up', async () => {
    const hits: string[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => (hits.push(String(req.headers['billing-delivery'])), res.writeHead(200).end()));
    });
    receivers.push(receiver);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    // Made in process, nothing done or sent yet: an active subscription whose first collection
    // is due today, and its webhooks.
    const dbPath = tempDbPath();
    const core = await testCore({ dbPath, clock: systemClock });
    const customerId = await createCustomer(core, {
      first_name: 'Ann',
      last_name: 'Bee',
      email: 'ann@example.com',
      iban: VALID_IBAN,
      bank_holder: 'Ann Bee',
    });
    const plan = await makePlan(core);
    const made = await send(core, 'POST', '/subscriptions', {
      body: {
        data: {
          type: 'subscription',
          attributes: {
            customer_id: customerId,
            subscription_plan_id: plan,
            status: 'active',
            subscription_webhook_url: `${hook}/s`,
            transaction_webhook_url: `${hook}/t`,
          },
        },
      },
    });
    expect(made.status).toBe(201);
    const rotated = await rotateKey(core.store, core.clock, 'default');
    if (!rotated.ok) throw new Error('no key');
    const due = () =>
      core.store.read(() =>
        all((q) => q.selectFrom('due_work').select('id').where('due_at', '<=', new Date().toISOString())),
      );
    const deliveries = () =>
      core.store.read(() => all((q) => q.selectFrom('webhook_deliveries').select(['delivery_id', 'status'])));
    const transactions = async () =>
      (await core.store.read(() => all((q) => q.selectFrom('transactions').select('status').orderBy('seq')))).map(
        (t) => t.status,
      );
    expect((await due()).length).toBeGreaterThan(0);
    expect((await deliveries()).length).toBeGreaterThan(0);

    const holder = await holdWriteLock(dbPath);
    const server = serve(dbPath, {}, ['--allow-private-webhooks']);
    const api = client(`http://127.0.0.1:${await server.port}`, rotated.value.apiKey);
    // Listening with the lock held; reads answered; a few turns of the timers go by.
    for (let i = 0; i < 8; i++) {
      expect((await api.get(`/subscriptions/${made.body.data.id}`)).status).toBe(200);
      await sleep(250);
    }
    expect(hits).toEqual([]);
    expect((await due()).length).toBeGreaterThan(0);
    expect(await transactions()).toEqual(['scheduled']);
    await holder.release();

    await until(
      'the due collection and every webhook',
      async () =>
        (await due()).length === 0 && (await deliveries()).every((d) => d.status === 'delivered') && hits.length > 0,
    );
    // Collected, and the next one scheduled a period on.
    expect(await transactions()).toEqual(['succeeded', 'scheduled']);
    expect(new Set(hits)).toEqual(new Set((await deliveries()).map((d) => d.delivery_id)));
    await stopQuietly(server);
  }, 120_000);

  it("the mandate page's accept the lock outlasts: a 503 page in the customer's language", async () => {
    const f = await startPages({ engine: 'sqlite', busyMs: 300 });
    const plan = await f.plan();
    const customerId = await f.customer({ language: 'en' });
    const sub = await f.subscription({ customer_id: Number(customerId), subscription_plan_id: plan });
    const form = await fetch(sub.confirmationPage, { redirect: 'manual' });
    const raw = await form.text();
    const field = /name="csrf" value="([^"]+)"/.exec(raw)![1];
    const cookie = form.headers.get('set-cookie')!.split(';')[0];
    const accept = () =>
      fetch(sub.confirmationPage, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'accept-language': 'en' },
        body: new URLSearchParams({ csrf: field }).toString(),
      });
    const before = await f.rows('subscriptions', Number(sub.id));

    const holder = await holdWriteLock(f.store.location);
    const busy = await accept();
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await busy.text()).toContain(
      'This could not be recorded just now; nothing was changed. Please try again in a moment.',
    );
    await holder.release();
    expect(await f.rows('subscriptions', Number(sub.id))).toEqual(before);
    expect(f.lines.filter((line) => line.includes('internal error'))).toEqual([]);
    expect((await accept()).status).toBe(303);
  }, 60_000);
});
