// Due work at scale (issue 10): 10,000 active monthly subscriptions, then `clock advance P1Y`
// (setClock a year on, which does all the work that falls due on the way), on each engine:
//   status changes per second of the advance   target >= 20,000/s (SQLite), >= 5,000/s (PostgreSQL)
//   peak memory of the process that advances  target <= 200 MB (RSS high-water mark)
//   a catch-up when nothing is due            target < 2 ms (mean over many calls)
// The advance runs in a child process of its own that does nothing else (opens the store, moves
// the clock), so its RSS high-water mark is the advance's; its baseline (after loading, before the
// advance) is printed beside it. SQLite: a file in a temporary folder. PostgreSQL: a server of its
// own (test/helpers/postgres-server.ts) with durable settings, as bench/pg-serve.ts starts it.
// Seeding: customers inserted in bulk, then each subscription made by the use case (created
// active, its first transaction scheduled), as the API makes it.
// Run: npm run bench:due   (SUBSCRIPTIONS=10000, CALLS=5000 catch-ups, ENGINES=sqlite,postgres;
// PROFILE=1 writes a CPU profile of each advance to .prof/)
import { systemClock } from '../src/lib/core/clock.js';
import { catchUp, StoreClock } from '../src/lib/core/store-clock.js';
import { openStore, type Engine } from '../src/lib/store/store.js';
import { all, get, run } from '../src/lib/store/unit.js';
import { figure, info, mb, onEachEngine, pgStatement, runAdvance, start } from './advance.js';

const SUBSCRIPTIONS = Number(process.env.SUBSCRIPTIONS ?? 10_000);
const CALLS = Number(process.env.CALLS ?? 5_000);
const DURATION = 'P1Y';
const TARGETS = {
  changesPerSecond: { sqlite: 20_000, postgres: 5_000 } as Record<Engine, number>,
  peakMb: 200,
  idleCatchUpMs: 2,
};
const POOL_SIZE = 10;

// ---- seeding ----

/**
 * A SQLite store with customers inserted in bulk, one plan, then each subscription made active by
 * the use case (its first collection scheduled), as POST /subscriptions makes it.
 */
async function seed(path: string): Promise<number> {
  const { openRuntime } = await import('../src/lib/runtime/runtime.js');
  const { createPlan } = await import('../src/lib/core/plan-writes.js');
  const { createSubscription } = await import('../src/lib/core/subscription-writes.js');
  const started = performance.now();
  const core = await openRuntime({ location: path });
  try {
    const account = await core.account();
    const ctx = { store: core.store, clock: core.clock, account };
    const plan = await createPlan(ctx, { name: 'Monthly box', amount: '12.50', frequency: 'monthly' });
    if (!plan.ok) throw new Error(`createPlan failed: ${JSON.stringify(plan.failure)}`);
    const now = new Date().toISOString();
    for (let from = 0; from < SUBSCRIPTIONS; from += 500) {
      const rows = Array.from({ length: Math.min(500, SUBSCRIPTIONS - from) }, (_, i) => ({
        account_id: account.id,
        first_name: `First${from + i}`,
        last_name: `Last${from + i}`,
        email: `customer${from + i}@example.com`,
        iban: 'NL91ABNA0417164300',
        payment_method: 'directdebit',
        language: 'nl',
        archived: 0,
        search_text: '',
        created_at: now,
        updated_at: now,
      }));
      await core.store.write(() => run((q) => q.insertInto('customers').values(rows)));
    }
    const customers = (
      await core.store.read(() => all((q) => q.selectFrom('customers').select('id').orderBy('id')))
    ).map((r) => Number(r.id));
    for (const customer of customers) {
      const made = await createSubscription(ctx, {
        customer_id: customer,
        subscription_plan_id: plan.value.id,
        status: 'active',
        mandate_accepted: true,
        mandate_accepted_date: now.slice(0, 10),
      });
      if (!made.ok) throw new Error(`createSubscription failed: ${JSON.stringify(made.failure)}`);
    }
  } finally {
    await core.store.close();
  }
  return performance.now() - started;
}

// ---- the idle catch-up ----

/** Mean and median ms of catchUp when nothing is due (the one read every embedded command makes first). */
async function idleCatchUp(location: string): Promise<{ mean: number; median: number; p99: number }> {
  const store = await openStore(location, { poolSize: POOL_SIZE, create: 'nothing' });
  try {
    const clock = new StoreClock(systemClock);
    for (let i = 0; i < 200; i++)
      if ((await catchUp(store, clock, { allowPrivateWebhooks: true })) !== undefined)
        throw new Error('work was due: the catch-up measured would not be the idle one');
    const samples: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      await catchUp(store, clock, { allowPrivateWebhooks: true });
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    return {
      mean: samples.reduce((a, b) => a + b, 0) / samples.length,
      median: samples[samples.length >> 1],
      p99: samples[Math.floor(samples.length * 0.99)],
    };
  } finally {
    await store.close();
  }
}

/** What the store holds after the advance, as a check that the year's work was done. */
async function counts(location: string): Promise<{ transactions: number; events: number; dueWork: number }> {
  const store = await openStore(location, { poolSize: 2, create: 'nothing' });
  try {
    const count = (table: 'transactions' | 'events' | 'due_work') =>
      store.read(() => get((q) => q.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'))));
    return {
      transactions: Number((await count('transactions'))!.n),
      events: Number((await count('events'))!.n),
      dueWork: Number((await count('due_work'))!.n),
    };
  } finally {
    await store.close();
  }
}

async function benchEngine(engine: Engine, location: string, seeding: string): Promise<boolean> {
  const before = await counts(location);
  const advanced = await runAdvance(location, engine, DURATION, 'due-advance');
  const after = await counts(location);
  const idle = await idleCatchUp(location);

  const changes = Object.values(advanced.changes).reduce((a, b) => a + b, 0);
  const perSecond = changes / (advanced.ms / 1000);
  console.log(`\ndue work on ${engine}: ${SUBSCRIPTIONS} active monthly subscriptions, clock advance ${DURATION}`);
  info('seeding', seeding);
  info('advance', `${advanced.from} -> ${advanced.to}`);
  info('status changes in the advance', String(changes));
  for (const [kind, n] of Object.entries(advanced.changes).sort()) info(`  ${kind}`, String(n));
  info(
    'advance time (CPU time of its process)',
    `${(advanced.ms / 1000).toFixed(2)} s (${(advanced.cpuMs / 1000).toFixed(2)} s)`,
  );
  info('transactions / events / due_work before', `${before.transactions} / ${before.events} / ${before.dueWork}`);
  info('transactions / events / due_work after', `${after.transactions} / ${after.events} / ${after.dueWork}`);
  const ok = [
    figure(
      'status changes per second',
      `${Math.round(perSecond)}/s`,
      `>= ${TARGETS.changesPerSecond[engine]}/s`,
      perSecond >= TARGETS.changesPerSecond[engine],
    ),
    figure(
      'peak RSS of the advancing process',
      `${mb(advanced.peakRssKb).toFixed(0)} MB`,
      `<= ${TARGETS.peakMb} MB`,
      mb(advanced.peakRssKb) <= TARGETS.peakMb,
    ),
  ];
  info('  its RSS before the advance (tsx, store open)', `${mb(advanced.baseRssKb).toFixed(0)} MB`);
  ok.push(
    figure(
      `catch-up, nothing due (mean of ${CALLS})`,
      `${idle.mean.toFixed(3)} ms`,
      `< ${TARGETS.idleCatchUpMs} ms`,
      idle.mean < TARGETS.idleCatchUpMs,
    ),
  );
  info('  median / p99', `${idle.median.toFixed(3)} / ${idle.p99.toFixed(3)} ms`);
  if (engine === 'postgres') {
    // Right after the advance, the head of due_work_due is the index entries of the work just
    // done (dead until a vacuum): the earliest-due lookup steps over them. The same after VACUUM:
    await pgStatement(location, 'VACUUM due_work');
    const vacuumed = await idleCatchUp(location);
    info('  the same after VACUUM due_work (mean)', `${vacuumed.mean.toFixed(3)} ms`);
  }
  return ok.every(Boolean);
}

// Seeded once, on SQLite; PostgreSQL gets a copy made before SQLite's run.
start(() =>
  onEachEngine(async (path) => {
    const seedMs = await seed(path);
    return `${(seedMs / 1000).toFixed(1)} s (customers in bulk, subscriptions by use case)`;
  }, benchEngine),
);
