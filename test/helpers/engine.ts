// The engine a test file runs on: the `sqlite` project runs every suite on SQLite, the `postgres`
// project runs the engine-neutral suites (core, api, conformance, store) again on PostgreSQL.
import { inject } from 'vitest';
import pg from 'pg';
import type { Engine } from '../../src/lib/store/store.js';
import { tempDbPath } from './store.js';

export const ENGINE: Engine = process.env.BILLING_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** The run's PostgreSQL server (started by test/global-setup.ts), as a URL to its postgres database. */
export const postgresAdminUrl = (): string => inject('postgresUrl');

let made = 0;

/** A new, empty PostgreSQL database on the run's server, as a URL. */
export async function freshPostgresUrl(): Promise<string> {
  const admin = postgresAdminUrl();
  const name = `billing_t${process.pid}_${++made}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return admin.replace(/\/[^/]*$/, `/${name}`);
}

/** Where a fresh store lives on the engine of this run: a temporary file, or a new database. */
export async function freshStoreLocation(engine: Engine = ENGINE): Promise<string> {
  return engine === 'postgres' ? freshPostgresUrl() : tempDbPath();
}
