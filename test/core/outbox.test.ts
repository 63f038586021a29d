// The webhook outbox on the run's engine: events and their deliveries are written in the change's
// own transaction; a sender posts them signed, retries a failing receiver on the store's clock with
// the same delivery id, gives up after about a day, and two senders never send one delivery twice
// at once. Fairness: a hanging receiver gets at most its share of requests and delays no other;
// claims rank due rows across hosts and accounts; a host that timed out is held back by every sender
// until its back-off ends. Each delivery carries the private-address policy of whoever wrote it, and
// every sender obeys it. Signatures are checked here with node:crypto directly, not with the sender's code.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import {
  claimDeliveries,
  hostBackoff,
  MAX_ATTEMPTS,
  RETRY_DELAYS_S,
  retryDelivery,
} from '../../src/lib/core/outbox.js';
import { runDue } from '../../src/lib/core/due.js';
import { hostKey, isPrivateAddress } from '../../src/lib/core/webhooks.js';
import { createRouter } from '../../src/lib/api/router.js';
import { WebhookSender } from '../../src/lib/runtime/webhooks.js';
import { all, run } from '../../src/lib/store/unit.js';
import { context, createCustomer, makePlan, send, TestClock, VALID_IBAN, type Answer } from '../api/support.js';
import { holdingReceiver, type Received } from '../helpers/receivers.js';
import { testCore, type TestCore } from '../helpers/store.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A receiver on 127.0.0.1 answering each request with what `answer` says (a status, or never). */
async function receiver(
  answer: (n: number, r: Received) => number | 'hang' = () => 200,
): Promise<{ url: string; got: Received[] }> {
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

async function setup(
  clock = new TestClock(),
): Promise<{ core: TestCore; clock: TestClock; customer: string; plan: number; secret: string }> {
  const core = await testCore({ clock });
  const customer = await createCustomer(core, {
    first_name: 'Ann',
    last_name: 'Bee',
    email: 'ann@example.com',
    iban: VALID_IBAN,
    bank_holder: 'Ann Bee',
  });
  const plan = await makePlan(core);
  return { core, clock, customer, plan, secret: (await core.account()).webhook_secret };
}

/** A receiver that leaves every request unanswered until released; then it answers those, and every later one, 200. */
const holding = () => holdingReceiver(servers);

/** Polls until `check` holds, for at most `ms`. */
async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const deliveries = (core: TestCore) =>
  core.store.read(() => all((q) => q.selectFrom('webhook_deliveries').selectAll().orderBy('id')));
const events = (core: TestCore) => core.store.read(() => all((q) => q.selectFrom('events').selectAll().orderBy('id')));

describe('the outbox', () => {
  it('writes each event with one delivery per URL, in the change’s transaction; a refused request writes none', async () => {
    const { core, customer, plan } = await setup();
    const made = await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({
        customer_id: customer,
        subscription_plan_id: plan,
        status: 'active',
        subscription_webhook_url: 'https://hooks.example.com/s',
        transaction_webhook_url: 'https://hooks.example.com/t',
      }),
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
    const tx = evs[2].transaction_id;
    expect(JSON.parse(ds[1].body)).toEqual({ subscription_id: id, status: 'active' });
    expect(JSON.parse(ds[3].body)).toEqual({ subscription_id: id, transaction_id: tx, status: 'scheduled' });

    // Refused (activating a cancelled subscription): no event, no delivery.
    expect(
      (
        await send(core, 'PATCH', `/subscriptions/${id}`, {
          body: { data: { type: 'subscription', id, attributes: { status: 'cancelled' } } },
        })
      ).status,
    ).toBe(200);
    const before = [(await events(core)).length, (await deliveries(core)).length];
    const refused = await send(core, 'PATCH', `/subscriptions/${id}`, {
      body: { data: { type: 'subscription', id, attributes: { status: 'active' } } },
    });
    expect(refused.status).toBe(400);
    expect([(await events(core)).length, (await deliveries(core)).length]).toEqual(before);
  });

  it('a subscription without webhook URLs has events and no deliveries', async () => {
    const { core, customer, plan } = await setup();
    expect(
      (
        await send(core, 'POST', '/subscriptions', {
          body: subscriptionBody({ customer_id: customer, subscription_plan_id: plan }),
        })
      ).status,
    ).toBe(201);
    expect((await events(core)).length).toBe(1);
    expect(await deliveries(core)).toEqual([]);
  });
});

describe('a sender', () => {
  it('retries a receiver that fails three times, on the store’s clock, with the same delivery id and a valid signature each time', async () => {
    const { core, clock, customer, plan, secret } = await setup();
    const hook = await receiver((n) => (n <= 3 ? 500 : 204));
    const made = await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({
        customer_id: customer,
        subscription_plan_id: plan,
        subscription_webhook_url: `${hook.url}/s`,
      }),
    });
    const sender = new WebhookSender(core.store, core.clock, {});
    try {
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 1, left: false });
      let [row] = await deliveries(core);
      expect([row.status, row.attempts, row.last_status, row.last_error]).toEqual(['pending', 1, 500, 'answered 500']);
      expect(row.next_at).toBe(new Date(clock.ms + RETRY_DELAYS_S[0] * 1000).toISOString());
      // Not due yet: nothing is sent.
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 0, left: false });
      expect(hook.got).toHaveLength(1);
      for (const wait of RETRY_DELAYS_S.slice(0, 3)) {
        clock.advance(wait * 1000);
        await sender.deliver();
      }
      [row] = await deliveries(core);
      expect([row.status, row.attempts, row.last_status]).toEqual(['delivered', 4, 204]);
      expect(hook.got).toHaveLength(4);
      expect(new Set(hook.got.map((r) => r.headers['billing-delivery']))).toEqual(new Set([row.delivery_id]));
      for (const r of hook.got) {
        expect(verify(secret, r)).toBe(true);
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['billing-event']).toBe('subscription.unverified');
        expect(r.path).toBe('/s');
        expect(JSON.parse(r.body)).toEqual({ subscription_id: made.body.data.id, status: 'unverified' });
      }
      // A signature with another secret does not verify.
      expect(verify(`${secret}x`, hook.got[0])).toBe(false);
    } finally {
      sender.close();
    }
  });

  it('gives up after about a day of retries (failed), and a retry by hand sends it again with the same delivery id', async () => {
    const { core, clock, customer, plan } = await setup();
    let down = true;
    const hook = await receiver(() => (down ? 503 : 200));
    await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({
        customer_id: customer,
        subscription_plan_id: plan,
        subscription_webhook_url: `${hook.url}/s`,
      }),
    });
    const sender = new WebhookSender(core.store, core.clock, {});
    try {
      const start = clock.ms;
      await sender.deliver();
      for (const wait of RETRY_DELAYS_S) {
        clock.advance(wait * 1000);
        await sender.deliver();
      }
      const [row] = await deliveries(core);
      expect([row.status, row.attempts, row.last_status]).toEqual(['failed', MAX_ATTEMPTS, 503]);
      const hours = (clock.ms - start) / 3_600_000;
      expect(hours).toBeGreaterThan(20);
      expect(hours).toBeLessThan(30);
      clock.advance(7 * 24 * 3_600_000);
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 0, left: false });
      expect(hook.got).toHaveLength(MAX_ATTEMPTS);

      down = false;
      const retried = await retryDelivery(await context(core), row.id);
      expect(retried.ok && [retried.value.status, retried.value.attempts]).toEqual(['pending', 0]);
      expect(await sender.deliver()).toEqual({ delivered: 1, failed: 0, left: false });
      expect(hook.got.at(-1)!.headers['billing-delivery']).toBe(row.delivery_id);
      expect((await deliveries(core))[0].status).toBe('delivered');
      // Already due: a second retry by hand is refused and changes nothing.
      expect((await retryDelivery(await context(core), row.id)).ok).toBe(true);
      const again = await retryDelivery(await context(core), row.id);
      expect(again.ok ? 'ok' : again.failure.kind).toBe('invalid_state');
      expect((await retryDelivery(await context(core), 999_999)).ok).toBe(false);
    } finally {
      sender.close();
    }
  });

  it('counts no answer within the timeout as a failed attempt', async () => {
    const { core, customer, plan } = await setup();
    const hook = await receiver(() => 'hang');
    await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({
        customer_id: customer,
        subscription_plan_id: plan,
        subscription_webhook_url: `${hook.url}/s`,
      }),
    });
    const sender = new WebhookSender(core.store, core.clock, { timeoutMs: 300 });
    try {
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 1, left: false });
      const [row] = await deliveries(core);
      expect([row.status, row.attempts, row.last_status, row.last_error]).toEqual([
        'pending',
        1,
        null,
        'no answer within 0.3 s',
      ]);
    } finally {
      sender.close();
    }
  });

  it('stopped by its deadline, lets the delivery go untried (no attempt counted)', async () => {
    const { core, customer, plan } = await setup();
    const hook = await receiver(() => 'hang');
    await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({
        customer_id: customer,
        subscription_plan_id: plan,
        subscription_webhook_url: `${hook.url}/s`,
      }),
    });
    const sender = new WebhookSender(core.store, core.clock, {});
    try {
      const report = await sender.deliver({ deadline: Date.now() + 300 });
      expect(report).toEqual({ delivered: 0, failed: 0, left: true });
      const [row] = await deliveries(core);
      expect([row.status, row.attempts, row.claimed_by, row.claimed_until]).toEqual(['pending', 0, null, null]);
    } finally {
      sender.close();
    }
  });

  it('two senders at once send every delivery once', async () => {
    const { core, customer, plan } = await setup();
    const hook = await receiver();
    for (let i = 0; i < 20; i++) {
      const made = await send(core, 'POST', '/subscriptions', {
        body: subscriptionBody({
          customer_id: customer,
          subscription_plan_id: plan,
          status: 'active',
          subscription_webhook_url: `${hook.url}/s`,
          transaction_webhook_url: `${hook.url}/t`,
        }),
      });
      expect(made.status).toBe(201);
    }
    const total = (await deliveries(core)).length;
    expect(total).toBe(80);
    const a = new WebhookSender(core.store, core.clock, { batch: 7, concurrency: 4 });
    const b = new WebhookSender(core.store, core.clock, { batch: 7, concurrency: 4 });
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
});

describe('fair delivery', () => {
  it('a hanging receiver gets its share of requests (2) and delays no other host’s delivery', async () => {
    const { core, customer, plan } = await setup();
    const hanging = await holding();
    const other = await receiver();
    for (let i = 0; i < 40; i++)
      await send(core, 'POST', '/subscriptions', {
        body: subscriptionBody({
          customer_id: customer,
          subscription_plan_id: plan,
          subscription_webhook_url: `${hanging.url}/s`,
        }),
      });
    await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({
        customer_id: customer,
        subscription_plan_id: plan,
        subscription_webhook_url: `${other.url}/s`,
      }),
    });
    const sender = new WebhookSender(core.store, core.clock);
    try {
      const sending = sender.deliver();
      await until(
        'the other receiver’s delivery and the hanging one’s first two requests',
        () => other.got.length === 1 && hanging.got.length >= 2,
      );
      // Nothing more goes to the hanging receiver while its two wait (a while to let a third show up, were it sent).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hanging.got).toHaveLength(2);
      hanging.release();
      expect(await sending).toEqual({ delivered: 41, failed: 0, left: false });
      expect(hanging.got).toHaveLength(40);
    } finally {
      sender.close();
    }
  });

  it('a host that timed out is held back by every sender, its rows untried, until its back-off ends', async () => {
    const { core, customer, plan } = await setup();
    let hang = true;
    const slow = await receiver(() => (hang ? 'hang' : 200));
    const other = await receiver();
    for (let i = 0; i < 5; i++)
      await send(core, 'POST', '/subscriptions', {
        body: subscriptionBody({
          customer_id: customer,
          subscription_plan_id: plan,
          subscription_webhook_url: `${slow.url}/s`,
        }),
      });
    await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({
        customer_id: customer,
        subscription_plan_id: plan,
        subscription_webhook_url: `${other.url}/s`,
      }),
    });
    const host = hostKey(slow.url);
    const options = { timeoutMs: 300, backoffMs: 1_000 };
    const first = new WebhookSender(core.store, core.clock, options);
    const second = new WebhookSender(core.store, core.clock, options);
    try {
      const before = Date.now();
      expect(await first.deliver()).toEqual({ delivered: 1, failed: 2, left: false });
      expect([slow.got.length, other.got.length]).toEqual([2, 1]);
      const rows = (await deliveries(core)).filter((d) => d.host === host);
      // Two tried and timed out; the three it had not started are let go untried, due as they were.
      expect(rows.map((d) => [d.attempts, d.last_error, d.claimed_by])).toEqual([
        [1, 'no answer within 0.3 s', null],
        [1, 'no answer within 0.3 s', null],
        [0, null, null],
        [0, null, null],
        [0, null, null],
      ]);
      const [backoff] = await core.store.read(() => all((q) => q.selectFrom('webhook_hosts').selectAll()));
      expect(backoff).toMatchObject({ host, timeouts: 1 });
      expect(Date.parse(backoff.retry_at)).toBeGreaterThan(before);
      expect(Date.parse(backoff.retry_at)).toBeLessThanOrEqual(Date.now() + 1_000);

      // Another sender (another instance) holds it back too: nothing is claimed, nothing sent.
      expect(await second.deliver()).toEqual({ delivered: 0, failed: 0, left: false });
      expect(slow.got).toHaveLength(2);

      // It answers again; once its back-off has passed, its untried deliveries go, and the back-off is over.
      hang = false;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(backoff.retry_at) - Date.now() + 50)));
      expect(await second.deliver()).toEqual({ delivered: 3, failed: 0, left: false });
      expect(slow.got).toHaveLength(5);
      expect(await core.store.read(() => all((q) => q.selectFrom('webhook_hosts').selectAll()))).toEqual([]);
    } finally {
      first.close();
      second.close();
    }
  });

  it('a host’s back-off is 15 s after its first timeout, doubling with each one in a row up to 5 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 12].map((n) => hostBackoff(n) / 1000)).toEqual([15, 30, 60, 120, 240, 300, 300]);
  });

  // A host's share counts what every sender holds; a host held back after a timeout is skipped until its back-off ends.
  it('claims take due rows across hosts and accounts, each host within its share of held rows', async () => {
    const { core, clock } = await setup();
    const made = await createAccount(core.store, core.clock, 'other');
    if (!made.ok) throw new Error('no account');
    const a = (await core.account()).id;
    const b = made.value.account.id;
    const t0 = clock.ms - 3_600_000;
    const rows = [
      ...Array.from({ length: 100 }, (_, i) => ({ account: a, host: 'h1.example.com:80', at: t0 + i * 1000 })),
      { account: a, host: 'h2.example.com:80', at: t0 + 200_000 },
      { account: b, host: 'h3.example.com:80', at: t0 + 300_000 },
    ];
    await core.store.write(() =>
      run((q) =>
        q.insertInto('webhook_deliveries').values(
          rows.map((r) => {
            const at = new Date(r.at).toISOString();
            return {
              account_id: r.account,
              event_uid: randomUUID(),
              delivery_id: randomUUID(),
              event: 'subscription.active',
              url: `http://${r.host}/hook`,
              host: r.host,
              allow_private: 0,
              body: '{}',
              status: 'pending',
              attempts: 0,
              next_at: at,
              created_at: at,
              updated_at: at,
            };
          }),
        ),
      ),
    );
    const iso = (ms: number) => new Date(ms).toISOString();
    const real = Date.now();
    const claim = async (owner: string, o: { limit?: number; realNow?: number } = {}) => {
      const realNow = o.realNow ?? real;
      const claimed = await claimDeliveries(core.store, {
        now: clock.now().toISOString(),
        realNow: iso(realNow),
        until: iso(realNow + 60_000),
        owner,
        limit: o.limit ?? 64,
        perHost: 5,
        deep: true,
      });
      return claimed.map((c) => [c.host, c.probe]);
    };
    // Every account's first and every host's first before any second: not the 3 oldest (all h1's).
    expect((await claim('a', { limit: 3 })).sort()).toEqual([
      ['h1.example.com:80', false],
      ['h2.example.com:80', false],
      ['h3.example.com:80', false],
    ]);
    // h1 has 1 held: 4 more make its share of 5; then another sender gets none of h1's 99 due.
    expect(await claim('b')).toEqual(Array.from({ length: 4 }, () => ['h1.example.com:80', false]));
    expect(await claim('c')).toEqual([]);
    // Once those claims lapse, a host held back after a timeout is skipped until its back-off has passed; then
    // it is a probe.
    const later = real + 61_000;
    await core.store.write(() =>
      run((q) =>
        q.insertInto('webhook_hosts').values({ host: 'h2.example.com:80', timeouts: 1, retry_at: iso(later + 1_000) }),
      ),
    );
    await core.store.write(() =>
      run((q) =>
        q
          .updateTable('webhook_deliveries')
          .set({ claimed_by: null, claimed_until: null })
          .where('host', '<>', 'h1.example.com:80'),
      ),
    );
    expect((await claim('d', { realNow: later })).map(([host]) => host)).toEqual([
      ...Array.from({ length: 5 }, () => 'h1.example.com:80'),
      'h3.example.com:80',
    ]);
    expect(await claim('e', { realNow: later + 2_000 })).toEqual([['h2.example.com:80', true]]);
  });
});

describe('the private-address policy of each delivery', () => {
  // Refused: an address, or a name resolving to one.
  it('is its writer’s: what a server refusing private targets wrote, any sender refuses; the CLI’s goes', async () => {
    const { core, customer, plan } = await setup();
    const hook = await receiver();
    const port = new URL(hook.url).port;
    // This machine's own name resolves (through /etc/hosts) to a loopback or private address.
    const name = hostname();
    const resolved = await lookup(name, { all: true });
    expect(
      resolved.length > 0 && resolved.every((a) => isPrivateAddress(a.address)),
      `${name} should resolve to a private address: ${JSON.stringify(resolved)}`,
    ).toBe(true);
    // The CLI (private targets allowed) sets the URLs: its events' deliveries carry its policy.
    const ids: string[] = [];
    for (const url of [`http://${name}:${port}/s`, `http://127.0.0.1:${port}/s`]) {
      ids.push(
        (
          await send(core, 'POST', '/subscriptions', {
            body: subscriptionBody({
              customer_id: customer,
              subscription_plan_id: plan,
              subscription_webhook_url: url,
            }),
          })
        ).body.data.id,
      );
    }
    // A server that refuses them changes both subscriptions: its events' deliveries carry its policy.
    const account = await core.account();
    const strict = createRouter({
      store: core.store,
      clock: core.clock,
      baseUrl: 'http://127.0.0.1:8080',
      allowPrivateWebhooks: false,
    });
    const call = async (method: string, path: string, body?: unknown) =>
      (await strict.handle(
        { method, path, body: body === undefined ? undefined : JSON.stringify(body) },
        account,
      )) as Answer;
    for (const id of ids)
      expect(
        (
          await call('PATCH', `/subscriptions/${id}`, {
            data: { type: 'subscription', id, attributes: { status: 'cancelled' } },
          })
        ).status,
      ).toBe(200);
    let rows = await deliveries(core);
    expect(rows.map((d) => [d.event, d.allow_private])).toEqual([
      ['subscription.unverified', 1],
      ['subscription.unverified', 1],
      ['subscription.cancelled', 0],
      ['subscription.cancelled', 0],
    ]);

    // A sender has no policy of its own: it obeys each delivery's.
    const sender = new WebhookSender(core.store, core.clock);
    try {
      expect(await sender.deliver()).toEqual({ delivered: 2, failed: 2, left: false });
      expect(hook.got.map((r) => r.headers['billing-event'])).toEqual([
        'subscription.unverified',
        'subscription.unverified',
      ]);
      rows = await deliveries(core);
      expect(rows[2].last_error).toMatch(new RegExp(`^refused: ${name} resolves to .*a private address$`));
      expect(rows[3].last_error).toBe('refused: the URL names a loopback or private address');

      // A retry by hand never widens it: from the CLI, the server's deliveries stay refused; through the
      // server, a delivery the CLI wrote is narrowed to the server's policy.
      for (const row of rows.slice(2)) expect((await retryDelivery(await context(core), row.id)).ok).toBe(true);
      expect((await call('POST', `/webhook-deliveries/${rows[1].id}/retry`)).status).toBe(200);
      rows = await deliveries(core);
      expect(rows.map((d) => [d.status, d.allow_private])).toEqual([
        ['delivered', 1],
        ['pending', 0],
        ['pending', 0],
        ['pending', 0],
      ]);
      expect(await sender.deliver()).toEqual({ delivered: 0, failed: 3, left: false });
      expect(hook.got).toHaveLength(2);
    } finally {
      sender.close();
    }
  });

  it('due work records the policy of the process doing it', async () => {
    const { core, clock, customer, plan } = await setup();
    const hook = await receiver();
    const made = await send(core, 'POST', '/subscriptions', {
      body: subscriptionBody({
        customer_id: customer,
        subscription_plan_id: plan,
        status: 'active',
        transaction_webhook_url: `${hook.url}/t`,
      }),
    });
    expect(made.status).toBe(201);
    // Today's collection, done by a process refusing private targets (billing serve); the fulfilment, days on,
    // by the CLI.
    await runDue(core.store, clock.now().toISOString(), { allowPrivateWebhooks: false });
    clock.advance(4 * 86_400_000);
    await runDue(core.store, clock.now().toISOString(), { allowPrivateWebhooks: true });
    expect((await deliveries(core)).map((d) => [d.event, d.allow_private])).toEqual([
      ['transaction.queued', 1],
      ['transaction.scheduled', 1],
      ['transaction.succeeded', 0],
      // The next cycle's transaction, set up by the same collection.
      ['transaction.queued', 0],
      ['transaction.scheduled', 0],
      ['transaction.fulfilled', 1],
    ]);
  });
});
