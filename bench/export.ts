// Streaming exports: `customers list --all -o ndjson` and `-o csv` of 1,000,000 customers, through
// the built CLI on a SQLite store (and, with REMOTE=1, against `billing serve`), stdout into a sink
// that counts lines and notes when the first one came:
//   wall time, rows per second, time to the first line
//   peak RSS of the exporting process               target <= 150 MB (/usr/bin/time -f %M when
//                                                   present, else VmHWM polled from /proc)
// and, in process through the router, what a keyset page costs against the count a numbered page
// makes (why keyset pages leave meta.total out).
// Seeding: the store's schema and account made by the CLI, then rows inserted with one prepared
// statement in transactions of 100,000 (a million API calls would only measure the seeding).
// Run: npm run bench:export   (CUSTOMERS=1000000, FORMATS=ndjson,csv, REMOTE=1 adds billing serve)
import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRuntime } from '../src/lib/runtime/runtime.js';
import { figure, info, start } from './advance.js';
import { BIN, freePort, median, ready, stop } from './lib.js';

const COUNT = Number(process.env.CUSTOMERS ?? 1_000_000);
const FORMATS = (process.env.FORMATS ?? 'ndjson,csv').split(',');
const REMOTE = process.env.REMOTE === '1';
const TARGET_MB = 150;
const TIME = '/usr/bin/time';

/** The store, its bench account and that account's API key; COUNT customers with every usual field filled. */
function seed(dir: string, env: NodeJS.ProcessEnv): { db: string; key: string; ms: number } {
  const started = performance.now();
  const db = join(dir, 'bench.db');
  const made = spawnSync(process.execPath, [BIN, '--db', db, 'accounts', 'create', 'bench', '--json'], {
    env,
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`could not make the bench account: ${made.stderr}`);
  const key = (JSON.parse(made.stdout) as { api_key: string }).api_key;
  const sqlite = new Database(db);
  const account = (sqlite.prepare("SELECT id FROM accounts WHERE name = 'bench'").get() as { id: number }).id;
  const insert = sqlite.prepare(
    `INSERT INTO customers (account_id, gender, first_name, middle_name, last_name, company_name, bank_holder, iban, payment_method,
       postalcode, house_number, street, city, country_iso2, language, email, telephone, archived, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'NL91ABNA0417164300', 'directdebit', '1016EE', ?, 'Keizersgracht', 'Amsterdam', 'NL', 'nl', ?, '+31202616739', ?, ?, ?)`,
  );
  const now = new Date().toISOString();
  const batch = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const last = `Last${i}`;
      insert.run(
        account,
        i % 2 ? 'm' : 'f',
        `First${i}`,
        i % 5 ? null : 'van der',
        last,
        i % 7 ? null : `Company, "${i}" BV`,
        `F. ${last}`,
        String(i % 400),
        `customer${i}@example.com`,
        i % 10 ? 0 : 1,
        now,
        now,
      );
    }
  });
  for (let from = 0; from < COUNT; from += 100_000) batch(from, Math.min(COUNT, from + 100_000));
  sqlite.close();
  return { db, key, ms: performance.now() - started };
}

interface Exported {
  ms: number;
  firstLineMs: number;
  lines: number;
  bytes: number;
  peakRssKb: number;
  how: string;
  stderr: string;
}

/** Peak RSS in KB of a running process (VmHWM), or 0 once it is gone. */
function vmHwm(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Runs the built CLI with argv, stdout into a counting sink; its peak RSS by /usr/bin/time when there is one. */
function exportOnce(argv: string[], env: NodeJS.ProcessEnv): Promise<Exported> {
  const timed = existsSync(TIME);
  // %M: the child's maximum resident set size in KB, written last on stderr.
  const command = timed
    ? [TIME, '-f', 'peak-rss-kb %M', process.execPath, BIN, ...argv]
    : [process.execPath, BIN, ...argv];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command[0], command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let firstLineMs = -1;
    let lines = 0;
    let bytes = 0;
    let stderr = '';
    let polled = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      if (firstLineMs < 0 && chunk.includes(10)) firstLineMs = performance.now() - started;
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // Without /usr/bin/time: the high-water mark as last seen (the node process is the direct child).
    const poll = timed ? undefined : setInterval(() => (polled = Math.max(polled, vmHwm(child.pid!))), 20);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (poll) clearInterval(poll);
      const timedKb = /peak-rss-kb (\d+)/.exec(stderr);
      if (code !== 0) return reject(new Error(`billing ${argv.join(' ')} exited ${code}: ${stderr}`));
      resolve({
        ms,
        firstLineMs,
        lines,
        bytes,
        peakRssKb: timedKb ? Number(timedKb[1]) : polled,
        how: timedKb ? '/usr/bin/time' : 'VmHWM polled',
        stderr: stderr.replace(/peak-rss-kb \d+\n?/, ''),
      });
    });
  });
}

function reportExport(title: string, run: Exported, wantLines: number): boolean {
  console.log(`\n${title}`);
  info('lines written', `${run.lines}`);
  info('bytes written', `${(run.bytes / 1e6).toFixed(0)} MB`);
  info('wall time', `${(run.ms / 1000).toFixed(1)} s`);
  info('rows per second', `${Math.round(COUNT / (run.ms / 1000))}/s`);
  info('time to the first line', `${run.firstLineMs.toFixed(0)} ms`);
  if (run.stderr.trim()) info('stderr', run.stderr.trim());
  const complete = run.lines === wantLines;
  if (!complete) console.log(`  INCOMPLETE: ${run.lines} lines, expected ${wantLines}`);
  return (
    figure(
      `peak RSS (${run.how})`,
      `${(run.peakRssKb / 1024).toFixed(0)} MB`,
      `<= ${TARGET_MB} MB`,
      run.peakRssKb / 1024 <= TARGET_MB,
    ) && complete
  );
}

/** A keyset page deep in the list, a numbered page as deep (its count included), and the count alone; medians in ms. */
async function pageCosts(db: string): Promise<Record<string, number>> {
  const core = await openRuntime({ location: db, account: 'bench' });
  try {
    const account = await core.account();
    const middle = Math.floor(COUNT / 2);
    const get = (query: string) => async () => {
      const response = await core.router.handle({ method: 'GET', path: '/customers', query }, account);
      if (response.status !== 200) throw new Error(`${query}: ${response.status}`);
    };
    const sqlite = new Database(db, { readonly: true });
    const count = sqlite.prepare('SELECT count(*) AS n FROM customers WHERE account_id = ?');
    const costs: Record<string, () => Promise<void>> = {
      [`keyset page (page[after]=${middle}, 100 rows)`]: get(`page[after]=${middle}&page[size]=100`),
      [`numbered page ${middle / 100} (100 rows, counted)`]: get(`page[number]=${middle / 100}&page[size]=100`),
      'numbered page 1 (100 rows, counted)': get('page[number]=1&page[size]=100'),
      [`the count alone (${COUNT} rows)`]: () => (count.get(account.id), Promise.resolve()),
    };
    const medians: Record<string, number> = {};
    for (const [name, run] of Object.entries(costs)) {
      const samples: number[] = [];
      for (let i = 0; i < 23; i++) {
        const started = performance.now();
        await run();
        if (i >= 3) samples.push(performance.now() - started);
      }
      medians[name] = median(samples);
    }
    sqlite.close();
    return medians;
  } finally {
    await core.store.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
  let server: ChildProcess | undefined;
  try {
    const env = { ...process.env, BILLING_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
    const { db, key, ms } = seed(dir, env);
    console.log(`\nstreaming exports of ${COUNT} customers (SQLite; seeded in ${(ms / 1000).toFixed(1)} s)`);
    let ok = true;
    for (const format of FORMATS) {
      const run = await exportOnce(['--db', db, '--account', 'bench', 'customers', 'list', '--all', '-o', format], env);
      ok =
        reportExport(`customers list --all -o ${format} (embedded)`, run, format === 'csv' ? COUNT + 1 : COUNT) && ok;
    }
    if (REMOTE) {
      const port = await freePort();
      server = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', String(port)], {
        env,
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      await ready(`http://127.0.0.1:${port}/customers`, server);
      for (const format of FORMATS) {
        const run = await exportOnce(
          ['--base-url', `http://127.0.0.1:${port}`, '--api-key', key, 'customers', 'list', '--all', '-o', format],
          env,
        );
        ok =
          reportExport(
            `customers list --all -o ${format} (remote, billing serve)`,
            run,
            format === 'csv' ? COUNT + 1 : COUNT,
          ) && ok;
      }
    }
    console.log('\nwhat a page costs through the router, in process (median of 20)');
    for (const [name, ms] of Object.entries(await pageCosts(db))) info(name, `${ms.toFixed(2)} ms`);
    process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
  } finally {
    if (server) await stop(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

start(main);
