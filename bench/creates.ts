// Concurrent writes on PostgreSQL through two `billing serve` instances on one database: CLIENTS
// clients (default 8) each send EACH requests (default 50) one after the other, alternately to the
// two instances, RUNS times (default 10), each run on a fresh database. A failure is any answer
// other than the write's success (a 503 when concurrent writes kept conflicting past the store's
// retries, a 500); the target is none. Also counted, per run: the transactions PostgreSQL rolled
// back (pg_stat_database.xact_rollback: serialization failures and deadlocks, each run again by the
// store), and the requests per second.
// KIND says which write (default subscriptions):
//   subscriptions   POST /subscriptions with status active, every one for the same plan
//   transactions    POST /transactions, each for another active subscription of that plan
//   activate        PATCH /subscriptions/{id} to active with an accepted mandate, each another one
//   invoices        POST /invoices, each for another active subscription
//   lines           POST /invoice-lines, each on another draft invoice
//   customers       PATCH /customers/{id} (a new email), each another customer
// Run: npx tsx bench/creates.ts   (KIND=..., RUNS=10, CLIENTS=8, EACH=50; BILLING_BIN=path/to/bin/billing.js
// measures another build)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { JSONAPI } from '../src/lib/api/http.js';
import { startPostgres, type PostgresServer } from '../test/helpers/postgres-server.js';
import { BIN, freePort, ready, stop } from './lib.js';

const KINDS = ['subscriptions', 'transactions', 'activate', 'invoices', 'lines', 'customers'] as const;
type Kind = (typeof KINDS)[number];
const KIND = (process.env.KIND ?? 'subscriptions') as Kind;
if (!KINDS.includes(KIND)) throw new Error(`KIND must be one of ${KINDS.join(', ')}`);
const RUNS = Number(process.env.RUNS ?? 10);
const CLIENTS = Number(process.env.CLIENTS ?? 8);
const EACH = Number(process.env.EACH ?? 50);
const OURS = process.env.BILLING_BIN ?? BIN;
/** Durable, as a production server runs (the test server turns these off for speed). */
const DURABLE = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' };

/** The parts of an answer's document the benchmark reads. */
interface Answer {
  status: number;
  json: { data?: { id: string }; errors?: { detail?: string }[] } | undefined;
}

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { 'x-authorization': key };
  if (body !== undefined) headers['content-type'] = JSONAPI;
  const sent = body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(`${base}${path}`, { method, headers, body: sent, signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Answer['json']) : undefined };
}

function cli(args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(process.execPath, [OURS, ...args], { env, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`billing ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

const document = (type: string, attributes: Record<string, unknown>, id?: number) => ({
  data: { type, ...(id === undefined ? {} : { id: String(id) }), attributes },
});

/** What the race needs made first (one subject per request), and the request for subject n. */
type Request = [method: string, path: string, body: unknown, expected: number];

async function arrange(base: string, key: string, n: number): Promise<(i: number) => Request> {
  const made = async (path: string, body: unknown) => {
    const answer = await call(base, key, 'POST', path, body);
    if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${JSON.stringify(answer.json)}`);
    return Number(answer.json!.data!.id);
  };
  const subscribe = (customer: number, status = 'active') =>
    document('subscription', { customer_id: customer, subscription_plan_id: 1, status, confirmation_sent: true });
  const each = async <T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> => {
    const out: T[] = [];
    for (let i = 0; i < count; i++) out.push(await make(i));
    return out;
  };
  switch (KIND) {
    case 'subscriptions':
      return (i) => ['POST', '/subscriptions', subscribe(i + 1), 201];
    case 'customers':
      return (i) => ['PATCH', `/customers/${i + 1}`, document('customer', { email: `m${i}@example.com` }, i + 1), 200];
    case 'activate': {
      const ids = await each(n, (i) => made('/subscriptions', subscribe(i + 1, 'unverified')));
      const accepted = { status: 'active', mandate_accepted: true, mandate_accepted_date: '2026-01-01T00:00:00Z' };
      return (i) => ['PATCH', `/subscriptions/${ids[i]}`, document('subscription', accepted, ids[i]), 200];
    }
    case 'transactions':
    case 'invoices': {
      const ids = await each(n, (i) => made('/subscriptions', subscribe(i + 1)));
      const transaction = (i: number) => document('transaction', { subscription_id: ids[i], amount: '5.00' });
      if (KIND === 'transactions') return (i) => ['POST', '/transactions', transaction(i), 201];
      return (i) => ['POST', '/invoices', document('invoice', { subscription_id: ids[i] }), 201];
    }
    case 'lines': {
      const subscriptions = await each(n, (i) => made('/subscriptions', subscribe(i + 1)));
      const invoice = (i: number) => document('invoice', { subscription_id: subscriptions[i] });
      const invoices = await each(n, (i) => made('/invoices', invoice(i)));
      const line = { description: 'box', amount: '10.00', tax_rate: '21', quantity: 1 };
      return (i) => ['POST', '/invoice-lines', document('invoice-line', { invoice_id: invoices[i], ...line }), 201];
    }
  }
}

interface RunResult {
  failures: string[];
  rolledBack: number;
  seconds: number;
}

const dir = mkdtempSync(join(tmpdir(), 'billing-creates-bench-'));
const children: ChildProcess[] = [];
let server: PostgresServer | undefined;
try {
  server = await startPostgres(DURABLE);
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  const env = { ...process.env, BILLING_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1', BILLING_DB: undefined };
  const total = CLIENTS * EACH;
  const customers = join(dir, 'customers.ndjson');
  const customer = (i: number) =>
    JSON.stringify({ first_name: 'Jan', last_name: `C${i + 1}`, email: `c${i + 1}@example.com` });
  writeFileSync(customers, Array.from({ length: total }, (_, i) => `${customer(i)}\n`).join(''));
  const results: RunResult[] = [];
  console.log(
    `${RUNS} runs of ${CLIENTS} clients x ${EACH} requests (${KIND}), two billing serve instances, one database`,
  );
  if (OURS !== BIN) console.log(`  billing under test: ${OURS}`);
  for (let run = 1; run <= RUNS; run++) {
    const database = `creates_${run}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const url = server.url(database);
    const key = (
      JSON.parse(cli(['--db', url, 'accounts', 'rotate-key', 'default', '--json'], env)) as { api_key: string }
    ).api_key;
    cli(['--db', url, 'plans', 'create', '--name', 'Box', '--amount', '12,50', '--frequency', 'monthly'], env);
    cli(['--db', url, 'import', 'customers', customers, '-q'], env);
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const port = await freePort();
        const args = [OURS, '--db', url, 'serve', '--port', String(port)];
        const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
        children.push(child);
        const base = `http://127.0.0.1:${port}`;
        await ready(base, child);
        return { child, base };
      }),
    );
    const request = await arrange(instances[0].base, key, total);
    const statistics = 'SELECT xact_rollback AS n FROM pg_stat_database WHERE datname = $1';
    const stat = async () => Number((await admin.query<{ n: string }>(statistics, [database])).rows[0].n);
    // A backend reports its statistics when idle, at most once a second (else 10 s later), and at
    // its end: before the race, after a pause; after it, once the instances have closed their pools.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rolledBackBefore = await stat();
    const failures: string[] = [];
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = 0; i < EACH; i++) {
          const n = client * EACH + i;
          const [method, path, body, expected] = request(n);
          const answer = await call(instances[n % 2].base, key, method, path, body);
          const detail = JSON.stringify(answer.json?.errors?.[0]?.detail ?? answer.json);
          if (answer.status !== expected) failures.push(`${method} ${path}: ${answer.status} ${detail}`);
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await Promise.all(instances.map((instance) => stop(instance.child)));
    const rolledBack = (await stat()) - rolledBackBefore;
    await admin.query(`DROP DATABASE ${database}`);
    results.push({ failures, rolledBack, seconds });
    console.log(
      `  run ${String(run).padStart(2)}: ${String(failures.length).padStart(3)} failures of ${total},` +
        ` ${String(rolledBack).padStart(4)} transactions rolled back and run again,` +
        ` ${(total / seconds).toFixed(0).padStart(4)} requests/s`,
    );
    for (const failure of failures.slice(0, 3)) console.log(`           ${failure}`);
  }
  await admin.end();
  const failed = results.reduce((sum, r) => sum + r.failures.length, 0);
  const clean = results.filter((r) => r.failures.length === 0).length;
  const rollbacks = results.map((r) => r.rolledBack).sort((a, b) => a - b);
  console.log(
    `\n  ${KIND}: ${failed} failures in ${RUNS * total} requests (${((100 * failed) / (RUNS * total)).toFixed(2)}%);` +
      ` ${clean} of ${RUNS} runs without one (target: all);` +
      ` rolled back per run: median ${rollbacks[rollbacks.length >> 1]}, max ${rollbacks.at(-1)}`,
  );
  process.exitCode = failed === 0 || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  await Promise.all(children.map(stop));
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
