// Throughput of `billing serve`: GET /customers/{id} against a bare node:http server answering a
// fixed document of the same size (what the HTTP door costs over doing nothing), and POST /customers.
// Both servers are real processes: the shipped `billing serve` (the built bundle, its request log
// written to stderr, here /dev/null) and a bare server; autocannon runs in a third process.
// Run: npm run bench:serve   (DURATION=3 seconds per run, ROUNDS=5, CONNECTIONS=10)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONAPI } from '../src/lib/api/http.js';
import { autocannon, freePort, median, ready, servedStore, stop, type Cannonade, type CannonOptions } from './lib.js';

const DURATION = Number(process.env.DURATION ?? 3);
// Rounds of bare then ours, medians compared: this shared 2-core machine drifts between runs.
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const TARGET = 0.5;

type Run = Cannonade;

const cannon = (url: string, options: Partial<CannonOptions> & { duration?: number } = {}): Promise<Run> =>
  autocannon(url, { ...options, seconds: options.duration ?? DURATION, connections: CONNECTIONS });

const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
const children: ChildProcess[] = [];
try {
  // Ours: the shipped bin; its one line per request goes to stderr, which is /dev/null here.
  const { server: ours, url: oursUrl, key } = await servedStore(dir);
  children.push(ours);

  const headers = { 'x-authorization': key, 'content-type': JSONAPI };
  const customer = (i: number) =>
    JSON.stringify({
      data: {
        type: 'customer',
        attributes: {
          first_name: 'Jan',
          last_name: `Jansen ${i}`,
          email: `jan${i}@example.com`,
          iban: 'NL91ABNA0417164300',
          bank_holder: 'J. Jansen',
          city: 'Amsterdam',
        },
      },
    });
  let id = '';
  for (let i = 1; i <= 5; i++) {
    const response = await fetch(`${oursUrl}/customers`, { method: 'POST', headers, body: customer(i) });
    if (response.status !== 201) throw new Error(`seeding answered ${response.status}: ${await response.text()}`);
    id ||= ((await response.json()) as { data: { id: string } }).data.id;
  }
  const sample = await fetch(`${oursUrl}/customers/${id}`, { headers });
  const size = Buffer.byteLength(await sample.text());

  // Bare: node:http answering a fixed document of the same size, in its own process.
  const barePort = await freePort();
  const bareSource = `
    const fixed = Buffer.from('{"data":"' + 'x'.repeat(${Math.max(0, size - '{"data":""}'.length)}) + '"}');
    const server = require('node:http').createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': '${JSONAPI}', 'content-length': fixed.length });
      res.end(fixed);
    }).listen(${barePort}, '127.0.0.1');
    process.on('SIGTERM', () => { server.closeAllConnections(); server.close(); });`;
  const bare = spawn(process.execPath, ['-e', bareSource], { stdio: 'ignore' });
  children.push(bare);
  const bareUrl = `http://127.0.0.1:${barePort}`;
  await ready(bareUrl, bare);

  // A warm-up run each (JIT, caches, connection setup), not counted.
  await cannon(`${bareUrl}/customers/${id}`, { duration: 1 });
  await cannon(`${oursUrl}/customers/${id}`, { headers, duration: 1 });
  const rounds: { bare: Run; get: Run }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push({
      bare: await cannon(`${bareUrl}/customers/${id}`),
      get: await cannon(`${oursUrl}/customers/${id}`, { headers }),
    });
  }
  const ratios = rounds.map((r) => r.get.requestsPerSecond / r.bare.requestsPerSecond);
  const middle = (runs: Run[]): Run =>
    [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[runs.length >> 1];
  const post = await cannon(`${oursUrl}/customers`, { method: 'POST', headers, body: customer(0) });
  const results: [string, Run][] = [
    [`bare node:http, fixed ${size} B`, middle(rounds.map((r) => r.bare))],
    [`billing serve GET /customers/${id} (${size} B)`, middle(rounds.map((r) => r.get))],
    ['billing serve POST /customers', post],
  ];

  console.log(
    `\nbilling serve throughput (${ROUNDS} interleaved rounds of ${DURATION} s, ${CONNECTIONS} connections; each a separate process)`,
  );
  for (const [n, r] of rounds.entries())
    console.log(
      `  round ${n + 1}: bare ${r.bare.requestsPerSecond.toFixed(0)} req/s, ours ${r.get.requestsPerSecond.toFixed(0)} req/s (${(ratios[n] * 100).toFixed(0)}%)`,
    );
  for (const [name, run] of results) {
    const problems = run.non2xx || run.errors ? `  (${run.non2xx} non-2xx, ${run.errors} errors)` : '';
    console.log(
      `  ${name.padEnd(44)} ${run.requestsPerSecond.toFixed(0).padStart(7)} req/s (median)  p99 ${String(run.p99).padStart(3)} ms${problems}`,
    );
  }

  // The ratio is the median of the rounds' ratios: each round puts the two side by side.
  const ratio = median(ratios);
  const clean = [...rounds.flatMap((r) => [r.bare, r.get]), post].every((run) => run.non2xx === 0 && run.errors === 0);
  const ok = ratio >= TARGET && clean;
  console.log(
    `  ratio GET ours / bare = ${(ratio * 100).toFixed(0)}% (median of the rounds; target >= ${TARGET * 100}%) ${ok ? 'OK' : clean ? 'UNDER TARGET' : 'FAILED REQUESTS'}`,
  );
  process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  await Promise.all(children.map(stop));
  rmSync(dir, { recursive: true, force: true });
}
