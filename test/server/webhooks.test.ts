// Webhooks through billing serve: sent promptly after the write that caused them, even while a
// receiver hangs on the requests it was sent; refused at create when a URL's name resolves to a
// private address; and nothing lost when an instance is killed with SIGKILL in the middle of
// sending: after a restart (SQLite and PostgreSQL), or by the other instance on the same PostgreSQL
// database. The spawned instances are the built CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/core/clock.js';
import { createAccount } from '../../src/lib/core/accounts.js';
import { startServer } from '../../src/lib/runtime/serve.js';
import { openStore, type Engine } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { createCustomer, createSubscription, makePlan, send, VALID_IBAN } from '../api/support.js';
import { BIN, ensureBundle } from '../helpers/cli.js';
import { freshStoreLocation } from '../helpers/engine.js';
import { holdingReceiver } from '../helpers/receivers.js';
import { testCore, type TestCore } from '../helpers/store.js';
import { running, stores } from './servers.js';

const receivers: Server[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(
    receivers.splice(0).map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))),
  );
});

/** A receiver counting deliveries by their id; each answer after `delayMs`. */
async function receiver(delayMs = 0): Promise<{ url: string; ids: string[]; seen: Set<string> }> {
  const ids: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['billing-delivery']));
      setTimeout(() => res.writeHead(200).end(), delayMs);
    });
  });
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ids,
    get seen() {
      return new Set(ids);
    },
  };
}

/** A receiver that leaves every request unanswered until released, then answers those and all later ones. */
const holding = () => holdingReceiver(receivers);

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const subscription = (customer: string, plan: number, hook: string) => ({
  data: {
    type: 'subscription',
    attributes: {
      customer_id: customer,
      subscription_plan_id: plan,
      status: 'active',
      subscription_webhook_url: `${hook}/s`,
      transaction_webhook_url: `${hook}/t`,
    },
  },
});

/** A store with `count` active subscriptions whose deliveries (4 each) are all still pending: made in process, nothing sent. */
async function storeWithPending(
  engine: Engine,
  count: number,
  hook: string,
): Promise<{ location: string; core: TestCore; total: number }> {
  const location = await freshStoreLocation(engine);
  const core = await testCore({ dbPath: location, clock: systemClock });
  const customer = await createCustomer(core, {
    first_name: 'Ann',
    last_name: 'Bee',
    email: 'ann@example.com',
    iban: VALID_IBAN,
    bank_holder: 'Ann Bee',
  });
  const plan = await makePlan(core);
  for (let i = 0; i < count; i++)
    expect((await send(core, 'POST', '/subscriptions', { body: subscription(customer, plan, hook) })).status).toBe(201);
  const total = (await deliveryIds(core)).length;
  return { location, core, total };
}

const deliveryIds = (core: TestCore) =>
  core.store.read(() => all((q) => q.selectFrom('webhook_deliveries').select(['delivery_id', 'status']).orderBy('id')));

function serve(
  location: string,
  name: string,
): { child: ChildProcess; stderr: () => string; listening: Promise<void> } {
  const child = spawn(process.execPath, [BIN, '--db', location, 'serve', '--port', '0', '--allow-private-webhooks'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_WEBHOOK_LEASE_MS: '1500' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: not listening within 15 s: ${stderr}`)), 15_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { child, stderr: () => stderr, listening };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGKILL')));

describe('billing serve sends webhooks', () => {
  it('promptly after the write that caused them, signed, with no clock help', async () => {
    const hook = await receiver();
    const dbPath = await freshStoreLocation('sqlite');
    const store = await openStore(dbPath);
    stores.push(store);
    const made = await createAccount(store, systemClock, 'alpha');
    if (!made.ok) throw new Error('no account');
    const key = made.value.apiKey;
    // The timer is off: only the write's prompt can send them.
    const server = await startServer({
      store,
      clock: systemClock,
      host: '127.0.0.1',
      port: 0,
      allowPrivateWebhooks: true,
      deliverEveryMs: 0,
      dueEveryMs: 0,
      log: () => {},
    });
    running.push(server);
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'x-authorization': key, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify(body),
      });
    const customer = await (
      await post('/customers', {
        data: {
          type: 'customer',
          attributes: { first_name: 'A', last_name: 'B', email: 'a@b.nl', iban: VALID_IBAN, bank_holder: 'A B' },
        },
      })
    ).json();
    const { createPlan } = await import('../../src/lib/core/plan-writes.js');
    const plan = await createPlan(
      { store, clock: systemClock, account: made.value.account },
      { name: 'Gold', amount: '10.00' },
    );
    if (!plan.ok) throw new Error('no plan');
    const started = Date.now();
    expect((await post('/subscriptions', subscription(customer.data.id, plan.value.id, hook.url))).status).toBe(201);
    await until('four deliveries', () => hook.ids.length >= 4, 5_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(hook.seen.size).toBe(4);
  });

  it('refuses (400, with the pointer) a webhook URL whose name resolves to a private address, unless allowed', async () => {
    const dbPath = await freshStoreLocation('sqlite');
    const store = await openStore(dbPath);
    stores.push(store);
    const made = await createAccount(store, systemClock, 'alpha');
    if (!made.ok) throw new Error('no account');
    const server = await startServer({ store, clock: systemClock, host: '127.0.0.1', port: 0, log: () => {} });
    running.push(server);
    const headers = { 'x-authorization': made.value.apiKey, 'content-type': 'application/vnd.api+json' };
    const customer = await (
      await fetch(`${server.url}/customers`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          data: { type: 'customer', attributes: { first_name: 'A', last_name: 'B', email: 'a@b.nl' } },
        }),
      })
    ).json();
    const { createPlan } = await import('../../src/lib/core/plan-writes.js');
    const plan = await createPlan(
      { store, clock: systemClock, account: made.value.account },
      { name: 'Gold', amount: '10.00' },
    );
    if (!plan.ok) throw new Error('no plan');
    const create = (url: string) =>
      fetch(`${server.url}/subscriptions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          data: {
            type: 'subscription',
            attributes: {
              customer_id: customer.data.id,
              subscription_plan_id: plan.value.id,
              transaction_webhook_url: url,
            },
          },
        }),
      });
    // This machine's name resolves (through /etc/hosts) to a loopback or private address.
    for (const url of [
      `http://${hostname()}:9/hook`,
      'http://127.0.0.1:9/hook',
      'http://[::ffff:10.0.0.1]/hook',
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const answer = await create(url);
      expect(answer.status, url).toBe(400);
      const body = await answer.json();
      expect(body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual([
        '/data/attributes/transaction_webhook_url',
      ]);
    }
    const count = await store.read(() => all((q) => q.selectFrom('subscriptions').select('id')));
    expect(count).toEqual([]);
    // A name that does not resolve here passes (the sender checks again when it connects).
    expect((await create('https://hooks.example.invalid/billing')).status).toBe(201);
  });
});

describe.each(['sqlite', 'postgres'] as const)('a receiver that hangs (%s)', (engine) => {
  // Its requests wait, 200 more due, and are no more than its share.
  it('delays nobody else: another tenant’s delivery goes out while its requests wait', async () => {
    const hanging = await holding();
    const other = await receiver();
    const location = await freshStoreLocation(engine);
    // 200 deliveries due to the hanging receiver, written by the CLI before the server starts.
    const core = await testCore({ dbPath: location, clock: systemClock });
    const customer = await createCustomer(core, {
      first_name: 'Ann',
      last_name: 'Bee',
      email: 'ann@example.com',
      iban: VALID_IBAN,
      bank_holder: 'Ann Bee',
    });
    const plan = await makePlan(core);
    for (let i = 0; i < 200; i++)
      await createSubscription(core, {
        customer_id: customer,
        subscription_plan_id: plan,
        subscription_webhook_url: `${hanging.url}/s`,
      });
    const store = await openStore(location);
    stores.push(store);
    const tenant = await createAccount(store, systemClock, 'tenant');
    if (!tenant.ok) throw new Error('no account');
    const server = await startServer({
      store,
      clock: systemClock,
      host: '127.0.0.1',
      port: 0,
      allowPrivateWebhooks: true,
      dueEveryMs: 0,
      log: () => {},
    });
    running.push(server);
    try {
      await until('the hanging receiver’s first requests', () => hanging.got.length >= 2, 10_000);
      // Another tenant's change, through the API, while those wait.
      const headers = { 'x-authorization': tenant.value.apiKey, 'content-type': 'application/vnd.api+json' };
      const post = async (path: string, type: string, attributes: Record<string, unknown>) => {
        const answer = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ data: { type, attributes } }),
        });
        expect(answer.status).toBe(201);
        return (await answer.json()).data.id as string;
      };
      const { createPlan } = await import('../../src/lib/core/plan-writes.js');
      const theirs = await createPlan(
        { store, clock: systemClock, account: tenant.value.account },
        { name: 'Silver', amount: '5.00' },
      );
      if (!theirs.ok) throw new Error('no plan');
      const them = await post('/customers', 'customer', {
        first_name: 'Cy',
        last_name: 'Dee',
        email: 'cy@example.com',
      });
      await post('/subscriptions', 'subscription', {
        customer_id: them,
        subscription_plan_id: theirs.value.id,
        subscription_webhook_url: `${other.url}/s`,
      });
      await until('the other tenant’s delivery', () => other.ids.length === 1, 5_000);
      expect(hanging.got).toHaveLength(2);
    } finally {
      hanging.release();
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)('killed with SIGKILL in the middle of sending (%s)', (engine) => {
  it('delivers the rest after a restart: every delivery at least once, all marked delivered', async () => {
    ensureBundle();
    // Slow enough to be killed mid-way, quick enough for 2 requests at a time to one receiver.
    const hook = await receiver(30);
    const { location, core, total } = await storeWithPending(engine, 30, hook.url);
    expect(total).toBe(120);
    const first = serve(location, 'first');
    await first.listening;
    await until('some deliveries', () => hook.ids.length >= 20);
    await killed(first.child);
    const before = hook.seen.size;
    expect(before).toBeLessThan(total);
    const second = serve(location, 'second');
    await second.listening;
    await until(
      `all ${total} deliveries (got ${hook.seen.size}); stderr: ${second.stderr()}`,
      async () => (await deliveryIds(core)).every((d) => d.status === 'delivered'),
      30_000,
    );
    const rows = await deliveryIds(core);
    expect(new Set(rows.map((r) => r.delivery_id))).toEqual(hook.seen);
    second.child.kill('SIGTERM');
  });
});

describe('two instances on one PostgreSQL database', () => {
  it('one killed mid-way, the other delivers everything; only what the killed one held may arrive twice', async () => {
    ensureBundle();
    const hook = await receiver(30);
    const { location, core, total } = await storeWithPending('postgres', 40, hook.url);
    const a = serve(location, 'a');
    const b = serve(location, 'b');
    await Promise.all([a.listening, b.listening]);
    await until('some deliveries', () => hook.ids.length >= 30);
    await killed(a.child);
    await until(
      `all ${total} deliveries; stderr b: ${b.stderr()}`,
      async () => (await deliveryIds(core)).every((d) => d.status === 'delivered'),
      30_000,
    );
    expect(hook.seen).toEqual(new Set((await deliveryIds(core)).map((d) => d.delivery_id)));
    // Sent twice only where the killed instance's claims lapsed: at most the rows it held.
    expect(hook.ids.length - hook.seen.size).toBeLessThanOrEqual(64);
    b.child.kill('SIGTERM');
  });
});
