// The store: one interface, two engines. SQLite (better-sqlite3, the embedded default: one file,
// no server) runs units synchronously; PostgreSQL (pg, for several `billing serve` instances on one
// database) awaits them. Use cases never see which: they are units (unit.ts), run by read/write.
import type { Build, MaybePromise, Unit } from './unit.js';

export type { DB } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

export interface Store {
  readonly engine: Engine;
  /** Where the store is, safe to print: a file path, or a URL with its password as ***. */
  readonly location: string;
  /**
   * Set when this store refuses every write: a SQLite file this user cannot write, opened for a
   * command that reads. The message of the StoreReadOnlyError a write gets.
   */
  readonly writeRefusal?: string;
  /**
   * Runs a unit in one read snapshot: every query it makes sees the same moment. `key` names the
   * kind of read (a route), so PostgreSQL can learn which reads make one query only and need no
   * transaction around it.
   */
  read<T>(unit: () => Unit<T>, key?: string, guard?: KeyGuard): MaybePromise<T>;
  /**
   * Runs a unit in one write transaction. It commits unless `keep(value)` says no (a refused
   * request), and a throw rolls it back: either way a failure changes nothing. PostgreSQL runs
   * the whole unit again after a serialization failure or deadlock, a bounded number of times.
   */
  write<T>(unit: () => Unit<T>, keep?: (value: T) => boolean): MaybePromise<T>;
  /**
   * One statement as its own transaction, for a write that needs nothing read before it (an
   * insert): PostgreSQL runs it without BEGIN and COMMIT, one round trip instead of three.
   */
  writeOne<R>(build: Build<R>): MaybePromise<R | undefined>;
  /**
   * A write that claims rows others may claim at the same time (due work): SQLite's write lock
   * serialises it like any write; PostgreSQL runs it READ COMMITTED, locking what it claims and
   * skipping what another transaction holds (Dialect.locked), and runs it again after a deadlock.
   * Also for a write that takes a counter (the next invoice number): under READ COMMITTED a second
   * writer waits for the row and reads the committed value, where SERIALIZABLE would fail it. And
   * for a write whose every check is held by a row lock or a constraint (making a subscription):
   * SERIALIZABLE's predicate locks are taken per index page, so concurrent writes of neighbouring
   * rows would fail each other for nothing. A unique violation runs it again too (its checks then
   * see the committed row). `keep` as for write.
   */
  work<T>(unit: () => Unit<T>, keep?: (value: T) => boolean): MaybePromise<T>;
  /** A write whose unit may also wait for other work between its queries (`yield* wait(p)`): copying a store in. Never retried. */
  bulkWrite<T>(unit: () => Unit<T>): Promise<T>;
  /** A read in one snapshot whose unit may wait between its queries (`yield* wait(p)`): copying a store out. Writers are not held back. */
  bulkRead<T>(unit: () => Unit<T>): Promise<T>;
  /** The schema version (the number of migrations applied). */
  schemaVersion(): Promise<number>;
  close(): Promise<void>;
}

export interface SqliteStore extends Store {
  readonly engine: 'sqlite';
  readonly path: string;
  read<T>(unit: () => Unit<T>, key?: string, guard?: KeyGuard): T;
  /**
   * Synchronous when the write lock is free (or, blocking, once it is); while another process
   * holds it a store that yields (yieldWhenBusy) answers through a promise instead.
   */
  write<T>(unit: () => Unit<T>, keep?: (value: T) => boolean): MaybePromise<T>;
  writeOne<R>(build: Build<R>): MaybePromise<R | undefined>;
  work<T>(unit: () => Unit<T>, keep?: (value: T) => boolean): MaybePromise<T>;
  /**
   * From now on a write that finds the write lock held by another process does not block the
   * thread: it waits on timers (reads and everything else go on) for at most the store's busy
   * bound, then fails with StoreBusyError having changed nothing. For billing serve; the CLI, with
   * no event loop to protect, blocks as SQLite's busy timeout does.
   */
  yieldWhenBusy(): void;
  /** See withoutWaiting(). */
  withoutWaiting(): SqliteStore;
  /** Changes whenever anything is committed, by this connection or another: cached reads made under another value are stale. */
  dataVersion(): string;
  /**
   * Runs a plain function in one read transaction: reads made inside (store.read) share its
   * snapshot. For billing serve's GETs of one event-loop turn; a unit would do, but running the
   * whole batch inside a generator made V8 keep its objects past the next scavenge (2 MB promoted
   * per scavenge, GC pauses 0.7 -> 5 ms).
   */
  snapshot<T>(fn: () => T): T;
  /** A consistent copy of the whole store into a new file, through SQLite's backup API (writers are not held back). */
  backup(to: string): Promise<void>;
}

export interface PostgresStore extends Store {
  readonly engine: 'postgres';
  read<T>(unit: () => Unit<T>, key?: string, guard?: KeyGuard): Promise<T>;
  write<T>(unit: () => Unit<T>, keep?: (value: T) => boolean): Promise<T>;
  writeOne<R>(build: Build<R>): Promise<R | undefined>;
  work<T>(unit: () => Unit<T>, keep?: (value: T) => boolean): Promise<T>;
}

/**
 * What a cached API key stood for: PostgreSQL checks it inside the first statement of the read
 * (same snapshot, no extra round trip) and throws KeyGuardError when the key no longer belongs
 * to that account as it was (rotated, or the account changed). SQLite needs no guard: its cache
 * is dropped on any commit (data_version).
 */
export interface KeyGuard {
  keyHash: string;
  accountId: number;
  /** The account's updated_at (ISO) when it was cached. */
  accountUpdatedAt: string;
}

/** A read's key guard failed: authenticate again, without the cache. */
export class KeyGuardError extends Error {
  override name = 'KeyGuardError';
}

/**
 * What opening a store may make. 'nothing': a command that only reads; the store must exist
 * (a missing SQLite file, or a database without the billing schema, is StoreMissingError) and a
 * SQLite file that cannot be written is opened read-only. 'file': a command that writes; a missing
 * SQLite file is made, in a folder that must exist. 'folders': its missing folders are made too
 * (the default location of the store).
 */
export type Create = 'nothing' | 'file' | 'folders';

export interface OpenOptions {
  /** PostgreSQL: the most connections the pool opens (default 10). */
  poolSize?: number;
  /** PostgreSQL: the longest one statement may run, in ms (default 30 s). */
  statementTimeoutMs?: number;
  /** Default 'folders'. */
  create?: Create;
  /** SQLite: the longest a write waits for the write lock another process holds, in ms (default DEFAULT_BUSY_MS). */
  busyMs?: number;
}

/** How long a SQLite write waits for another process's write lock by default (BILLING_BUSY_MS sets it). */
export const DEFAULT_BUSY_MS = 5_000;

/** Opens the store at a file path (SQLite) or a postgres:// URL, migrating it to this version. */
export async function openStore(location: string, options: OpenOptions = {}): Promise<Store> {
  const where = parseLocation(location);
  if (where.engine === 'sqlite') {
    const { openSqliteStore } = await import('./sqlite.js');
    return openSqliteStore(where.path, { create: options.create, busyMs: options.busyMs });
  }
  return (await import('./postgres.js')).openPostgresStore(where.url, options);
}

/**
 * The store for work that can wait for its next turn (due work, the senders' claims): on SQLite a
 * write that finds the write lock held by another process (or writes of this process already
 * queued for it) fails at once, StoreBusyError with `lock.skipped` (see skippedTurn), instead of waiting.
 * PostgreSQL: the store itself (its writers do not queue on one lock).
 */
export function withoutWaiting(store: Store): Store {
  return store.engine === 'sqlite' ? (store as SqliteStore).withoutWaiting() : store;
}

export type StoreLocation = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A --db value as an engine and where: postgres:// and postgresql:// URLs, anything else not URL-like is a file. */
export function parseLocation(value: string): StoreLocation {
  if (/^postgres(ql)?:\/\//i.test(value)) return { engine: 'postgres', url: value };
  // Never a file named "mysql:" or "http:": a URL that is not PostgreSQL's is a usage error.
  if (URL_LIKE.test(value)) {
    throw new StoreOpenError(
      `the store ${redact(value)} is a URL of no supported engine: give a file path (SQLite) or a postgres:// URL`,
    );
  }
  return { engine: 'sqlite', path: value };
}

/** Any text with the password of every URL in it shown as ***. */
export function redact(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^@/?#\s]*@/gi, '$1***@')
    .replace(/([?&]password=)[^&\s]*/gi, '$1***');
}

/** The store could not be opened: a bad path, not a store, an unknown database (exit 2). */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/**
 * A store a newer billing has migrated past what this one knows: its queries would run on a schema
 * they were not written for (a column gone, an index dropped), so it is not opened at all.
 */
export function newerStore(where: string, version: number, known: number): StoreOpenError {
  return new StoreOpenError(
    `the store ${where} is at schema version ${version}, which a newer billing made; this billing knows versions up to ${known}: upgrade billing to use it`,
  );
}

/** How to get a store, for a read that found none. */
export const MAKE_A_STORE =
  'make one with `billing demo` (a sample) or any command that creates something, or point --db (BILLING_DB) at an existing store';

/** A command that only reads found no store there; nothing was made (exit 2). */
export class StoreMissingError extends Error {
  override name = 'StoreMissingError';
}

/** A command that writes found the store read-only (exit 2); reads still work. */
export class StoreReadOnlyError extends Error {
  override name = 'StoreReadOnlyError';
}

/** The database server could not be reached (exit 3). */
export class StoreUnreachableError extends Error {
  override name = 'StoreUnreachableError';
}

/** Where a SQLite store was busy: its file, the process holding the lock when known, and how long this one waited. */
export interface StoreLock {
  file: string;
  /** `pid 4242 (sqlite3)`, read from /proc/locks; absent when it could not be told. */
  holder?: string;
  waitedMs: number;
  /** Thrown by withoutWaiting()'s one try: the work waits for its next turn. */
  skipped?: boolean;
}

/**
 * The write changed nothing and may simply be sent again (billing serve answers 503 with
 * Retry-After; the embedded CLI exits 1). PostgreSQL: concurrent writes kept conflicting with it
 * past every retry. SQLite (`lock` set): another process held the store's lock past the wait.
 */
export class StoreBusyError extends Error {
  override name = 'StoreBusyError';
  constructor(
    message: string,
    readonly lock?: StoreLock,
  ) {
    super(message);
  }
}

/** Another process held a SQLite store's lock (past the wait, or at once for withoutWaiting). */
export const isLockBusy = (error: unknown): error is StoreBusyError =>
  (error as Error | undefined)?.name === 'StoreBusyError' && (error as StoreBusyError).lock !== undefined;

/** A write of withoutWaiting() found the lock held: the work's turn is skipped, nothing to report. */
export const skippedTurn = (error: unknown): boolean => isLockBusy(error) && error.lock!.skipped === true;

/** The database server refused the credentials (exit 4). */
export class StoreAuthError extends Error {
  override name = 'StoreAuthError';
}
