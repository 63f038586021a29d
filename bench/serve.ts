// Throughput of `billing serve`: GET /customers/{id} against a bare node:http server answering a
// fixed document of the same size (what the HTTP door costs over doing nothing), and POST /customers.
// Both servers run in this process, one at a time; autocannon runs in a child process so the load
// generator does not share the servers' event loop.
// Run: npm run bench:serve   (DURATION=3 seconds per run, ROUNDS=3, CONNECTIONS=10)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONAPI } from '../src/lib/api/http.js';
import { createAccount } from '../src/lib/core/accounts.js';
import { systemClock } from '../src/lib/core/clock.js';
import { startServer } from '../src/lib/server/serve.js';
import { openStore } from '../src/lib/store/store.js';

const DURATION = Number(process.env.DURATION ?? 3);
// Rounds of bare then ours, medians compared: this shared 2-core machine drifts between runs.
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const TARGET = 0.5;
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

interface Run {
  requestsPerSecond: number;
  total: number;
  non2xx: number;
  errors: number;
  p99: number;
}

/** One autocannon run in a child process, its JSON summary read from stdout. */
function cannon(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Run> {
  const args = [AUTOCANNON, '-j', '-n', '-c', String(CONNECTIONS), '-d', String(DURATION), '-m', options.method ?? 'GET'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (options.body !== undefined) args.push('-b', options.body);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), (DURATION + 30) * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err}`));
      const result = JSON.parse(out);
      resolve({ requestsPerSecond: result.requests.average, total: result.requests.total, non2xx: result.non2xx, errors: result.errors, p99: result.latency.p99 });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
const stops: (() => Promise<void>)[] = [];
try {
  // Ours: a store with a few customers and an account key, request lines discarded.
  const store = openStore(join(dir, 'bench.db'));
  const made = createAccount(store, systemClock, 'bench');
  if (!made.ok) throw new Error('could not make the bench account');
  const key = made.value.apiKey;
  const ours = await startServer({ store, clock: systemClock, host: '127.0.0.1', port: 0, log: () => {} });
  stops.push(() => ours.close());
  const headers = { 'x-authorization': key, 'content-type': JSONAPI };
  const customer = (i: number) => JSON.stringify({ data: { type: 'customer', attributes: { first_name: 'Jan', last_name: `Jansen ${i}`, email: `jan${i}@example.com`, iban: 'NL91ABNA0417164300', bank_holder: 'J. Jansen', city: 'Amsterdam' } } });
  let id = '';
  for (let i = 1; i <= 5; i++) {
    const response = await fetch(`${ours.url}/customers`, { method: 'POST', headers, body: customer(i) });
    if (response.status !== 201) throw new Error(`seeding answered ${response.status}: ${await response.text()}`);
    id ||= (await response.json()).data.id;
  }
  const sample = await fetch(`${ours.url}/customers/${id}`, { headers });
  const size = Buffer.byteLength(await sample.text());

  // Bare: node:http answering a fixed document of the same size.
  const filler = '{"data":""}';
  const fixed = Buffer.from(`{"data":"${'x'.repeat(Math.max(0, size - filler.length))}"}`);
  const bare: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': JSONAPI, 'content-length': fixed.length });
    res.end(fixed);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise<void>((resolve) => (bare.closeAllConnections(), bare.close(() => resolve()))));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  const rounds: { bare: Run; get: Run }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push({ bare: await cannon(`${bareUrl}/customers/${id}`), get: await cannon(`${ours.url}/customers/${id}`, { headers }) });
  }
  const median = (runs: Run[]): Run => [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[runs.length >> 1];
  const results: Record<string, Run> = {};
  results[`bare node:http, fixed ${fixed.length} B`] = median(rounds.map((r) => r.bare));
  results[`billing serve GET /customers/${id} (${size} B)`] = median(rounds.map((r) => r.get));
  results['billing serve POST /customers'] = await cannon(`${ours.url}/customers`, { method: 'POST', headers, body: customer(0) });

  console.log(`\nbilling serve throughput (medians of ${ROUNDS} interleaved rounds of ${DURATION} s, ${CONNECTIONS} connections, request log discarded)`);
  for (const [n, r] of rounds.entries()) console.log(`  round ${n + 1}: bare ${r.bare.requestsPerSecond.toFixed(0)} req/s, ours ${r.get.requestsPerSecond.toFixed(0)} req/s (${((r.get.requestsPerSecond / r.bare.requestsPerSecond) * 100).toFixed(0)}%)`);
  for (const [name, run] of Object.entries(results)) {
    const problems = run.non2xx || run.errors ? `  (${run.non2xx} non-2xx, ${run.errors} errors)` : '';
    console.log(`  ${name.padEnd(44)} ${run.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${String(run.p99).padStart(3)} ms${problems}`);
  }
  // Where the time goes: the two core calls every GET makes, in process, without HTTP.
  const { authenticate } = await import('../src/lib/core/accounts.js');
  const { createRouter } = await import('../src/lib/api/router.js');
  const router = createRouter({ store, clock: systemClock, baseUrl: ours.baseUrl });
  const account = authenticate(store, key)!;
  const perCall = async (fn: () => unknown, n = 20_000) => {
    for (let i = 0; i < 1_000; i++) await fn();
    const started = performance.now();
    for (let i = 0; i < n; i++) await fn();
    return ((performance.now() - started) * 1000) / n;
  };
  const authUs = await perCall(() => authenticate(store, key));
  const routerUs = await perCall(async () => JSON.stringify((await router.handle({ method: 'GET', path: `/customers/${id}` }, account)).body));
  console.log(`  in process, per GET: authenticate ${authUs.toFixed(1)} us + router and JSON ${routerUs.toFixed(1)} us = ceiling ${Math.round(1e6 / (authUs + routerUs))} req/s on one core before any HTTP`);

  const [bareRun, getRun, postRun] = Object.values(results);
  const ratio = getRun.requestsPerSecond / bareRun.requestsPerSecond;
  const clean = [...rounds.flatMap((r) => [r.bare, r.get]), postRun].every((run) => run.non2xx === 0 && run.errors === 0);
  const ok = ratio >= TARGET && clean;
  console.log(`  ratio GET ours / bare = ${(ratio * 100).toFixed(0)}% (target >= ${TARGET * 100}%) ${ok ? 'OK' : clean ? 'UNDER TARGET' : 'FAILED REQUESTS'}`);
  process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  for (const stop of stops.reverse()) await stop();
  rmSync(dir, { recursive: true, force: true });
}
