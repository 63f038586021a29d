// Shared by the benchmarks: run commands side by side, take medians, print ratios.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { freePort } from '../test/helpers/postgres-server.js';

/** The parts of autocannon's JSON report the benchmarks read. */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

export { freePort };

export const BIN = fileURLToPath(new URL('../bin/billing.js', import.meta.url));

export function timeOnce(command: string[], env: NodeJS.ProcessEnv = process.env): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(command[0], command.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${command.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  return ms;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A command, or one per run (run 0 is the warm-up): for a command that changes what the next may do, such as finalising an invoice. */
export type Command = string[] | ((run: number) => string[]);
const argv = (command: Command, run: number): string[] => (typeof command === 'function' ? command(run) : command);

/** Runs the commands interleaved (so drift hits all alike) `runs` times after a warm-up; medians in ms. */
export function compare(
  commands: Record<string, Command>,
  runs: number,
  env?: NodeJS.ProcessEnv,
): Record<string, number> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (const command of Object.values(commands)) timeOnce(argv(command, 0), env);
  for (let i = 0; i < runs; i++)
    for (const [name, command] of Object.entries(commands)) samples[name].push(timeOnce(argv(command, i + 1), env));
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

/**
 * How this hour of the machine touches memory: a fresh process fills 64 MB, and the time per 4 KB
 * page is printed beside the figures. Start-up here is paid mostly in pages touched for the first
 * time, whose cost has ranged from about 2 to 18 us on this machine from one hour to the next,
 * while `node -e 0` touches few: a ratio to it moves with that cost.
 */
export function memoryTouch(): string {
  const script =
    'const b = Buffer.allocUnsafeSlow(64 << 20); const t = process.hrtime.bigint(); b.fill(1); ' +
    'console.log(Number(process.hrtime.bigint() - t) / 1e6);';
  const ms = median(
    [0, 1, 2].map(() => {
      const filled = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      if (filled.status !== 0) throw new Error(`filling 64 MB exited ${filled.status}: ${filled.stderr}`);
      return Number(filled.stdout);
    }),
  );
  return `a page of memory touched first: ${((ms * 1000) / 16384).toFixed(1)} us (64 MB filled in ${ms.toFixed(0)} ms)`;
}

export function report(
  title: string,
  medians: Record<string, number>,
  ratio: { of: string; to: string; target: number },
): boolean {
  console.log(`\n${title}`);
  for (const [name, ms] of Object.entries(medians))
    console.log(`  ${name.padEnd(44)} ${ms.toFixed(1).padStart(7)} ms (median)`);
  const value = medians[ratio.of] / medians[ratio.to];
  const ok = value <= ratio.target;
  console.log(
    `  ratio ${ratio.of} / ${ratio.to} = ${value.toFixed(2)}x (target <= ${ratio.target}x) ${ok ? 'OK' : 'OVER TARGET'}`,
  );
  return ok;
}

/** Waits until something answers HTTP at url (any status), for at most 20 s. */
export async function ready(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`nothing answered at ${url} within 20 s`);
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the process is gone. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill('SIGTERM');
  });
}

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/** What one autocannon run measured (latencies in ms). */
export interface Cannonade {
  requestsPerSecond: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
  max: number;
}

export interface CannonOptions {
  seconds: number;
  connections: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A request unanswered this long counts as a timeout; default 10. */
  timeoutSeconds?: number;
}

/** One autocannon run in a child process, its JSON summary read from stdout. */
export function autocannon(url: string, o: CannonOptions): Promise<Cannonade> {
  const args = [AUTOCANNON, '-j', '-n', '-c', String(o.connections), '-d', String(o.seconds), '-m', o.method ?? 'GET'];
  args.push('-t', String(o.timeoutSeconds ?? 10));
  for (const [name, value] of Object.entries(o.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (o.body !== undefined) args.push('-b', o.body);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), (o.seconds + (o.timeoutSeconds ?? 10) + 30) * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err}`));
      const r = JSON.parse(out) as AutocannonResult;
      const { requests, latency } = r;
      resolve({
        requestsPerSecond: requests.average,
        requests: requests.total,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        p50: latency.p50,
        p99: latency.p99,
        max: latency.max,
      });
    });
  });
}

export interface ServedStore {
  server: ChildProcess;
  url: string;
  key: string;
  db: string;
}

/**
 * A new SQLite store in `dir` with an account `bench`, served by `billing serve` (the bundle at
 * `bin`) on a free port, its request log thrown away: the server, its URL and the account's key.
 */
export async function servedStore(dir: string, bin = BIN): Promise<ServedStore> {
  const env = { ...process.env, BILLING_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
  const db = join(dir, 'bench.db');
  const made = spawnSync(process.execPath, [bin, '--db', db, 'accounts', 'create', 'bench', '--json'], {
    env,
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`could not make the bench account: ${made.stderr}`);
  const port = await freePort();
  const server = spawn(process.execPath, [bin, '--db', db, 'serve', '--port', String(port)], { env, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  try {
    await ready(url, server);
  } catch (error) {
    await stop(server);
    throw error;
  }
  return { server, url, key: (JSON.parse(made.stdout) as { api_key: string }).api_key, db };
}
