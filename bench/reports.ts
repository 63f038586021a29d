// Reports at scale (issue 24), on each engine: 100,000 subscriptions with two years of history
// (about 2.4 million collections, each with its status changes as events and its history), then
// every report measured:
//   each report (the last 12 months by month; two years by quarter)     target < 1 s
//   peak memory of the process that answers them     target < 200 MB (RSS high-water mark)
// The store is seeded straight through the store in bulk (writeRows: SQLite one prepared insert per
// row, PostgreSQL one statement per batch), as the core would have written it: customers, plans,
// subscriptions and their status events, transactions with their histories and events (charge-backs
// retried and recovered, failures for good), and invoices with lines at 21% and 9% for every tenth
// collection (a tenth of those credited, some left open or charged back). The reports run in a
// child process of their own that opens the store and asks the router (GET /reports/NAME, what
// the command sends), so its RSS high-water mark is theirs; then the shipped command, timed whole.
// PostgreSQL: a server of its own with durable settings, vacuumed and analysed after seeding.
// Run: npm run bench:reports   (SUBSCRIPTIONS=100000, ENGINES=sqlite,postgres, RUNS=5; KEEP=1 keeps the SQLite store)
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultAccount } from '../src/lib/core/accounts.js';
import { systemClock } from '../src/lib/core/clock.js';
import { addDays, cycleDay, dayAt, midnight, type Frequency } from '../src/lib/core/schedule.js';
import { openStore, type Engine } from '../src/lib/store/store.js';
import { run, writeRows, type RowsSpec } from '../src/lib/store/unit.js';
import { DURABLE, figure, info, mb, pgStatement, start } from './advance.js';
import { BIN, median } from './lib.js';
import type { PostgresServer } from '../test/helpers/postgres-server.js';

const SUBSCRIPTIONS = Number(process.env.SUBSCRIPTIONS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 5);
const ENGINES = (process.env.ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const TARGETS = { ms: 1_000, peakMb: 200 };
const NOW = '2027-03-31T10:00:00.000Z';
const ZONE = 'Europe/Amsterdam';
const REPORTS = ['mrr', 'subscriptions', 'collections', 'revenue', 'vat', 'overdue'] as const;
const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

// ---- seeding ----

const PLANS: { id: number; name: string; cents: number; frequency: Frequency }[] = [
  { id: 1, name: 'Monthly', cents: 1250, frequency: 'monthly' },
  { id: 2, name: 'Weekly box', cents: 1750, frequency: 'weekly' },
  { id: 3, name: 'Quarterly', cents: 3995, frequency: 'quarterly' },
  { id: 4, name: 'Yearly', cents: 24000, frequency: 'yearly' },
];
/** Of every 50 subscriptions: 1 weekly, 2 quarterly, 2 yearly, 45 monthly. */
const planOf = (i: number) => PLANS[i % 50 === 0 ? 1 : i % 50 < 3 ? 2 : i % 50 < 5 ? 3 : 0];

const spec = (key: string, table: RowsSpec['table'], columns: RowsSpec['columns']): RowsSpec => ({
  key,
  table,
  columns,
});
const CUSTOMERS = spec('bench.customers', 'customers', {
  id: 'integer',
  account_id: 'integer',
  first_name: 'text',
  last_name: 'text',
  email: 'text',
  iban: 'text',
  payment_method: 'text',
  language: 'text',
  archived: 'flag',
  created_at: 'instant',
  updated_at: 'instant',
});
const SUBSCRIPTION_ROWS = spec('bench.subscriptions', 'subscriptions', {
  id: 'integer',
  account_id: 'integer',
  customer_id: 'integer',
  subscription_plan_id: 'integer',
  mandate_code: 'text',
  mandate_accepted: 'flag',
  mandate_accepted_date: 'instant',
  start_date: 'instant',
  status: 'text',
  cancel_date: 'instant',
  confirmation_sent: 'flag',
  archived: 'flag',
  created_at: 'instant',
  updated_at: 'instant',
  cycle_anchor: 'text',
  next_cycle: 'integer',
  confirmation_token: 'text',
});
const TRANSACTIONS = spec('bench.transactions', 'transactions', {
  id: 'text',
  account_id: 'integer',
  subscription_id: 'integer',
  origin: 'text',
  cycle: 'integer',
  status: 'text',
  scheduled_on: 'instant',
  due_date: 'instant',
  amount_cents: 'integer',
  payment_method: 'text',
  description: 'text',
  attempt: 'integer',
  history: 'text',
  created_at: 'instant',
  updated_at: 'instant',
  invoice_id: 'integer',
});
const EVENTS = spec('bench.events', 'events', {
  account_id: 'integer',
  name: 'text',
  subscription_id: 'integer',
  transaction_id: 'text',
  status: 'text',
  occurred_at: 'instant',
  from_status: 'text',
  reason_code: 'text',
  amount_cents: 'integer',
});
const INVOICES = spec('bench.invoices', 'invoices', {
  id: 'integer',
  account_id: 'integer',
  subscription_id: 'integer',
  customer_id: 'integer',
  status: 'text',
  number: 'integer',
  reference: 'text',
  amount_excl_cents: 'integer',
  tax_amount_cents: 'integer',
  tax_rates: 'text',
  invoice_date: 'instant',
  transaction_date: 'instant',
  original_invoice_id: 'integer',
  send_email: 'flag',
  transaction_id: 'text',
  finalised_at: 'instant',
  created_at: 'instant',
  updated_at: 'instant',
});
const LINES = spec('bench.lines', 'invoice_lines', {
  account_id: 'integer',
  invoice_id: 'integer',
  description: 'text',
  amount_cents: 'integer',
  tax_rate: 'integer',
  tax_included: 'flag',
  quantity: 'integer',
  unit_excl_cents: 'integer',
  unit_tax_cents: 'integer',
  created_at: 'instant',
  updated_at: 'instant',
});

type Row = Record<string, unknown>;
interface Batch {
  customers: Row[];
  subscriptions: Row[];
  transactions: Row[];
  events: Row[];
  invoices: Row[];
  lines: Row[];
}

/** A deterministic draw in [0, 1) from a number. */
const draw = (n: number): number => {
  const x = Math.sin(n * 12.9898) * 43758.5453;
  return x - Math.floor(x);
};

const DAY_MS = 86_400_000;
const later = (iso: string, days: number): string => new Date(Date.parse(iso) + days * DAY_MS).toISOString();

let invoiceId = 0;
let collections = 0;

/** The history of subscriptions first..first+count-1 (1-based ids), as the core would have written it by NOW. */
function histories(accountId: number, first: number, count: number): Batch {
  const b: Batch = { customers: [], subscriptions: [], transactions: [], events: [], invoices: [], lines: [] };
  const today = dayAt(NOW, ZONE);
  const event = (
    sub: number,
    tx: string | null,
    status: string,
    at: string,
    from: string | null,
    amount: number | null = null,
    code: string | null = null,
  ) =>
    b.events.push({
      account_id: accountId,
      name: tx === null ? 'subscription.status' : 'transaction.status',
      subscription_id: sub,
      transaction_id: tx,
      status,
      occurred_at: at,
      from_status: from,
      reason_code: code,
      amount_cents: amount,
    });
  for (let id = first; id < first + count; id++) {
    const plan = planOf(id);
    // Six in ten from the first weeks of the two years, the rest joining since.
    const startDay = addDays(today, id % 10 < 6 ? -730 + (id % 28) : -Math.floor(draw(id) * 700) - 20);
    const created = midnight(startDay, ZONE);
    const cancelled = id % 10 === 9 ? midnight(addDays(startDay, 90 + Math.floor(draw(id + 1) * 500)), ZONE) : null;
    const end = cancelled !== null && cancelled < NOW ? cancelled : NOW;
    b.customers.push({
      id,
      account_id: accountId,
      first_name: `First${id}`,
      last_name: `Last${id}`,
      email: `customer${id}@example.com`,
      iban: 'NL91ABNA0417164300',
      payment_method: 'directdebit',
      language: 'nl',
      archived: 0,
      created_at: created,
      updated_at: created,
    });
    b.subscriptions.push({
      id,
      account_id: accountId,
      customer_id: id,
      subscription_plan_id: plan.id,
      mandate_code: `MNDT-${id}`,
      mandate_accepted: 1,
      mandate_accepted_date: created,
      start_date: created,
      status: end === NOW ? 'active' : 'cancelled',
      cancel_date: end === NOW ? null : end,
      confirmation_sent: 1,
      archived: 0,
      created_at: created,
      updated_at: end,
      cycle_anchor: startDay,
      next_cycle: 0,
      // Every subscription has its page's secret (PostgreSQL's column is NOT NULL); 64 hex digits.
      confirmation_token: randomUUID().replace(/-/g, '').repeat(2),
    });
    event(id, null, 'unverified', created, null);
    event(id, null, 'active', created, 'unverified');
    if (end !== NOW) event(id, null, 'cancelled', end, 'active');
    for (let n = 0; ; n++) {
      const due = midnight(cycleDay(startDay, plan.frequency, n)!, ZONE);
      if (due >= end) {
        if (end === NOW) {
          // The next collection, scheduled.
          const tx = randomUUID();
          const at = n === 0 ? created : midnight(cycleDay(startDay, plan.frequency, n - 1)!, ZONE);
          b.transactions.push({
            id: tx,
            account_id: accountId,
            subscription_id: id,
            origin: 'plan',
            cycle: n,
            status: 'scheduled',
            scheduled_on: at,
            due_date: due,
            amount_cents: plan.cents,
            payment_method: 'directdebit',
            description: plan.name,
            attempt: 1,
            history: JSON.stringify([
              { attempt: 1, reason: null, reason_code: null, recorded_on: at, status: 'scheduled', new_due_date: null },
            ]),
            created_at: at,
            updated_at: at,
            invoice_id: null,
          });
          event(id, tx, 'queued', at, null, plan.cents);
          event(id, tx, 'scheduled', at, 'queued', plan.cents);
        }
        break;
      }
      const tx = randomUUID();
      const k = ++collections;
      const history: Row[] = [];
      let status = 'scheduled';
      const move = (
        to: string,
        at: string,
        attempt: number,
        code: string | null = null,
        retry: string | null = null,
      ) => {
        history.push({
          attempt,
          reason: code === null ? null : code === 'AM04' ? 'Insufficient funds' : 'Refund requested by the debtor',
          reason_code: code,
          recorded_on: at,
          status: to,
          new_due_date: retry,
        });
        event(id, tx, to, at, status, plan.cents, code);
        status = to;
      };
      const scheduled = n === 0 ? created : midnight(cycleDay(startDay, plan.frequency, n - 1)!, ZONE);
      event(id, tx, 'queued', scheduled, null, plan.cents);
      move('scheduled', scheduled, 1);
      let attempt = 1;
      if (k % 200 === 0) {
        // Failed at collection, and at its retry: failed for good.
        move('failed', due, 1, 'AM04');
        move('rescheduled', due, 1, null, later(due, 3));
        move('failed', later(due, 3), 2, 'AM04');
        attempt = 2;
      } else {
        move('succeeded', due, 1);
        move('fulfilled', later(due, 3), 1);
        if (k % 67 === 0) {
          // Charged back a week on, collected again at the storno retry.
          move('charged_back', later(due, 7), 1, k % 2 ? 'MD06' : 'AM04');
          move('rescheduled', later(due, 7), 1, null, later(due, 10));
          move('succeeded', later(due, 10), 2);
          move('fulfilled', later(due, 13), 2);
          attempt = 2;
        }
      }
      b.transactions.push({
        id: tx,
        account_id: accountId,
        subscription_id: id,
        origin: 'plan',
        cycle: n,
        status,
        scheduled_on: scheduled,
        due_date: due,
        amount_cents: plan.cents,
        payment_method: 'directdebit',
        description: plan.name,
        attempt,
        history: JSON.stringify(history),
        created_at: scheduled,
        updated_at: due,
        invoice_id: null,
      });
      if (k % 10 === 0) invoice(b, accountId, id, due, k);
    }
  }
  return b;
}

/** An invoice of two lines (10.00 at 21% x2, 3.27 at 9%) dated `at`: paid; some credited a week on, some left open. */
function invoice(b: Batch, accountId: number, sub: number, at: string, k: number): void {
  const id = ++invoiceId;
  const open = k % 500 === 0;
  b.invoices.push({
    id,
    account_id: accountId,
    subscription_id: sub,
    customer_id: sub,
    status: open ? (k % 1000 === 0 ? 'charged_back' : 'open') : 'paid',
    number: id,
    reference: `INV-${id}`,
    amount_excl_cents: 2327,
    tax_amount_cents: 449,
    tax_rates: '[[2100,420],[900,29]]',
    invoice_date: at,
    transaction_date: at,
    original_invoice_id: null,
    send_email: 0,
    transaction_id: null,
    finalised_at: at,
    created_at: at,
    updated_at: at,
  });
  const line = (invoice: number, sign: number, cents: number, rate: number, quantity: number, tax: number) =>
    b.lines.push({
      account_id: accountId,
      invoice_id: invoice,
      description: 'Item',
      amount_cents: sign * cents,
      tax_rate: rate,
      tax_included: 0,
      quantity,
      unit_excl_cents: sign * cents,
      unit_tax_cents: sign * tax,
      created_at: at,
      updated_at: at,
    });
  line(id, 1, 1000, 2100, 2, 210);
  line(id, 1, 327, 900, 1, 29);
  if (k % 100 === 0 && !open) {
    const credit = ++invoiceId;
    const when = later(at, 7) < NOW ? later(at, 7) : at;
    b.invoices.push({
      id: credit,
      account_id: accountId,
      subscription_id: sub,
      customer_id: sub,
      status: 'completed',
      number: credit,
      reference: `INV-${credit}`,
      amount_excl_cents: -2327,
      tax_amount_cents: -449,
      tax_rates: '[[2100,-420],[900,-29]]',
      invoice_date: when,
      transaction_date: null,
      original_invoice_id: id,
      send_email: 0,
      transaction_id: null,
      finalised_at: when,
      created_at: when,
      updated_at: when,
    });
    line(credit, -1, 1000, 2100, 2, 210);
    line(credit, -1, 327, 900, 1, 29);
  }
}

async function seed(location: string): Promise<{ ms: number; counts: Record<string, number> }> {
  const started = performance.now();
  const store = await openStore(location, { poolSize: 2 });
  try {
    const account = await defaultAccount(store, systemClock);
    await store.write(function* () {
      for (const plan of PLANS) {
        yield* run((q) =>
          q.insertInto('subscription_plans').values({
            id: plan.id,
            account_id: account.id,
            name: plan.name,
            description: null,
            start_date: '2024-01-01T00:00:00.000Z',
            status: 'active',
            mandate_authentication_method: 'email',
            send_invoice: 0,
            storno_retries: 1,
            terms: null,
            archived: 0,
            amount_cents: plan.cents,
            frequency: plan.frequency,
            created_at: '2024-01-01T00:00:00.000Z',
            updated_at: '2024-01-01T00:00:00.000Z',
          }),
        );
      }
      yield* run((q) => q.insertInto('store_clock').values({ id: 1, test_time: NOW }));
    });
    const counts: Record<string, number> = {
      subscriptions: 0,
      transactions: 0,
      events: 0,
      invoices: 0,
      invoice_lines: 0,
    };
    const STEP = 1_000;
    for (let first = 1; first <= SUBSCRIPTIONS; first += STEP) {
      const b = histories(account.id, first, Math.min(STEP, SUBSCRIPTIONS - first + 1));
      await store.write(function* () {
        yield* writeRows('insert', CUSTOMERS, b.customers);
        yield* writeRows('insert', SUBSCRIPTION_ROWS, b.subscriptions);
        yield* writeRows('insert', INVOICES, b.invoices);
        yield* writeRows('insert', LINES, b.lines);
        yield* writeRows('insert', TRANSACTIONS, b.transactions);
        yield* writeRows('insert', EVENTS, b.events);
      });
      counts.subscriptions += b.subscriptions.length;
      counts.transactions += b.transactions.length;
      counts.events += b.events.length;
      counts.invoices += b.invoices.length;
      counts.invoice_lines += b.lines.length;
    }
    await store.write(() =>
      run((q) =>
        q
          .updateTable('accounts')
          .set({ next_invoice_number: invoiceId + 1 })
          .where('id', '=', account.id),
      ),
    );
    return { ms: performance.now() - started, counts };
  } finally {
    await store.close();
  }
}

// ---- measuring, in a child process ----

interface Measured {
  /** Per report and range: the medians of RUNS answers, in ms. */
  ms: Record<string, number>;
  /** The same answers' CPU time in this process (SQLite's work is in it; PostgreSQL's is in its server). */
  cpuMs: Record<string, number>;
  rows: Record<string, number>;
  baseRssKb: number;
  peakRssKb: number;
}

const RANGES: Record<string, string | undefined> = {
  'last 12 months by month': undefined,
  'two years by quarter': 'filter[from]=2025-04-01&filter[by]=quarter',
};

async function measureChild(location: string): Promise<void> {
  const { openRuntime } = await import('../src/lib/runtime/runtime.js');
  const core = await openRuntime({ location, create: 'nothing' });
  try {
    const account = await core.account();
    const baseRssKb = process.resourceUsage().maxRSS;
    const ms: Record<string, number> = {};
    const cpuMs: Record<string, number> = {};
    const rows: Record<string, number> = {};
    for (const [range, query] of Object.entries(RANGES)) {
      for (const name of REPORTS) {
        if (name === 'overdue' && query !== undefined) continue;
        const samples: number[] = [];
        const cpu: number[] = [];
        for (let i = 0; i <= RUNS; i++) {
          const started = performance.now();
          const used = process.cpuUsage();
          const answer = await core.router.handle({ method: 'GET', path: `/reports/${name}`, query }, account);
          const took = performance.now() - started;
          const spent = process.cpuUsage(used);
          if (i > 0) cpu.push((spent.user + spent.system) / 1000);
          if (answer.status !== 200)
            throw new Error(`GET /reports/${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
          if (i > 0) samples.push(took); // the first answer warms the statements
          rows[`${name}, ${range}`] = (answer.body as { meta: { rows: unknown[] } }).meta.rows.length;
        }
        ms[`${name}, ${range}`] = median(samples);
        cpuMs[`${name}, ${range}`] = median(cpu);
      }
    }
    process.stdout.write(
      `${JSON.stringify({ ms, cpuMs, rows, baseRssKb, peakRssKb: process.resourceUsage().maxRSS } satisfies Measured)}\n`,
    );
  } finally {
    await core.store.close();
  }
}

function measure(location: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, 'measure', location], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) return reject(new Error(`the measuring child exited ${code}: ${err}`));
      resolve(JSON.parse(line) as Measured);
    });
  });
}

/** The shipped command, start to end (start-up, the store opened, the report, the table printed). */
function command(location: string, name: string): number {
  const samples: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [BIN, '--db', location, 'reports', name], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (result.status !== 0)
      throw new Error(`billing reports ${name} exited ${result.status}: ${result.stderr.toString()}`);
    if (i > 0) samples.push(performance.now() - started);
  }
  return median(samples);
}

async function benchEngine(engine: Engine, location: string): Promise<boolean> {
  invoiceId = 0;
  collections = 0;
  const seeded = await seed(location);
  if (engine === 'postgres') await pgStatement(location, 'VACUUM ANALYZE');
  const measured = await measure(location);
  console.log(`\nreports on ${engine}: ${SUBSCRIPTIONS} subscriptions, two years of history to ${NOW}`);
  info('seeding', `${(seeded.ms / 1000).toFixed(1)} s`);
  for (const [table, n] of Object.entries(seeded.counts)) info(`  ${table}`, n.toLocaleString('en'));
  let ok = true;
  for (const [name, ms] of Object.entries(measured.ms))
    ok =
      figure(
        `${name} (${measured.rows[name]} rows)`,
        `${ms.toFixed(0)} ms (cpu ${measured.cpuMs[name].toFixed(0)})`,
        `< ${TARGETS.ms} ms`,
        ms < TARGETS.ms,
      ) && ok;
  ok =
    figure(
      'peak RSS of the process answering them',
      `${mb(measured.peakRssKb).toFixed(0)} MB`,
      `< ${TARGETS.peakMb} MB`,
      mb(measured.peakRssKb) < TARGETS.peakMb,
    ) && ok;
  info('  its RSS before the first report (tsx, store open)', `${mb(measured.baseRssKb).toFixed(0)} MB`);
  for (const name of REPORTS)
    info(`billing reports ${name} (the command, median of ${RUNS})`, `${command(location, name).toFixed(0)} ms`);
  return ok;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
  let server: PostgresServer | undefined;
  try {
    let ok = true;
    for (const engine of ENGINES) {
      if (engine === 'sqlite') ok = (await benchEngine('sqlite', join(dir, 'bench.db'))) && ok;
      else {
        const { startPostgres } = await import('../test/helpers/postgres-server.js');
        server = await startPostgres(DURABLE);
        ok = (await benchEngine('postgres', server.url())) && ok;
      }
    }
    process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
  } finally {
    await server?.stop();
    if (process.env.KEEP === '1') console.log(`\nthe SQLite store is kept: ${join(dir, 'bench.db')}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'measure' && process.argv[1] === SELF) {
  measureChild(process.argv[3]).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
} else {
  start(main);
}
