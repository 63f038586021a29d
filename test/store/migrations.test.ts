// Opening a store: migrations run once and are recorded; the journal is WAL.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteMigrations as migrations } from '../../src/lib/store/migrations.js';
import { openStore } from '../../src/lib/store/store.js';
import { defaultAccount } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { TEST_NOW, tempDbPath } from '../helpers/store.js';

const pragmas = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return {
      userVersion: db.pragma('user_version', { simple: true }) as number,
      journalMode: db.pragma('journal_mode', { simple: true }) as string,
      tables: (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name),
    };
  } finally {
    db.close();
  }
};

describe('openStore', () => {
  it('when the file is new, runs every migration, records the version and turns WAL on', () => {
    const path = tempDbPath();
    openStore(path).close();
    const seen = pragmas(path);
    expect(seen.userVersion).toBe(migrations.length);
    expect(seen.journalMode).toBe('wal');
    expect(seen.tables).toEqual(['accounts', 'api_keys', 'customers', 'subscription_plans', 'subscriptions']);
  });

  it('when the store is opened again, does not run the migrations again and keeps the data', () => {
    const path = tempDbPath();
    const first = openStore(path);
    const account = defaultAccount(first, fixedClock(TEST_NOW));
    first.close();

    // Re-running the first migration would fail (its tables exist); opening must just work.
    const second = openStore(path);
    try {
      expect(second.all(second.q.selectFrom('accounts').selectAll())).toEqual([account]);
    } finally {
      second.close();
    }
    expect(pragmas(path).userVersion).toBe(migrations.length);
  });

  it('when two connections are open on the same file at once, both work and the version is recorded once', () => {
    const path = tempDbPath();
    const a = openStore(path);
    const b = openStore(path);
    try {
      const account = defaultAccount(a, fixedClock(TEST_NOW));
      expect(b.get(b.q.selectFrom('accounts').selectAll().where('id', '=', account.id))).toEqual(account);
      expect(pragmas(path)).toMatchObject({ userVersion: migrations.length, journalMode: 'wal' });
    } finally {
      a.close();
      b.close();
    }
  });

  it('when a write throws, rolls back everything it wrote', () => {
    const store = openStore(tempDbPath());
    try {
      const clock = fixedClock(TEST_NOW);
      defaultAccount(store, clock);
      expect(() =>
        store.write(() => {
          store.run(store.q.updateTable('accounts').set({ invoice_prefix: 'CHANGED-' }));
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(store.get(store.q.selectFrom('accounts').select('invoice_prefix'))?.invoice_prefix).toBe('INV-');
    } finally {
      store.close();
    }
  });
});
