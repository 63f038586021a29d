// `billing serve` on SQLite while another process holds the store's write lock (BEGIN IMMEDIATE)
// for HOLD seconds: GET /customers/{id} latency (autocannon) with the lock held against the same
// server with the lock free, side by side, while a POST is sent every 250 ms and waits for the lock
// (each answered 503 after BILLING_BUSY_MS). The server's due-work timer and webhook sender run as
// deployed. Every process is separate: the server, the lock holder, autocannon.
// Run: npm run bench:lock   (HOLD=20 seconds, CONNECTIONS=10; BENCH_BIN=path/to/bin/billing.js
// measures another build, e.g. the code before this benchmark, the same way)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONAPI } from '../src/lib/api/http.js';
import { autocannon, BIN, median, servedStore, stop, type Cannonade } from './lib.js';

const HOLD = Number(process.env.HOLD ?? 20);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const TARGET_P99_MS = 50;
const bin = process.env.BENCH_BIN ?? BIN;
const require = createRequire(import.meta.url);

/** GETs for `seconds`, with a 60 s request timeout: a frozen server shows in the figures, not as errors. */
const cannon = (url: string, headers: Record<string, string>, seconds: number): Promise<Cannonade> =>
  autocannon(url, { headers, seconds, connections: CONNECTIONS, timeoutSeconds: 60 });

/** A child holding BEGIN IMMEDIATE on the store until SIGTERM (or HOLD + 30 s); resolves once it holds the lock. */
async function holdLock(db: string): Promise<ChildProcess> {
  const source = `
    const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    const release = () => { db.exec('ROLLBACK'); db.close(); process.exit(0); };
    process.on('SIGTERM', release);
    setTimeout(release, ${(HOLD + 30) * 1000});
    console.log('held');`;
  const child = spawn(process.execPath, ['-e', source, db], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited ${code}`)));
  });
  return child;
}

const dir = mkdtempSync(join(tmpdir(), 'billing-bench-lock-'));
const children: ChildProcess[] = [];
try {
  const { server, url, key, db } = await servedStore(dir, bin);
  children.push(server);
  const headers = { 'x-authorization': key, 'content-type': JSONAPI };
  const customer = (n: number) =>
    JSON.stringify({
      data: { type: 'customer', attributes: { first_name: 'Jan', last_name: `J${n}`, email: `jan${n}@x.nl` } },
    });
  const first = await fetch(`${url}/customers`, { method: 'POST', headers, body: customer(0) });
  if (first.status !== 201) throw new Error(`seeding answered ${first.status}`);
  const target = `${url}/customers/${((await first.json()) as { data: { id: string } }).data.id}`;

  // Warm-up, then the lock free: the figure to compare with.
  await cannon(target, headers, 2);
  const free = await cannon(target, headers, Math.min(HOLD, 10));

  // The lock held for HOLD seconds; GETs for all of it but the last second, POSTs waiting meanwhile.
  const holder = await holdLock(db);
  children.push(holder);
  const heldAt = performance.now();
  const posts: Promise<{ status: number; ms: number }>[] = [];
  let posting = true;
  const poster = (async () => {
    for (let n = 1; posting; n++) {
      const sent = performance.now();
      const signal = AbortSignal.timeout(60_000);
      const answered = fetch(`${url}/customers`, { method: 'POST', headers, body: customer(n), signal }).then(
        (r) => r.status,
        () => 0,
      );
      posts.push(answered.then((status) => ({ status, ms: performance.now() - sent })));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  const held = await cannon(target, headers, Math.max(1, HOLD - 1));
  posting = false;
  await poster;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, HOLD * 1000 - (performance.now() - heldAt))));
  await stop(holder);
  // The POSTs sent last may still be waiting for the lock: their answers come once it is free.
  const answers = await Promise.all(posts);

  console.log(`\nbilling serve, GET /customers/{id}, ${CONNECTIONS} connections${bin === BIN ? '' : ` (${bin})`}`);
  const ms = (value: number) => `${String(value).padStart(5)} ms`;
  const line = (name: string, r: Cannonade) => {
    const clean = !r.errors && !r.non2xx && !r.timeouts;
    const problems = clean ? '' : `  (${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts)`;
    const latencies = `p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  max ${ms(r.max)}`;
    console.log(`  ${name.padEnd(36)} ${String(r.requests).padStart(7)} requests  ${latencies}${problems}`);
  };
  line('lock free', free);
  line(`lock held by another process (${HOLD} s)`, held);
  const statuses: Record<number, number> = {};
  for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const waited = median(answers.map((p) => p.ms)).toFixed(0);
  const sent = `${answers.length} sent, by status ${JSON.stringify(statuses)} (0: none)`;
  console.log(`  POST /customers every 250 ms while held: ${sent}, median ${waited} ms`);
  // No GET answered at all is a frozen server, not a fast one.
  const ok = held.requests > 0 && held.p99 < TARGET_P99_MS && held.errors === 0 && held.non2xx === 0;
  const verdict = ok ? 'OK' : 'OVER TARGET';
  console.log(
    `  GET p99 with the lock held = ${held.p99} ms (target < ${TARGET_P99_MS} ms) ${verdict}; free: ${free.p99} ms`,
  );
  process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  await Promise.all(children.map(stop));
  rmSync(dir, { recursive: true, force: true });
}
