// A store made by an older version: the migrations before `version` run by hand, then rows written
// as plain SQL both engines take (true and false are 1 and 0 to SQLite), so the next open migrates it.
import Database from 'better-sqlite3';
import pg from 'pg';
import { postgresMigrations, sqliteMigrations } from '../../src/lib/store/migrations.js';
import { ENGINE, freshPostgresUrl } from './engine.js';
import { tempDbPath } from './store.js';

/** The location of a store of this run's engine at `version`, holding what `statements` write. */
export async function storeAtVersion(version: number, statements: readonly string[]): Promise<string> {
  const migrations = ENGINE === 'sqlite' ? sqliteMigrations : postgresMigrations;
  if (ENGINE === 'sqlite') {
    const path = tempDbPath();
    const db = new Database(path);
    try {
      for (const sql of migrations.slice(0, version)) db.exec(sql);
      for (const sql of statements) db.exec(sql);
      db.pragma(`user_version = ${version}`);
    } finally {
      db.close();
    }
    return path;
  }
  const url = await freshPostgresUrl();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const sql of migrations.slice(0, version)) await client.query(sql);
    for (const sql of statements) await client.query(sql);
    await client.query('CREATE TABLE billing_schema (version integer NOT NULL)');
    await client.query('INSERT INTO billing_schema (version) VALUES ($1)', [version]);
  } finally {
    await client.end();
  }
  return url;
}

/**
 * Migration 22 taken back out of a store of this version (the unique index of live items keyed by
 * the transaction's UUID again), for a test that sets its version back to before it.
 */
export const BEFORE_22 = [
  'DROP INDEX collection_items_once',
  'ALTER TABLE collection_items DROP COLUMN transaction_seq',
  'CREATE UNIQUE INDEX collection_items_once ON collection_items(transaction_id, attempt) WHERE cancelled_at IS NULL',
];
