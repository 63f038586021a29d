// Webhook delivery: EVENTS deliveries (default 10,000) sent to a local receiver by the sender
// billing serve runs (claim a batch, POST each signed with bounded concurrency, record the batch),
// on SQLite and on PostgreSQL (a real server, durable settings):
//   deliveries per second, from the first claim to the last record        target >= 1,000/s
// The outbox is filled through the real use case (new subscriptions with a webhook URL: one event,
// one delivery each), not by inserting rows. The receiver answers 200 at once, over keep-alive.
// Run: npm run bench:webhooks   (EVENTS=10000, ENGINES=sqlite,postgres, CONCURRENCY=16)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/lib/core/clock.js';
import { WebhookSender } from '../src/lib/runtime/webhooks.js';
import { all } from '../src/lib/store/unit.js';
import { openRuntime } from '../src/lib/runtime/runtime.js';
import { DURABLE, figure, info, start } from './advance.js';

const EVENTS = Number(process.env.EVENTS ?? 10_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const TARGET = 1_000;

async function fill(location: string, hook: string): Promise<void> {
  const core = await openRuntime({ location, clock: systemClock });
  try {
    const call = async (method: string, path: string, attributes: Record<string, unknown>, type: string) => {
      const answer = await core.router.handle({ method, path, body: JSON.stringify({ data: { type, attributes } }) }, await core.account());
      if (answer.status !== 201) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return (answer.body as { data: { id: string } }).data.id;
    };
    const customer = await call('POST', '/customers', { first_name: 'Ann', last_name: 'Bee', email: 'ann@example.com', iban: 'NL91ABNA0417164300', bank_holder: 'Ann Bee' }, 'customer');
    const { createPlan } = await import('../src/lib/core/plan-writes.js');
    const plan = await createPlan({ store: core.store, clock: core.clock, account: await core.account() }, { name: 'Gold', amount: '10.00' });
    if (!plan.ok) throw new Error('no plan');
    for (let made = 0; made < EVENTS; made++) {
      await call('POST', '/subscriptions', { customer_id: customer, subscription_plan_id: plan.value.id, subscription_webhook_url: `${hook}/s`, confirmation_sent: true }, 'subscription');
    }
  } finally {
    await core.store.close();
  }
}

async function measure(engine: string, location: string, hook: { url: string; count: () => number }): Promise<boolean> {
  const filling = performance.now();
  await fill(location, hook.url);
  // Opening catches up on due work (today's collections), which adds deliveries of its own: counted after.
  const core = await openRuntime({ location, clock: systemClock });
  const pending = (await core.store.read(() => all((q) => q.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending')))).length;
  info(`${engine}: outbox filled`, `${pending.toLocaleString('en')} pending deliveries in ${((performance.now() - filling) / 1000).toFixed(1)} s`);
  const sender = new WebhookSender(core.store, core.clock, { allowPrivate: true, concurrency: CONCURRENCY });
  try {
    const before = hook.count();
    const started = performance.now();
    const report = await sender.deliver();
    const seconds = (performance.now() - started) / 1000;
    if (report.delivered !== pending || hook.count() - before !== pending) throw new Error(`${engine}: delivered ${report.delivered} of ${pending}, the receiver got ${hook.count() - before}`);
    const rate = pending / seconds;
    return figure(`${engine}: deliveries per second (concurrency ${CONCURRENCY})`, `${Math.round(rate).toLocaleString('en')}/s (${pending.toLocaleString('en')} in ${seconds.toFixed(2)} s)`, `>= ${TARGET.toLocaleString('en')}/s`, rate >= TARGET);
  } finally {
    sender.close();
    await core.store.close();
  }
}

async function main(): Promise<void> {
  const engines = (process.env.ENGINES ?? 'sqlite,postgres').split(',');
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, count: () => received };
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-webhooks-'));
  console.log(`webhooks: ${EVENTS.toLocaleString('en')} deliveries to a local receiver`);
  let ok = true;
  try {
    if (engines.includes('sqlite')) ok = (await measure('SQLite', join(dir, 'bench.db'), hook)) && ok;
    if (engines.includes('postgres')) {
      const { startPostgres } = await import('../test/helpers/postgres-server.js');
      const server = await startPostgres(DURABLE);
      try {
        ok = (await measure('PostgreSQL', server.url(), hook)) && ok;
      } finally {
        await server.stop();
      }
    }
    process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

start(main);
