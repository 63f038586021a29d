// Paging: the last page against the first of `customers list --page-size 100` at 100,000
// customers, through the CLI (what a person waits for) and through the router alone (the query).
// Run: npm run bench:paging
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRuntime } from '../src/lib/runtime/runtime.js';
import { BIN, compare, median, report, timeOnce } from './lib.js';

const COUNT = Number(process.env.CUSTOMERS ?? 100_000);
const SIZE = 100;
const LAST = Math.ceil(COUNT / SIZE);
const runs = Number(process.env.RUNS ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
try {
  const dbPath = join(dir, 'bench.db');
  const env = { ...process.env, BILLING_DB: dbPath, NO_COLOR: '1' };
  // Seed: the store's own schema and default account, then rows inserted in one transaction
  // (100,000 API calls would only measure the seeding).
  timeOnce(
    [
      process.execPath,
      BIN,
      'customers',
      'create',
      '--first-name',
      'Seed',
      '--last-name',
      'Row',
      '--email',
      'seed@example.com',
      '-q',
    ],
    env,
  );
  const db = new Database(dbPath);
  const insert = db.prepare(
    `INSERT INTO customers (account_id, first_name, last_name, email, payment_method, language, archived, created_at, updated_at)
     VALUES (1, ?, ?, ?, 'directdebit', 'nl', 0, ?, ?)`,
  );
  db.transaction(() => {
    const now = new Date().toISOString();
    for (let i = 2; i <= COUNT; i++) insert.run(`First${i}`, `Last${i}`, `customer${i}@example.com`, now, now);
  })();
  db.close();

  const list = (page: number) => [
    process.execPath,
    BIN,
    'customers',
    'list',
    '--page-size',
    String(SIZE),
    '--page',
    String(page),
    '--json',
  ];
  const cli = compare({ [`CLI page 1 of ${LAST}`]: list(1), [`CLI page ${LAST} of ${LAST}`]: list(LAST) }, runs, env);
  const okCli = report(`paging through the CLI, ${COUNT} customers (${runs} runs each)`, cli, {
    of: `CLI page ${LAST} of ${LAST}`,
    to: `CLI page 1 of ${LAST}`,
    target: 2,
  });

  const core = await openRuntime({ location: dbPath });
  const account = await core.account();
  const time = async (page: number) => {
    const started = performance.now();
    const response = await core.router.handle(
      { method: 'GET', path: '/customers', query: `page[number]=${page}&page[size]=${SIZE}` },
      account,
    );
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return performance.now() - started;
  };
  const first: number[] = [];
  const last: number[] = [];
  for (let i = 0; i < 5; i++) {
    await time(1);
    await time(LAST);
  }
  for (let i = 0; i < 200; i++) {
    first.push(await time(1));
    last.push(await time(LAST));
  }
  await core.store.close();
  const okRouter = report(
    `paging through the router in process (200 requests each)`,
    { 'router page 1': median(first), [`router page ${LAST}`]: median(last) },
    { of: `router page ${LAST}`, to: 'router page 1', target: 2 },
  );
  process.exitCode = (okCli && okRouter) || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
