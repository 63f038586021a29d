// The webhook outbox on the run's engine: events and their deliveries are written in the change's
// own transaction; a sender posts them signed, retries a failing receiver on the store's clock with
// the same delivery id, gives up after about a day, and two senders never send one delivery twice
// at once. Signatures are checked here with node:crypto directly, not with the sender's code.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_DELAYS_S, retryDelivery } from '../../src/lib/core/outbox.js';
import { isPrivateAddress } from '../../src/lib/core/webhooks.js';
import { WebhookSender } from '../../src/lib/runtime/webhooks.js';
import { all } from '../../src/lib/store/unit.js';
import { context, createCustomer, makePlan, send, TestClock, VALID_IBAN } from '../api/support.js';
import { testCore, type TestCore } from '../helpers/store.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A receiver on 127.0.0.1 answering each request with what `answer` says (a status, or never). */
async function receiver(answer: (n: number, r: Received) => number | 'hang' = () => 200): Promise<{ url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const r = { path: req.url!, headers: req.headers, body };
      got.push(r);
      const status = answer(got.length, r);
      if (status === 'hang') return;
      res.writeHead(status).end();
    });
  });
  server.keepAliveTimeout = 100;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

/** The signature as a receiver checks it, written from the documentation's recipe. */
function verify(secret: string, r: Received): boolean {
  const header = String(r.headers['billing-signature']);
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${r.body}`).digest('hex');
  return expected === match[2] && Math.abs(Date.now() / 1000 - Number(match[1])) < 300;
}

const subscriptionBody = (attributes: Record<string, unknown>) => ({ data: { type: 'subscription', attributes } });

async function setup(clock = new TestClock()): Promise<{ core: TestCore; clock: TestClock; customer: string; plan: number; secret: string }> {
  const core = await testCore({ clock });
  const customer = await createCustomer(core, { first_name: 'Ann', last_name: 'Bee', email: 'ann@example.com', iban: VALID_IBAN, bank_holder: 'Ann Bee' });
  const plan = await makePlan(core);
  return { core, clock, customer, plan, secret: (await core.account()).webhook_secret };
}

const deliveries = (core: TestCore) => core.store.read(() => all((q) => q.selectFrom('webhook_deliveries').selectAll().orderBy('id')));
const events = (core: TestCore) => core.store.read(() => all((q) => q.selectFrom('events').selectAll().orderBy('id')));

describe('the outbox', () => {
  it('writes each event with one delivery per URL, in the change’s transaction; a refused request writes none', async () => {
    const { core, customer, plan } = await setup();
    const made = await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan, status: 'active', subscription_webhook_url: 'https://hooks.example.com/s', transaction_webhook_url: 'https://hooks.example.com/t' }),
    });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    const evs = await events(core);
    expect(evs.map((e) => [e.name, e.status])).toEqual([
      ['subscription.status', 'unverified'],
      ['subscription.status', 'active'],
      ['transaction.status', 'queued'],
      ['transaction.status', 'scheduled'],
    ]);
    const ds = await deliveries(core);
    // A transaction's event goes to the subscription's transaction URL and to the transaction's own, here the same URL: once.
    expect(ds.map((d) => [d.event, d.url, d.status, d.attempts])).toEqual([
      ['subscription.unverified', 'https://hooks.example.com/s', 'pending', 0],
      ['subscription.active', 'https://hooks.example.com/s', 'pending', 0],
      ['transaction.queued', 'https://hooks.example.com/t', 'pending', 0],
      ['transaction.scheduled', 'https://hooks.example.com/t', 'pending', 0],
    ]);
    expect(ds.map((d) => d.event_uid)).toEqual(evs.map((e) => e.uid));
    expect(new Set(ds.map((d) => d.delivery_id)).size).toBe(4);
    const tx = evs[2]!.transaction_id;
    expect(JSON.parse(ds[1]!.body)).toEqual({ subscription_id: id, status: 'active' });
    expect(JSON.parse(ds[3]!.body)).toEqual({ subscription_id: id, transaction_id: tx, status: 'scheduled' });

    // Refused (activating a cancelled subscription): no event, no delivery.
    expect((await send(core, 'PATCH', `/subscriptions/${id}`, { body: { data: { type: 'subscription', id, attributes: { status: 'cancelled' } } } })).status).toBe(200);
    const before = [(await events(core)).length, (await deliveries(core)).length];
    const refused = await send(core, 'PATCH', `/subscriptions/${id}`, { body: { data: { type: 'subscription', id, attributes: { status: 'active' } } } });
    expect(refused.status).toBe(400);
    expect([(await events(core)).length, (await deliveries(core)).length]).toEqual(before);
  });

  it('a subscription without webhook URLs has events and no deliveries', async () => {
    const { core, customer, plan } = await setup();
    expect((await send(core, 'POST', '/subscriptions', { body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan }) })).status).toBe(201);
    expect((await events(core)).length).toBe(1);
    expect(await deliveries(core)).toEqual([]);
  });
});

describe('a sender', () => {
  it('retries a receiver that fails three times, on the store’s clock, with the same delivery id and a valid signature each time', async () => {
    const { core, clock, customer, plan, secret } = await setup();
    const hook = await receiver((n) => (n <= 3 ? 500 : 204));
    const made = await send(core, 'POST', '/subscriptions', { body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan, subscription_webhook_url: `${hook.url}/s` }) });
    const sender = new WebhookSender(core.store, core.clock, { allowPrivate: true });
    try {
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 1, left: false });
      let [row] = await deliveries(core);
      expect([row!.status, row!.attempts, row!.last_status, row!.last_error]).toEqual(['pending', 1, 500, 'answered 500']);
      expect(row!.next_at).toBe(new Date(clock.ms + RETRY_DELAYS_S[0] * 1000).toISOString());
      // Not due yet: nothing is sent.
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 0, left: false });
      expect(hook.got).toHaveLength(1);
      for (const wait of RETRY_DELAYS_S.slice(0, 3)) {
        clock.advance(wait * 1000);
        await sender.deliver();
      }
      [row] = await deliveries(core);
      expect([row!.status, row!.attempts, row!.last_status]).toEqual(['delivered', 4, 204]);
      expect(hook.got).toHaveLength(4);
      expect(new Set(hook.got.map((r) => r.headers['billing-delivery']))).toEqual(new Set([row!.delivery_id]));
      for (const r of hook.got) {
        expect(verify(secret, r)).toBe(true);
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['billing-event']).toBe('subscription.unverified');
        expect(r.path).toBe('/s');
        expect(JSON.parse(r.body)).toEqual({ subscription_id: made.body.data.id, status: 'unverified' });
      }
      // A signature with another secret does not verify.
      expect(verify(`${secret}x`, hook.got[0]!)).toBe(false);
    } finally {
      sender.close();
    }
  });

  it('gives up after about a day of retries (failed), and a retry by hand sends it again with the same delivery id', async () => {
    const { core, clock, customer, plan } = await setup();
    let down = true;
    const hook = await receiver(() => (down ? 503 : 200));
    await send(core, 'POST', '/subscriptions', { body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan, subscription_webhook_url: `${hook.url}/s` }) });
    const sender = new WebhookSender(core.store, core.clock, { allowPrivate: true });
    try {
      const start = clock.ms;
      await sender.deliver();
      for (const wait of RETRY_DELAYS_S) {
        clock.advance(wait * 1000);
        await sender.deliver();
      }
      const [row] = await deliveries(core);
      expect([row!.status, row!.attempts, row!.last_status]).toEqual(['failed', MAX_ATTEMPTS, 503]);
      const hours = (clock.ms - start) / 3_600_000;
      expect(hours).toBeGreaterThan(20);
      expect(hours).toBeLessThan(30);
      clock.advance(7 * 24 * 3_600_000);
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 0, left: false });
      expect(hook.got).toHaveLength(MAX_ATTEMPTS);

      down = false;
      const retried = await retryDelivery(await context(core), row!.id);
      expect(retried.ok && [retried.value.status, retried.value.attempts]).toEqual(['pending', 0]);
      expect(await sender.deliver()).toEqual({ delivered: 1, failed: 0, left: false });
      expect(hook.got.at(-1)!.headers['billing-delivery']).toBe(row!.delivery_id);
      expect((await deliveries(core))[0]!.status).toBe('delivered');
      // Already due: a second retry by hand is refused and changes nothing.
      expect((await retryDelivery(await context(core), row!.id)).ok).toBe(true);
      const again = await retryDelivery(await context(core), row!.id);
      expect(again.ok ? 'ok' : again.failure.kind).toBe('invalid_state');
      expect((await retryDelivery(await context(core), 999_999)).ok).toBe(false);
    } finally {
      sender.close();
    }
  });

  it('counts no answer within the timeout as a failed attempt', async () => {
    const { core, customer, plan } = await setup();
    const hook = await receiver(() => 'hang');
    await send(core, 'POST', '/subscriptions', { body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan, subscription_webhook_url: `${hook.url}/s` }) });
    const sender = new WebhookSender(core.store, core.clock, { allowPrivate: true, timeoutMs: 300 });
    try {
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 1, left: false });
      const [row] = await deliveries(core);
      expect([row!.status, row!.attempts, row!.last_status, row!.last_error]).toEqual(['pending', 1, null, 'no answer within 0.3 s']);
    } finally {
      sender.close();
    }
  });

  it('stopped by its deadline, lets the delivery go untried (no attempt counted)', async () => {
    const { core, customer, plan } = await setup();
    const hook = await receiver(() => 'hang');
    await send(core, 'POST', '/subscriptions', { body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan, subscription_webhook_url: `${hook.url}/s` }) });
    const sender = new WebhookSender(core.store, core.clock, { allowPrivate: true });
    try {
      const report = await sender.deliver({ deadline: Date.now() + 300 });
      expect(report).toEqual({ delivered: 0, failed: 0, left: true });
      const [row] = await deliveries(core);
      expect([row!.status, row!.attempts, row!.claimed_by, row!.claimed_until]).toEqual(['pending', 0, null, null]);
    } finally {
      sender.close();
    }
  });

  it('two senders at once send every delivery once', async () => {
    const { core, customer, plan } = await setup();
    const hook = await receiver();
    for (let i = 0; i < 20; i++) {
      const made = await send(core, 'POST', '/subscriptions', { body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan, status: 'active', subscription_webhook_url: `${hook.url}/s`, transaction_webhook_url: `${hook.url}/t` }) });
      expect(made.status).toBe(201);
    }
    const total = (await deliveries(core)).length;
    expect(total).toBe(80);
    const a = new WebhookSender(core.store, core.clock, { allowPrivate: true, batch: 7, concurrency: 4 });
    const b = new WebhookSender(core.store, core.clock, { allowPrivate: true, batch: 7, concurrency: 4 });
    try {
      const [ra, rb] = await Promise.all([a.deliver(), b.deliver()]);
      expect(ra.delivered + rb.delivered).toBe(total);
      const ids = hook.got.map((r) => String(r.headers['billing-delivery']));
      expect(ids).toHaveLength(total);
      expect(new Set(ids).size).toBe(total);
      expect((await deliveries(core)).every((d) => d.status === 'delivered')).toBe(true);
    } finally {
      a.close();
      b.close();
    }
  });

  it('refuses, when told to, URLs that are or resolve to private addresses, at delivery time', async () => {
    const { core, customer, plan } = await setup();
    const hook = await receiver();
    const port = new URL(hook.url).port;
    // This machine's own name resolves (through /etc/hosts) to a loopback or private address.
    const name = hostname();
    const resolved = await lookup(name, { all: true });
    expect(resolved.length > 0 && resolved.every((a) => isPrivateAddress(a.address)), `${name} should resolve to a private address: ${JSON.stringify(resolved)}`).toBe(true);
    await send(core, 'POST', '/subscriptions', { body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan, subscription_webhook_url: `http://${name}:${port}/s` }) });
    await send(core, 'POST', '/subscriptions', { body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan, subscription_webhook_url: `http://127.0.0.1:${port}/s` }) });
    const guarded = new WebhookSender(core.store, core.clock, { allowPrivate: false });
    try {
      expect(await guarded.deliver()).toEqual({ delivered: 0, failed: 2, left: false });
    } finally {
      guarded.close();
    }
    expect(hook.got).toHaveLength(0);
    const errors = (await deliveries(core)).map((d) => d.last_error);
    expect(errors[0]).toMatch(new RegExp(`^refused: ${name} resolves to .*a private address$`));
    expect(errors[1]).toBe('refused: the URL names a loopback or private address');
  });
});
