// Temporary stores and an in-process core for tests, on the engine of the run (see engine.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import { fixedClock, systemClock, type Clock } from '../../src/lib/core/clock.js';
import { openStore, type Store } from '../../src/lib/store/store.js';
import { openRuntime, type Runtime } from '../../src/lib/runtime/runtime.js';
import { embeddedTransport } from '../../src/lib/transport/embedded.js';
import { get, type Unit } from '../../src/lib/store/unit.js';
import type { Transport } from '../../src/lib/transport/types.js';
import { freshStoreLocation } from './engine.js';

/** Connections one test store may open on PostgreSQL: enough for the tests that race, few enough for many files. */
export const TEST_POOL_SIZE = 4;

// What a test opens is closed when the test ends; what a file opens outside its tests (beforeAll),
// when the file ends: PostgreSQL pools must not pile up connections across a run.
const opened: { test: Store[] | undefined; file: Store[] } = { test: undefined, file: [] };
const dirs: string[] = [];

beforeEach(() => {
  opened.test = [];
});
afterEach(async () => {
  const stores = opened.test ?? [];
  opened.test = undefined;
  await Promise.all(stores.map((store) => store.close()));
});
afterAll(async () => {
  await Promise.all(opened.file.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Closes the store after the test (or, opened outside a test, after the file). Returns it. */
export function closeLater<S extends Store>(store: S): S {
  (opened.test ?? opened.file).push(store);
  return store;
}

/** A fresh directory, removed after the test file. */
export function tempDir(prefix = 'billing-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A path for a fresh store file. */
export const tempDbPath = (): string => join(tempDir(), 'billing.db');

export const TEST_NOW = '2026-11-21T10:00:00.000Z';

/** The store at a location (a fresh one on the run's engine by default), closed after the test. */
export async function testStore(location?: string): Promise<Store> {
  return closeLater(await openStore(location ?? (await freshStoreLocation()), { poolSize: TEST_POOL_SIZE }));
}

export type TestCore = Runtime & { transport: Transport; dbPath: string };

/**
 * The core on a fresh store of the run's engine (or on options.dbPath), acting as the default
 * account, at a fixed time; closed after the test (or after the file, when opened outside a test).
 */
export async function testCore(
  options: { clock?: Clock; account?: string; dbPath?: string; baseUrl?: string } = {},
): Promise<TestCore> {
  const dbPath = options.dbPath ?? (await freshStoreLocation());
  const core = await openRuntime({
    location: dbPath,
    poolSize: TEST_POOL_SIZE,
    clock: options.clock ?? fixedClock(TEST_NOW),
    account: options.account,
    baseUrl: options.baseUrl,
  });
  closeLater(core.store);
  return Object.assign(core, { transport: embeddedTransport(core), dbPath });
}

/** A SQLite store with one account, closed again: its path and the account's API key (serve tests). */
export async function storeWithAccount(name = 'alpha'): Promise<{ dbPath: string; key: string }> {
  const dbPath = tempDbPath();
  const store = await openStore(dbPath);
  const made = await createAccount(store, systemClock, name).finally(() => store.close());
  if (!made.ok) throw new Error(`could not make account ${name}`);
  return { dbPath, key: made.value.apiKey };
}

/** Inserts a bare account row (no default, no key) in a unit: a write to count or order by. Its id. */
export function* insertAccount(name: string): Unit<number> {
  const row = yield* get((q) => q.insertInto('accounts').values(accountRow(name)).returning('id'));
  return row!.id;
}

/** The row insertAccount inserts. */
export const accountRow = (name: string) => ({
  name,
  is_default: 0,
  webhook_secret: 's',
  invoice_prefix: 'INV-',
  time_zone: 'UTC',
  next_invoice_number: 1,
  created_at: TEST_NOW,
  updated_at: TEST_NOW,
});
