// Throughput of `billing serve` on PostgreSQL: the shipped bin (`billing --db URL --pool-size 10
// serve`) against a bare node:http server with a `pg` Pool of the same size (bench/pg-bare.ts) that
// runs the same single statement per request and answers a document of about the same size:
//   GET  /customers/1  the customer row and its subscription ids, one SELECT (target >= 60% of bare)
//   POST /customers    INSERT ... RETURNING *, autocommit in the bare server (target >= 50% of bare)
// A PostgreSQL server of its own (test/helpers/postgres-server.ts) with durable settings (fsync,
// synchronous_commit and full_page_writes on, as in production, unlike the test server), on
// loopback. Every server is a separate process, autocannon runs in a third; after a warm-up, the
// rounds interleave bare and billing, and each ratio is the median of the per-round ratios.
// Also measured: CPU time per request of each server process and of PostgreSQL, and the
// statements each server sends per request (pg_stat_statements, counted after the rounds).
// Run: npm run bench:pg   (DURATION=3 seconds per run, ROUNDS=5, CONNECTIONS=10, COUNT=200;
// BILLING_BIN=path/to/bin/billing.js measures another build of billing, e.g. a change under trial)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { JSONAPI } from '../src/lib/api/http.js';
import { startPostgres, type PostgresServer } from '../test/helpers/postgres-server.js';
import { BIN, freePort, median, ready, stop } from './lib.js';

const DURATION = Number(process.env.DURATION ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
/** Sequential requests per server and route when counting statements. */
const COUNT = Number(process.env.COUNT ?? 200);
const POOL_SIZE = 10;
const TARGETS = { get: 0.6, post: 0.5 };
/** Durable, as a production server runs (the test server turns these off for speed). */
const DURABLE = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' };
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const BARE = fileURLToPath(new URL('./pg-bare.ts', import.meta.url));
/** The billing under test: the shipped bin unless BILLING_BIN names another build. */
const OURS = process.env.BILLING_BIN ?? BIN;
const TICK_US = 1e6 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

interface Run {
  requestsPerSecond: number;
  total: number;
  non2xx: number;
  errors: number;
  p99: number;
  /** CPU time per request in microseconds: the server process, and all of PostgreSQL's processes. */
  serverCpu: number;
  postgresCpu: number;
}

/** utime + stime of a process in microseconds (0 once it is gone). */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** CPU time of every process of the PostgreSQL server: the postmaster's children (backends, WAL writer, ...). */
function postgresCpu(postmaster: number): number {
  let sum = cpuOf(postmaster);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) sum += cpuOf(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

/** One autocannon run in a child process, its JSON summary read from stdout, with the CPU the servers spent meanwhile. */
async function cannon(
  url: string,
  cpu: { server: number; postmaster: number },
  options: { method?: string; headers?: Record<string, string>; body?: string; duration?: number } = {},
): Promise<Run> {
  const duration = options.duration ?? DURATION;
  const args = [
    AUTOCANNON,
    '-j',
    '-n',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(duration),
    '-m',
    options.method ?? 'GET',
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (options.body !== undefined) args.push('-b', options.body);
  args.push(url);
  const before = { server: cpuOf(cpu.server), postgres: postgresCpu(cpu.postmaster) };
  const result = await new Promise<{
    requests: { average: number; total: number };
    non2xx: number;
    errors: number;
    latency: { p99: number };
  }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), (duration + 30) * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err}`));
      resolve(JSON.parse(out) as Parameters<typeof resolve>[0]);
    });
  });
  const total = Math.max(1, result.requests.total);
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    p99: result.latency.p99,
    serverCpu: (cpuOf(cpu.server) - before.server) / total,
    postgresCpu: (postgresCpu(cpu.postmaster) - before.postgres) / total,
  };
}

/** A CLI run against the bench database; its stdout. */
function cli(args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`billing ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

const dir = mkdtempSync(join(tmpdir(), 'billing-pg-bench-'));
const children: ChildProcess[] = [];
let server: PostgresServer | undefined;
let admin: pg.Client | undefined;
try {
  // pg_stat_statements is loaded for the count after the rounds; during the rounds it tracks nothing.
  server = await startPostgres({ ...DURABLE, shared_preload_libraries: 'pg_stat_statements' });
  const setup = new pg.Client({ connectionString: server.url() });
  await setup.connect();
  try {
    await setup.query('CREATE DATABASE bench');
  } finally {
    await setup.end();
  }
  const url = server.url('bench');
  admin = new pg.Client({ connectionString: url, application_name: 'bench-admin' });
  await admin.connect();
  await admin.query('CREATE EXTENSION pg_stat_statements');
  const track = async (what: 'none' | 'top') => {
    await admin!.query(`ALTER SYSTEM SET pg_stat_statements.track = '${what}'`);
    await admin!.query('SELECT pg_reload_conf()');
    await new Promise((resolve) => setTimeout(resolve, 200));
  };
  await track('none');
  const { rows: settings } = await admin.query<{ name: string; setting: string }>(
    "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'server_version') ORDER BY name",
  );
  const postmaster = Number(
    readFileSync(
      `/proc/${(await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid}/stat`,
      'utf8',
    )
      .split(') ')[1]
      .split(' ')[1],
  );

  const env = { ...process.env, BILLING_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1', BILLING_DB: undefined };
  cli(['--db', url, 'demo', '-q'], env);
  const key = (
    JSON.parse(cli(['--db', url, 'accounts', 'rotate-key', 'default', '--json'], env)) as { api_key: string }
  ).api_key;

  // Ours: the shipped bin; its one line per request goes to stderr, which is /dev/null here.
  const oursPort = await freePort();
  const ours = spawn(
    process.execPath,
    [OURS, '--db', url, '--pool-size', String(POOL_SIZE), 'serve', '--port', String(oursPort)],
    { env, stdio: 'ignore' },
  );
  children.push(ours);
  const oursUrl = `http://127.0.0.1:${oursPort}`;
  await ready(oursUrl, ours);

  // Bare: node:http and a pg Pool of the same size, its own process (tsx only loads the file).
  const barePort = await freePort();
  const bare = spawn(process.execPath, ['--import', 'tsx', BARE, url, String(barePort), String(POOL_SIZE)], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(bare);
  const bareUrl = `http://127.0.0.1:${barePort}`;
  await ready(bareUrl, bare);

  const headers = { 'x-authorization': key, 'content-type': JSONAPI };
  const body = JSON.stringify({
    data: { type: 'customer', attributes: { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' } },
  });
  const sizes: Record<string, number> = {};
  for (const [name, base] of [
    ['bare', bareUrl],
    ['ours', oursUrl],
  ] as const) {
    const got = await fetch(`${base}/customers/1`, { headers, signal: AbortSignal.timeout(10_000) });
    if (got.status !== 200) throw new Error(`${name} GET answered ${got.status}: ${await got.text()}`);
    sizes[`${name} GET`] = Buffer.byteLength(await got.text());
    const posted = await fetch(`${base}/customers`, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
    });
    if (posted.status !== 201) throw new Error(`${name} POST answered ${posted.status}: ${await posted.text()}`);
    sizes[`${name} POST`] = Buffer.byteLength(await posted.text());
  }

  const cpu = { bare: { server: bare.pid!, postmaster }, ours: { server: ours.pid!, postmaster } };
  type Pair = Record<'bare' | 'ours', (duration?: number) => Promise<Run>>;
  const get: Pair = {
    bare: (duration) => cannon(`${bareUrl}/customers/1`, cpu.bare, { duration }),
    ours: (duration) => cannon(`${oursUrl}/customers/1`, cpu.ours, { headers, duration }),
  };
  const post: Pair = {
    bare: (duration) => cannon(`${bareUrl}/customers`, cpu.bare, { method: 'POST', headers, body, duration }),
    ours: (duration) => cannon(`${oursUrl}/customers`, cpu.ours, { method: 'POST', headers, body, duration }),
  };

  // A warm-up run each (JIT, pools filled, statements prepared on every connection), not counted.
  for (const run of [get.bare, get.ours, post.bare, post.ours]) await run(2);
  const measure = async (pair: Pair) => {
    const rounds: { bare: Run; ours: Run }[] = [];
    for (let round = 0; round < ROUNDS; round++) rounds.push({ bare: await pair.bare(), ours: await pair.ours() });
    return rounds;
  };
  const results = { GET: await measure(get), POST: await measure(post) };

  // Statements per request, counted by PostgreSQL itself: COUNT sequential requests per server.
  await track('top');
  const statements = async (base: string, method: 'GET' | 'POST') => {
    await admin!.query('SELECT pg_stat_statements_reset()');
    for (let i = 0; i < COUNT; i++) {
      const response = await fetch(method === 'GET' ? `${base}/customers/1` : `${base}/customers`, {
        method,
        headers,
        body: method === 'POST' ? body : undefined,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
    }
    const { rows } = await admin!.query<{ calls: string; query: string; mean: number }>(
      `SELECT calls, query, mean_exec_time AS mean FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'
        ORDER BY calls DESC, query`,
    );
    return rows.map((row) => ({
      perRequest: Number(row.calls) / COUNT,
      query: row.query.replace(/\s+/g, ' '),
      mean: row.mean,
    }));
  };
  const counted = {
    'bare GET': await statements(bareUrl, 'GET'),
    'ours GET': await statements(oursUrl, 'GET'),
    'bare POST': await statements(bareUrl, 'POST'),
    'ours POST': await statements(oursUrl, 'POST'),
  };

  console.log(
    `\nbilling serve on PostgreSQL ${settings.find((s) => s.name === 'server_version')?.setting} against bare node:http + pg Pool (pool size ${POOL_SIZE} each; ` +
      `${ROUNDS} interleaved rounds of ${DURATION} s, ${CONNECTIONS} connections; each a separate process, loopback)`,
  );
  if (OURS !== BIN) console.log(`  billing under test: ${OURS}`);
  console.log(
    `  durable server settings: ${settings
      .filter((s) => s.name !== 'server_version')
      .map((s) => `${s.name}=${s.setting}`)
      .join(', ')} (the test server runs with them off)`,
  );
  console.log(
    `  bodies: GET bare ${sizes['bare GET']} B, ours ${sizes['ours GET']} B; POST answer bare ${sizes['bare POST']} B, ours ${sizes['ours POST']} B`,
  );
  const fmt = (us: number) => `${us.toFixed(0).padStart(4)} us`;
  const summary: { name: string; ratio: number; target: number; clean: boolean }[] = [];
  for (const [name, rounds] of Object.entries(results)) {
    const target = name === 'GET' ? TARGETS.get : TARGETS.post;
    const path = name === 'GET' ? 'GET /customers/1' : 'POST /customers';
    console.log(`\n  ${path}`);
    const ratios = rounds.map((r) => r.ours.requestsPerSecond / r.bare.requestsPerSecond);
    for (const [n, r] of rounds.entries()) {
      console.log(
        `    round ${n + 1}: bare ${r.bare.requestsPerSecond.toFixed(0).padStart(6)} req/s, ours ${r.ours.requestsPerSecond.toFixed(0).padStart(6)} req/s (${(ratios[n] * 100).toFixed(0)}%)` +
          `   CPU/request: bare ${fmt(r.bare.serverCpu)} + pg ${fmt(r.bare.postgresCpu)}, ours ${fmt(r.ours.serverCpu)} + pg ${fmt(r.ours.postgresCpu)}`,
      );
    }
    for (const side of ['bare', 'ours'] as const) {
      const runs = rounds.map((r) => r[side]);
      const problems = runs.some((r) => r.non2xx || r.errors)
        ? `  (${runs.reduce((s, r) => s + r.non2xx, 0)} non-2xx, ${runs.reduce((s, r) => s + r.errors, 0)} errors)`
        : '';
      console.log(
        `    ${(side === 'bare' ? 'bare node:http + pg Pool' : 'billing serve').padEnd(26)} ${median(
          runs.map((r) => r.requestsPerSecond),
        )
          .toFixed(0)
          .padStart(6)} req/s (median)` +
          `  p99 ${String(median(runs.map((r) => r.p99))).padStart(3)} ms  CPU/request: server ${fmt(median(runs.map((r) => r.serverCpu)))}, PostgreSQL ${fmt(median(runs.map((r) => r.postgresCpu)))}${problems}`,
      );
    }
    const ratio = median(ratios);
    const clean = rounds.every((r) => !r.bare.non2xx && !r.bare.errors && !r.ours.non2xx && !r.ours.errors);
    summary.push({ name: path, ratio, target, clean });
  }

  console.log(
    `\n  statements per request (pg_stat_statements over ${COUNT} sequential requests each; every statement is one round trip)`,
  );
  for (const [name, rows] of Object.entries(counted)) {
    const total = rows.reduce((s, r) => s + r.perRequest, 0);
    console.log(`    ${name}: ${total.toFixed(2)}`);
    for (const row of rows)
      console.log(
        `      ${row.perRequest.toFixed(2)} x ${(row.mean * 1000).toFixed(0).padStart(4)} us  ${row.query.length > 150 ? `${row.query.slice(0, 147)}...` : row.query}`,
      );
  }
  // billing's GET statement is the bare one wrapped with its API key guard (the key re-checked in the same statement).
  const same = (kind: 'GET' | 'POST') =>
    counted[`bare ${kind}`].every((b) =>
      counted[`ours ${kind}`].some((o) => o.query === b.query || o.query.includes(`(${b.query})`)),
    );
  console.log(
    `    the bare server's statements are billing's own (same normalised text; GET: inside billing's key guard): GET ${same('GET') ? 'yes' : 'NO'}, POST ${same('POST') ? 'yes' : 'NO'}`,
  );

  console.log('');
  let ok = true;
  for (const { name, ratio, target, clean } of summary) {
    const good = ratio >= target && clean;
    ok &&= good;
    console.log(
      `  ratio ${name.padEnd(17)} ours / bare = ${(ratio * 100).toFixed(0)}% (median of the rounds; target >= ${target * 100}%) ${good ? 'OK' : clean ? 'UNDER TARGET' : 'FAILED REQUESTS'}`,
    );
  }
  process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  await Promise.all(children.map(stop));
  await admin?.end().catch(() => {});
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
