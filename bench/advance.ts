// Shared by the benchmarks that move the store's clock (due.ts, invoices.ts): the advance runs in
// a child process of its own that does nothing else (opens the store, moves the clock), so its RSS
// high-water mark is the advance's; a seeded SQLite store copied into PostgreSQL; the report lines.
// Run as a child: tsx bench/advance.ts advance <location> <ISO 8601 duration>
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// The child loads only these.
import { defaultAccount } from '../src/lib/core/accounts.js';
import { systemClock } from '../src/lib/core/clock.js';
import { addDuration } from '../src/lib/core/schedule.js';
import { setClock, showClock, StoreClock } from '../src/lib/core/store-clock.js';
import { openStore, type Engine } from '../src/lib/store/store.js';
import type { PostgresServer } from '../test/helpers/postgres-server.js';

/** Durable, as a production server runs (the test server turns these off for speed). */
export const DURABLE = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' };
const POOL_SIZE = 10;
const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Advanced {
  ms: number;
  changes: Record<string, number>;
  /** RSS high-water marks in KB: after loading and opening (before the advance), and at the end. */
  baseRssKb: number;
  peakRssKb: number;
  /** CPU time of the advancing process during the advance (user + system). */
  cpuMs: number;
  from: string;
  to: string;
}

async function advanceChild(location: string, duration: string): Promise<void> {
  const store = await openStore(location, { poolSize: POOL_SIZE, create: 'nothing' });
  try {
    // As `billing clock advance` does, without the catch-up of opening: all the work is the advance's.
    const clock = new StoreClock(systemClock);
    const core = { store, clock, allowPrivateWebhooks: true };
    const zone = (await defaultAccount(store, clock)).time_zone;
    const { now } = await showClock(core);
    const to = addDuration(now, duration, zone)!;
    const baseRssKb = process.resourceUsage().maxRSS;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const moved = await setClock(core, to);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (!moved.ok) throw new Error(`setClock refused: ${JSON.stringify(moved.failure)}`);
    const report: Advanced = {
      ms,
      changes: moved.value.changes,
      baseRssKb,
      peakRssKb: process.resourceUsage().maxRSS,
      cpuMs: (used.user + used.system) / 1000,
      from: now,
      to,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await store.close();
  }
}

/** Moves the store's clock on by `duration` in a child process; PROFILE=1 writes its CPU profile to .prof/. */
export function runAdvance(location: string, engine: Engine, duration: string, name: string): Promise<Advanced> {
  const flags = ['--import', 'tsx'];
  if (process.env.PROFILE === '1') {
    mkdirSync(join(ROOT, '.prof'), { recursive: true });
    flags.push(
      '--cpu-prof',
      `--cpu-prof-dir=${join(ROOT, '.prof')}`,
      `--cpu-prof-name=${name}-${engine}-${Date.now()}.cpuprofile`,
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, SELF, 'advance', location, duration], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30 * 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) return reject(new Error(`the advance exited ${code}: ${err}`));
      resolve(JSON.parse(line) as Advanced);
    });
  });
}

/** The seeded store copied into an empty PostgreSQL database, as `billing store copy` does: the same rows, made once. */
export async function copyTo(path: string, url: string): Promise<number> {
  const { copyStore } = await import('../src/lib/store/copy.js');
  const started = performance.now();
  const source = await openStore(path, { create: 'nothing' });
  const target = await openStore(url, { poolSize: 2 });
  try {
    await copyStore(source, target);
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
  return performance.now() - started;
}

/** PostgreSQL: one statement outside any transaction (VACUUM). */
export async function pgStatement(url: string, statement: string): Promise<void> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Seeds a SQLite store once (seed gives a line saying how), copies it into a PostgreSQL server of its
 * own (durable settings) before SQLite's run, and benches each engine of ENGINES on its store.
 * The exit code is 1 for a figure over its target only under BENCH_STRICT=1.
 */
export async function onEachEngine(
  seed: (path: string) => Promise<string>,
  bench: (engine: Engine, location: string, seeding: string) => Promise<boolean>,
  settings: Record<string, string> = DURABLE,
): Promise<void> {
  const engines = (process.env.ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
  for (const engine of engines)
    if (engine !== 'sqlite' && engine !== 'postgres')
      throw new Error(`unknown engine ${engine as string}: ENGINES is a list of sqlite, postgres`);
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
  let server: PostgresServer | undefined;
  try {
    const path = join(dir, 'bench.db');
    const seeding = await seed(path);
    let url: string | undefined;
    let copyMs = 0;
    if (engines.includes('postgres')) {
      const { startPostgres } = await import('../test/helpers/postgres-server.js');
      server = await startPostgres(settings);
      url = server.url();
      copyMs = await copyTo(path, url);
    }
    let ok = true;
    if (engines.includes('sqlite')) ok = (await bench('sqlite', path, seeding)) && ok;
    if (url !== undefined)
      ok = (await bench('postgres', url, `${seeding}, then copied in ${(copyMs / 1000).toFixed(1)} s`)) && ok;
    process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a benchmark's main, its error printed and the exit code 1. */
export function start(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}

export function figure(name: string, value: string, target: string, ok: boolean): boolean {
  console.log(`  ${name.padEnd(44)} ${value.padStart(14)} (target ${target}) ${ok ? 'OK' : 'OVER TARGET'}`);
  return ok;
}
export const info = (name: string, value: string) => console.log(`  ${name.padEnd(44)} ${value.padStart(14)}`);
export const mb = (kb: number) => kb / 1024;

if (process.argv[2] === 'advance' && process.argv[1] === SELF) {
  advanceChild(process.argv[3], process.argv[4]).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
