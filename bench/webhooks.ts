// Webhook delivery by the sender billing serve runs, on SQLite and on PostgreSQL (a real server,
// durable settings):
//   throughput: EVENTS deliveries (default 10,000) to one local receiver, from the first claim to
//     the last record (16 requests in flight at most, 2 of them to one receiver)     target >= 1,000/s
//   fairness: HANGING deliveries (default 200) due to a receiver that answers nothing for 60 s, and
//     once it holds the sender's requests, one more delivery to another receiver (another account):
//     the time from that write's commit to its arrival, written by another process (found by
//     billing serve's tick, once a second) and through billing serve itself (its write pokes the
//     sender)                                                                          target <= 2 s
//   claims: what one claim of 64 costs over the EVENTS due rows, ranking the oldest 256 (every claim)
//     and ranking them all (a sender's deep look, at most twice a second); medians of 20
// The outbox is filled through the real use case (new subscriptions with a webhook URL: one event,
// one delivery each), not by inserting rows. The receivers answer over keep-alive.
// Run: npm run bench:webhooks   (EVENTS=10000, HANGING=200, ENGINES=sqlite,postgres, CONCURRENCY=16)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../src/lib/core/accounts.js';
import { systemClock } from '../src/lib/core/clock.js';
import type { Account } from '../src/lib/core/context.js';
import { claimDeliveries } from '../src/lib/core/outbox.js';
import { startDispatcher } from '../src/lib/runtime/dispatcher.js';
import { WebhookSender } from '../src/lib/runtime/webhooks.js';
import { all } from '../src/lib/store/unit.js';
import { openRuntime, type Runtime } from '../src/lib/runtime/runtime.js';
import { DURABLE, figure, info, start } from './advance.js';

const EVENTS = Number(process.env.EVENTS ?? 10_000);
const HANGING = Number(process.env.HANGING ?? 200);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const TARGET = 1_000;
const FAIR_TARGET_MS = 2_000;
/** Longest the fairness figure waits for the other delivery. */
const GIVE_UP_MS = 60_000;

/** Subscriptions with a webhook URL, made through the router as the account given (the default one otherwise). */
async function fill(core: Runtime, hook: string, count: number, as?: Account): Promise<void> {
  const account = as ?? (await core.account());
  const call = async (method: string, path: string, attributes: Record<string, unknown>, type: string) => {
    const answer = await core.router.handle(
      { method, path, body: JSON.stringify({ data: { type, attributes } }) },
      account,
    );
    if (answer.status !== 201) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return (answer.body as { data: { id: string } }).data.id;
  };
  const customer = await call(
    'POST',
    '/customers',
    {
      first_name: 'Ann',
      last_name: 'Bee',
      email: 'ann@example.com',
      iban: 'NL91ABNA0417164300',
      bank_holder: 'Ann Bee',
    },
    'customer',
  );
  const { createPlan } = await import('../src/lib/core/plan-writes.js');
  const plan = await createPlan({ store: core.store, clock: core.clock, account }, { name: 'Gold', amount: '10.00' });
  if (!plan.ok) throw new Error('no plan');
  for (let made = 0; made < count; made++) {
    const attributes = {
      customer_id: customer,
      subscription_plan_id: plan.value.id,
      subscription_webhook_url: `${hook}/s`,
      confirmation_sent: true,
    };
    await call('POST', '/subscriptions', attributes, 'subscription');
  }
}

const pendingCount = async (core: Runtime) =>
  (
    await core.store.read(() =>
      all((q) => q.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending')),
    )
  ).length;

async function until(what: string, check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return true;
}

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[samples.length >> 1];

async function claims(engine: string, core: Runtime, due: number): Promise<void> {
  const cost = async (deep: boolean) => {
    const samples: number[] = [];
    for (let i = 0; i < 20; i++) {
      const real = new Date().toISOString();
      const started = performance.now();
      // Held until now only: the next claim ranks the same rows again.
      await claimDeliveries(core.store, {
        now: core.clock.now().toISOString(),
        realNow: real,
        until: real,
        owner: 'bench',
        limit: 64,
        perHost: 64,
        deep,
      });
      samples.push(performance.now() - started);
    }
    return median(samples);
  };
  const shallow = await cost(false);
  const deep = await cost(true);
  info(
    `${engine}: one claim over ${due.toLocaleString('en')} due`,
    `${shallow.toFixed(2)} ms oldest 256; ${deep.toFixed(2)} ms all`,
  );
}

async function throughput(
  engine: string,
  location: string,
  hook: { url: string; count: () => number },
): Promise<boolean> {
  const filling = performance.now();
  const writer = await openRuntime({ location, clock: systemClock });
  await fill(writer, hook.url, EVENTS).finally(() => writer.store.close());
  // Opening catches up on due work (today's collections), which adds deliveries of its own: counted after.
  const core = await openRuntime({ location, clock: systemClock });
  const pending = await pendingCount(core);
  info(
    `${engine}: outbox filled`,
    `${pending.toLocaleString('en')} pending deliveries in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
  );
  const sender = new WebhookSender(core.store, core.clock, { concurrency: CONCURRENCY });
  try {
    await claims(engine, core, pending);
    const before = hook.count();
    const started = performance.now();
    const report = await sender.deliver();
    const seconds = (performance.now() - started) / 1000;
    if (report.delivered !== pending || hook.count() - before !== pending) {
      throw new Error(
        `${engine}: delivered ${report.delivered} of ${pending}, the receiver got ${hook.count() - before}`,
      );
    }
    const rate = pending / seconds;
    const value = `${Math.round(rate).toLocaleString('en')}/s (${pending.toLocaleString('en')} in ${seconds.toFixed(2)} s)`;
    return figure(
      `${engine}: deliveries per second (concurrency ${CONCURRENCY})`,
      value,
      `>= ${TARGET.toLocaleString('en')}/s`,
      rate >= TARGET,
    );
  } finally {
    sender.close();
    await core.store.close();
  }
}

interface Receiver {
  url: string;
  count: () => number;
  server: Server;
}

async function fairness(engine: string, location: string, hanging: Receiver, other: Receiver): Promise<boolean> {
  // The account of the other receiver's subscriptions, and the hanging receiver's backlog, written before billing serve starts.
  const writer = await openRuntime({ location, clock: systemClock });
  const made = await createAccount(writer.store, writer.clock, `tenant${Date.now()}`);
  if (!made.ok) throw new Error('no account');
  const tenant = made.value.account;
  await fill(writer, hanging.url, HANGING);
  // billing serve's sender, on a store of its own (its process), looking every second.
  const serve = await openRuntime({ location, clock: systemClock });
  const dispatcher = startDispatcher({ store: serve.store, clock: serve.clock, log: (line) => console.error(line) });
  const arrival = async (write: () => Promise<void>): Promise<number | undefined> => {
    const before = other.count();
    await write();
    const committed = performance.now();
    return (await until('the other delivery', () => other.count() > before, GIVE_UP_MS))
      ? performance.now() - committed
      : undefined;
  };
  try {
    dispatcher.poke();
    if (!(await until('the hanging receiver’s first requests', () => hanging.count() >= 1, 30_000)))
      throw new Error('the sender never reached the hanging receiver');
    const due = await pendingCount(serve);
    // Another process's write: found by the tick. Then one through billing serve: its write pokes the sender.
    const byTick = await arrival(() => fill(writer, other.url, 1, tenant));
    const byPoke = await arrival(async () => {
      await fill(serve, other.url, 1, tenant);
      dispatcher.poke();
    });
    const shown = (ms: number | undefined) =>
      ms === undefined ? `not in ${GIVE_UP_MS / 1000} s` : `${Math.round(ms).toLocaleString('en')} ms`;
    info(`${engine}: due to the hanging receiver`, `${due.toLocaleString('en')} (it got ${hanging.count()} requests)`);
    const ok = byTick !== undefined && byPoke !== undefined && Math.max(byTick, byPoke) <= FAIR_TARGET_MS;
    return figure(
      `${engine}: another receiver's delivery arrives in`,
      `${shown(byTick)} (tick); ${shown(byPoke)} (poke)`,
      `<= ${FAIR_TARGET_MS / 1000} s`,
      ok,
    );
  } finally {
    // Its requests end now (as after its 60 s), so the sender stops without waiting for them.
    hanging.server.closeAllConnections();
    await dispatcher.close();
    await serve.store.close();
    await writer.store.close();
  }
}

async function receiver(answerAfterMs: number): Promise<Receiver> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      if (answerAfterMs === 0) res.writeHead(200).end();
      else setTimeout(() => res.writeHead(200).end(), answerAfterMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => received, server };
}

async function main(): Promise<void> {
  const engines = (process.env.ENGINES ?? 'sqlite,postgres').split(',');
  const hook = await receiver(0);
  const other = await receiver(0);
  const hanging = await receiver(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-webhooks-'));
  console.log(
    `webhooks: ${EVENTS.toLocaleString('en')} deliveries to a local receiver; ${HANGING} due to one that hangs, and one to another`,
  );
  let ok = true;
  const measure = async (engine: string, location: string) => {
    ok = (await throughput(engine, location, hook)) && ok;
    ok = (await fairness(engine, location, hanging, other)) && ok;
  };
  try {
    if (engines.includes('sqlite')) await measure('SQLite', join(dir, 'bench.db'));
    if (engines.includes('postgres')) {
      const { startPostgres } = await import('../test/helpers/postgres-server.js');
      const server = await startPostgres(DURABLE);
      try {
        await measure('PostgreSQL', server.url());
      } finally {
        await server.stop();
      }
    }
    process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
  } finally {
    for (const r of [hook, other, hanging]) {
      r.server.closeAllConnections();
      r.server.close();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

start(main);
