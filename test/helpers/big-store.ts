// A SQLite store with many customers, for tests of the built CLI's output at size.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { BIN, TEST_CONFIG_DIR } from './cli.js';
import { tempDbPath } from './store.js';

/** A SQLite store of `count` customers of the default account: the first made by the CLI, the rest filled directly. */
export function bigStore(count: number): string {
  const db = tempDbPath();
  const env = { ...process.env, BILLING_CONFIG_DIR: TEST_CONFIG_DIR, BILLING_DB: db };
  const argv = ['customers', 'create', '--first-name', 'F', '--last-name', 'L', '--email', 'c1@example.com', '-q'];
  const made = spawnSync(process.execPath, [BIN, ...argv], { env, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`billing ${argv.join(' ')} exited ${made.status}: ${made.stderr}`);
  const sqlite = new Database(db);
  const insert = sqlite.prepare(
    "INSERT INTO customers (account_id, first_name, last_name, email, payment_method, language, archived, created_at, updated_at) VALUES (1, ?, ?, ?, 'directdebit', 'nl', 0, '2026-11-21T10:00:00.000Z', '2026-11-21T10:00:00.000Z')",
  );
  sqlite.transaction(() => {
    for (let i = 2; i <= count; i++) insert.run(`First${i}`, `Last${i}`, `c${i}@example.com`);
  })();
  sqlite.close();
  return db;
}
