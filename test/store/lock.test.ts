// Another process holding SQLite's write lock. A store that yields when busy (billing serve) never
// waits for it on the thread: its writes wait on timers, in order, for at most the bound, and then
// fail with StoreBusyError having changed nothing; its reads go on. A blocking store (the CLI)
// waits on the thread as SQLite's busy timeout does, for the same bound. PostgreSQL has no such
// lock: withoutWaiting() is the store itself there.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteMigrations } from '../../src/lib/store/migrations.js';
import {
  isLockBusy,
  openStore,
  skippedTurn,
  StoreBusyError,
  withoutWaiting,
  type SqliteStore,
} from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { ENGINE } from '../helpers/engine.js';
import { holdWriteLock } from '../helpers/lock.js';
import { accountRow, closeLater, insertAccount, tempDbPath, testStore } from '../helpers/store.js';

const names = (store: SqliteStore) =>
  store.read(() => all((q) => q.selectFrom('accounts').select('name').orderBy('id'))).map((row) => row.name);

/** A SQLite store at a new path, opened with this bound; yielding as billing serve's unless `blocking`. */
async function sqliteStore(busyMs: number, blocking = false): Promise<{ store: SqliteStore; path: string }> {
  const path = tempDbPath();
  const store = closeLater((await openStore(path, { busyMs })) as SqliteStore);
  if (!blocking) store.yieldWhenBusy();
  return { store, path };
}

describe.runIf(ENGINE === 'sqlite')('a SQLite store while another process holds its write lock (SQLite only)', () => {
  it('yielding: a write waits on a promise, reads go on; queued writes commit in order', async () => {
    const { store, path } = await sqliteStore(30_000);
    const holder = await holdWriteLock(path);
    const first = store.write(() => insertAccount('first'));
    const second = store.writeOne((q) => q.insertInto('accounts').values(accountRow('second')).returning('id'));
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBeInstanceOf(Promise);
    // The thread is free: a read answers at once, and sees neither write.
    expect(names(store)).toEqual([]);
    // Once writes wait, a new one queues behind them even if it could go first.
    const third = store.work(() => insertAccount('third'));
    expect(third).toBeInstanceOf(Promise);
    await holder.release();
    const ids = [await first, (await second)!.id, await third];
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(names(store)).toEqual(['first', 'second', 'third']);
    // With nobody else holding the lock, a write is synchronous again.
    expect(typeof store.write(() => insertAccount('fourth'))).toBe('number');
  });

  it('yielding: a write the lock outlasts fails after the bound naming file and holder', async () => {
    const { store, path } = await sqliteStore(300);
    const holder = await holdWriteLock(path);
    const error = await Promise.resolve(store.write(() => insertAccount('late'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreBusyError);
    expect(isLockBusy(error)).toBe(true);
    expect(skippedTurn(error)).toBe(false);
    const busy = error as StoreBusyError;
    expect(busy.lock).toEqual({ file: path, holder: `pid ${holder.pid} (node)`, waitedMs: 300 });
    expect(busy.message).toBe(
      `store busy, try again: another process, pid ${holder.pid} (node), kept ${path} locked for writing ` +
        'longer than the 0.3 s wait (BILLING_BUSY_MS); nothing was changed',
    );
    await holder.release();
    expect(names(store)).toEqual([]);
  });

  it('withoutWaiting: fails at once while the lock is held or writes wait; writes once free', async () => {
    const { store, path } = await sqliteStore(30_000);
    const background = withoutWaiting(store);
    const holder = await holdWriteLock(path);
    let thrown: unknown;
    try {
      void background.write(() => insertAccount('skipped'));
    } catch (error) {
      thrown = error;
    }
    expect(skippedTurn(thrown)).toBe(true);
    expect((thrown as Error).message).toBe(
      `store busy: another process holds the write lock of ${path}; this turn is skipped`,
    );
    await holder.release();
    // Another connection (in this process, so it lets go at a known moment) takes the lock; a
    // request's write queues for it. Freed in the same turn, the lock is free but that write still
    // waits for its timer: background work lets it go first.
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const waiting = store.write(() => insertAccount('waiting'));
    other.exec('ROLLBACK');
    other.close();
    expect(() => background.work(() => insertAccount('pushy'))).toThrow(StoreBusyError);
    await waiting;
    expect(background.write(() => insertAccount('background'))).toEqual(expect.any(Number));
    expect(names(store)).toEqual(['waiting', 'background']);
  });

  it('blocking (the CLI): a write waits on the thread for the bound; withoutWaiting does not', async () => {
    const { store, path } = await sqliteStore(400, true);
    const holder = await holdWriteLock(path);
    const started = performance.now();
    expect(() => store.write(() => insertAccount('late'))).toThrow(
      /^store busy, try again: another process, pid \d+ \(node\), kept .+ locked for writing longer than the 0\.4 s/,
    );
    // It did wait (SQLite's busy timeout), where the background try gives up at once.
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect(() => withoutWaiting(store).write(() => insertAccount('skipped'))).toThrow(/this turn is skipped/);
    expect(names(store)).toEqual([]);
    await holder.release();
    // The background try left the connection's busy timeout as it was.
    expect(store.write(() => insertAccount('now'))).toEqual(expect.any(Number));
  });

  it('closing refuses the writes still waiting, having changed nothing', async () => {
    const { store, path } = await sqliteStore(30_000);
    const holder = await holdWriteLock(path);
    const waiting = Promise.resolve(store.write(() => insertAccount('waiting'))).catch((e: unknown) => e);
    await store.close();
    expect(await waiting).toBeInstanceOf(StoreBusyError);
    await holder.release();
    const again = closeLater((await openStore(path)) as SqliteStore);
    expect(names(again)).toEqual([]);
  });

  it('opening a store that needs migrating waits for the bound, then fails', async () => {
    const path = tempDbPath();
    await (await openStore(path)).close();
    const older = new Database(path);
    older.pragma(`user_version = ${sqliteMigrations.length - 1}`);
    older.close();
    const holder = await holdWriteLock(path);
    const error = await openStore(path, { busyMs: 300 }).catch((e: unknown) => e);
    expect(isLockBusy(error)).toBe(true);
    expect((error as Error).message).toBe(
      `store busy, try again: another process, pid ${holder.pid} (node), kept ${path} locked for writing ` +
        'longer than the 0.3 s wait (BILLING_BUSY_MS); nothing was changed',
    );
    await holder.release();
  });

  it('names no process it cannot tell for certain: a file locked outside WAL (no -shm file) gets no pid', async () => {
    const path = tempDbPath();
    const holder = await holdWriteLock(path); // a new file: the holder makes it, in SQLite's rollback-journal mode
    const error = await openStore(path, { busyMs: 300 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `store busy, try again: another process kept ${path} locked for writing longer than the 0.3 s wait ` +
        '(BILLING_BUSY_MS); nothing was changed',
    );
    expect((error as StoreBusyError).lock).toEqual({ file: path, holder: undefined, waitedMs: 300 });
    await holder.release();
  });
});

describe.runIf(ENGINE === 'postgres')('withoutWaiting on PostgreSQL (PostgreSQL only)', () => {
  it('is the store itself: its writers do not queue on one lock', async () => {
    const store = await testStore();
    expect(withoutWaiting(store)).toBe(store);
  });
});
