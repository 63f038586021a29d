// Bulk import, measured in one run against the engine's own fastest way in:
//   SQLite: `billing import customers FILE.ndjson` (the built CLI, a process of its own, from start
//           to exit: start-up, hashing, reading, JSON.parse, every row's checks, the inserts, the
//           search index, the commits) against raw better-sqlite3 inserts of the same rows, parsed
//           beforehand, with one prepared INSERT per row in one transaction, into:
//             - the same schema (the five b-tree indexes of customers and the FTS5 search index,
//               kept by its trigger), which is what the target compares with, and
//             - a plain table of the same columns without any index: SQLite's ceiling here.
//                                                        target >= 25% of raw and >= 100,000 rows/s
//   PostgreSQL: the same command on a PostgreSQL store against COPY of the same rows
//                                                        target >= 20% of COPY
//   peak RSS of the import: the import's own process (by /usr/bin/time), and the launcher plus it
//   (bin/billing.js starts the import in a process of its own; sampled every 20 ms)
//                                                        target <= 150 MB
//   remote: through `billing serve` (SQLite), the default concurrency: rows/s (no target)
//   the content pass every import makes before its first row (SHA-256 and the UTF-8 check) against
//   SHA-256 alone over the same file, interleaved rounds: what refusing bytes that are not UTF-8 costs
// ROWS (default 100000) and REMOTE_ROWS (default 5000; 0 skips it) size it; ENGINES=sqlite,postgres picks.
import { spawn, spawnSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeIBAN } from 'ibantools';
import { DURABLE, figure, info, mb, pgStatement, start } from './advance.js';
import { BIN, freePort, ready, stop } from './lib.js';
import { defaultAccount } from '../src/lib/core/accounts.js';
import { systemClock } from '../src/lib/core/clock.js';
import { openStore } from '../src/lib/store/store.js';
import { hashFile } from '../src/lib/import/source.js';
import { createHash } from 'node:crypto';

const ROWS = Number(process.env.ROWS ?? 100_000);
const REMOTE_ROWS = Number(process.env.REMOTE_ROWS ?? 5_000);
const FIRST = ['Jan', 'Sanne', 'Daan', 'Emma', 'Lucas', 'Sophie', 'Noah', 'Julia', 'Milan', 'Tess'];
const LAST = ['Jansen', 'de Vries', 'Bakker', 'Visser', 'Smit', 'Meijer', 'Peeters', 'Janssens', 'Maes', 'Dubois'];
const CITIES = ['Amsterdam', 'Utrecht', 'Rotterdam', 'Antwerpen', 'Gent', 'Brussel'];

/** The i-th customer as a row of the file: realistic, every one valid. */
function customer(i: number): Record<string, unknown> {
  const be = i % 3 === 0;
  const account = String(100_000_000 + i).padStart(10, '0');
  const iban = be
    ? composeIBAN({
        countryCode: 'BE',
        bban: `${account.slice(-10, -7)}${account.slice(-7)}${String(Number(`${account.slice(-10, -7)}${account.slice(-7)}`) % 97 || 97).padStart(2, '0')}`,
      })
    : composeIBAN({ countryCode: 'NL', bban: `ABNA${account}` });
  return {
    first_name: FIRST[i % FIRST.length],
    last_name: `${LAST[(i * 7) % LAST.length]} ${i}`,
    email: `customer${i}@example.com`,
    iban,
    bank_holder: `${FIRST[i % FIRST.length][0]}. ${LAST[(i * 7) % LAST.length]}`,
    street: 'Dorpsstraat',
    house_number: String(1 + (i % 200)),
    postalcode: be ? String(1000 + (i % 8999)) : `${1000 + (i % 8999)} AB`,
    city: CITIES[i % CITIES.length],
    country_iso2: be ? 'BE' : 'NL',
    language: be ? 'nl-be' : 'nl',
  };
}

async function writeFile(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < rows; i++) if (!out.write(`${JSON.stringify(customer(i))}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'close');
}

interface Run {
  ms: number;
  /** The largest process of the run (the import's own), by /usr/bin/time -f %M, in KB. */
  peakKb: number;
  /** The launcher and the import's process together, sampled every 20 ms, in KB. */
  treeKb: number;
  code: number | null;
  stderr: string;
}

/** The resident set of a process and its descendants, in KB (Linux /proc). */
function treeRss(pid: number): number {
  let total = 0;
  try {
    total = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean))
      total += treeRss(Number(child));
  } catch {
    // gone meanwhile
  }
  return total;
}

/** The CLI as a process of its own; its peak RSS by /usr/bin/time (-f %M, in KB). */
function cli(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'PEAK %M', process.execPath, BIN, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let treeKb = 0;
    // /usr/bin/time itself is left out: it is the bench's, not the CLI's.
    const sampler = setInterval(() => {
      let sum = 0;
      try {
        for (const pid of readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
          .split(' ')
          .filter(Boolean))
          sum += treeRss(Number(pid));
      } catch {
        return;
      }
      treeKb = Math.max(treeKb, sum);
    }, 20);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      const peak = /PEAK (\d+)/.exec(stderr);
      resolve({ ms: performance.now() - started, peakKb: peak ? Number(peak[1]) : NaN, treeKb, code, stderr });
    });
  });
}

const COLUMNS = [
  'account_id',
  'first_name',
  'last_name',
  'email',
  'iban',
  'bank_holder',
  'street',
  'house_number',
  'postalcode',
  'city',
  'country_iso2',
  'language',
  'payment_method',
  'archived',
  'created_at',
  'updated_at',
];

function rawRows(file: string): unknown[][] {
  const now = new Date().toISOString();
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const c = JSON.parse(line) as Record<string, unknown>;
      return [
        1,
        c.first_name,
        c.last_name,
        c.email,
        c.iban,
        c.bank_holder,
        c.street,
        c.house_number,
        c.postalcode,
        c.city,
        c.country_iso2,
        c.language,
        'directdebit',
        0,
        now,
        now,
      ];
    });
}

/** A store migrated and with its default account (the customers' account_id 1), as the import finds it. */
async function migrated(location: string): Promise<void> {
  const store = await openStore(location);
  await defaultAccount(store, systemClock);
  await store.close();
}

/**
 * Raw better-sqlite3: one prepared INSERT per row, one transaction, into a migrated store (the same
 * schema, indexes and search trigger as the import's), or into a plain table of the same columns
 * without any index or trigger (`plain`).
 */
async function rawSqlite(path: string, rows: unknown[][], plain = false): Promise<number> {
  await migrated(path);
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const table = plain ? 'plain_customers' : 'customers';
  if (plain) db.exec('CREATE TABLE plain_customers AS SELECT * FROM customers WHERE 0');
  const insert = db.prepare(
    `INSERT INTO ${table} (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  const started = performance.now();
  db.transaction(() => {
    for (const row of rows) insert.run(...(row as never[]));
  })();
  const ms = performance.now() - started;
  db.close();
  return ms;
}

/** COPY of the same rows into a migrated PostgreSQL store: psql's \\copy of a CSV file (FROM STDIN underneath). */
async function copyPostgres(url: string, rows: unknown[][], dir: string): Promise<number> {
  await migrated(url);
  const { postgresBin } = await import('../test/helpers/postgres-server.js');
  const file = join(dir, 'copy.csv');
  writeFileSync(
    file,
    rows
      .map((r) =>
        r.map((v) => (typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v))).join(','),
      )
      .join('\n'),
  );
  const started = performance.now();
  const copied = spawnSync(
    join(postgresBin(), 'psql'),
    [url, '-v', 'ON_ERROR_STOP=1', '-c', `\\copy customers (${COLUMNS.join(', ')}) FROM '${file}' WITH (FORMAT csv)`],
    { encoding: 'utf8' },
  );
  const ms = performance.now() - started;
  if (copied.status !== 0) throw new Error(`psql \\copy failed: ${copied.stderr}`);
  return ms;
}

async function remote(dir: string): Promise<void> {
  const file = join(dir, 'remote.ndjson');
  await writeFile(file, REMOTE_ROWS);
  const db = join(dir, 'serve.db');
  const rotated = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--db', db, 'accounts', 'rotate-key', 'default', '--json', '--yes'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) =>
      code === 0
        ? resolve((JSON.parse(out) as { api_key: string }).api_key)
        : reject(new Error(`rotate-key exited ${code}`)),
    );
  });
  const port = await freePort();
  const server = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    await ready(`http://127.0.0.1:${port}/customers`, server);
    const run = await cli([
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--api-key',
      rotated,
      'import',
      'customers',
      file,
      '--quiet',
    ]);
    if (run.code !== 0) throw new Error(`the remote import exited ${run.code}: ${run.stderr}`);
    const again = await cli([
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--api-key',
      rotated,
      'import',
      'customers',
      file,
      '--quiet',
    ]);
    info(
      `remote, ${REMOTE_ROWS} rows, concurrency 4`,
      `${Math.round(REMOTE_ROWS / (run.ms / 1000)).toLocaleString('en')} rows/s`,
    );
    info(
      'remote, the same file again (every key replayed)',
      `${Math.round(REMOTE_ROWS / (again.ms / 1000)).toLocaleString('en')} rows/s`,
    );
  } finally {
    await stop(server);
  }
}

/** SHA-256 of a file alone: the content pass as it was before the UTF-8 check. */
async function hashOnly(path: string): Promise<void> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  hash.digest('hex');
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The content pass with and without the UTF-8 check, 15 interleaved rounds each (the file in the page cache). */
async function contentPass(file: string, importMs: number): Promise<void> {
  const timed = async (pass: () => Promise<unknown>) => {
    const started = performance.now();
    await pass();
    return performance.now() - started;
  };
  const checked: number[] = [];
  const bare: number[] = [];
  await hashFile(file); // warm-up, and the file read once into the page cache
  for (let round = 0; round < 15; round++) {
    bare.push(await timed(() => hashOnly(file)));
    checked.push(await timed(() => hashFile(file)));
  }
  const [withCheck, without] = [median(checked), median(bare)];
  const megabytes = statSync(file).size / (1 << 20);
  info(
    `content pass of ${megabytes.toFixed(0)} MB: SHA-256 + UTF-8 / SHA-256`,
    `${withCheck.toFixed(1)} / ${without.toFixed(1)} ms = ${(withCheck / without).toFixed(2)}x`,
  );
  info(
    'the UTF-8 check, of the whole import',
    `${(withCheck - without).toFixed(1)} ms = ${((100 * (withCheck - without)) / importMs).toFixed(2)}%`,
  );
}

async function main(): Promise<void> {
  const engines = (process.env.ENGINES ?? 'sqlite,postgres').split(',');
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-import-'));
  try {
    const file = join(dir, 'customers.ndjson');
    await writeFile(file, ROWS);
    const rows = rawRows(file);
    console.log(`import: ${ROWS.toLocaleString('en')} customers from NDJSON`);
    let ok = true;
    if (engines.includes('sqlite')) {
      const rawMs = await rawSqlite(join(dir, 'raw.db'), rows);
      const plainMs = await rawSqlite(join(dir, 'plain.db'), rows, true);
      const run = await cli(['--db', join(dir, 'import.db'), 'import', 'customers', file, '--quiet']);
      if (run.code !== 0) throw new Error(`billing import exited ${run.code}: ${run.stderr}`);
      const rate = ROWS / (run.ms / 1000);
      const raw = ROWS / (rawMs / 1000);
      info(
        'SQLite raw inserts, same schema (5 indexes + search trigger)',
        `${Math.round(raw).toLocaleString('en')} rows/s`,
      );
      info(
        'SQLite raw inserts, plain table (no index, no trigger)',
        `${Math.round(ROWS / (plainMs / 1000)).toLocaleString('en')} rows/s`,
      );
      ok =
        figure(
          'SQLite billing import (process start to exit)',
          `${Math.round(rate).toLocaleString('en')} rows/s`,
          '>= 100,000',
          rate >= 100_000,
        ) && ok;
      ok =
        figure(
          'SQLite import / raw (same schema)',
          `${((100 * rate) / raw).toFixed(0)}%`,
          '>= 25%',
          rate / raw >= 0.25,
        ) && ok;
      ok =
        figure(
          'SQLite peak RSS, the import process',
          `${mb(run.peakKb).toFixed(0)} MB`,
          '<= 150 MB',
          mb(run.peakKb) <= 150,
        ) && ok;
      ok =
        figure(
          'SQLite peak RSS, launcher + import process',
          `${mb(run.treeKb).toFixed(0)} MB`,
          '<= 150 MB',
          mb(run.treeKb) <= 150,
        ) && ok;
      await contentPass(file, run.ms);
    }
    if (engines.includes('postgres')) {
      const { startPostgres } = await import('../test/helpers/postgres-server.js');
      const server = await startPostgres(DURABLE);
      try {
        for (const name of ['bench_copy', 'bench_import']) await pgStatement(server.url(), `CREATE DATABASE ${name}`);
        const copyMs = await copyPostgres(server.url('bench_copy'), rows, dir);
        const run = await cli(['--db', server.url('bench_import'), 'import', 'customers', file, '--quiet']);
        if (run.code !== 0) throw new Error(`billing import (PostgreSQL) exited ${run.code}: ${run.stderr}`);
        const rate = ROWS / (run.ms / 1000);
        const copy = ROWS / (copyMs / 1000);
        info('PostgreSQL COPY', `${Math.round(copy).toLocaleString('en')} rows/s`);
        info('PostgreSQL billing import', `${Math.round(rate).toLocaleString('en')} rows/s`);
        ok =
          figure('PostgreSQL import / COPY', `${((100 * rate) / copy).toFixed(0)}%`, '>= 20%', rate / copy >= 0.2) &&
          ok;
        ok =
          figure(
            'PostgreSQL peak RSS, the import process',
            `${mb(run.peakKb).toFixed(0)} MB`,
            '<= 150 MB',
            mb(run.peakKb) <= 150,
          ) && ok;
        ok =
          figure(
            'PostgreSQL peak RSS, launcher + import process',
            `${mb(run.treeKb).toFixed(0)} MB`,
            '<= 150 MB',
            mb(run.treeKb) <= 150,
          ) && ok;
      } finally {
        await server.stop();
      }
    }
    if (REMOTE_ROWS > 0) await remote(dir);
    process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

start(main);
