// The store: better-sqlite3 executing queries that Kysely builds and types.
//
// Kysely is used as a query builder only (compile, then run synchronously). A synchronous core
// means a use case's read-check-write can never interleave with another request in the same
// process, and better-sqlite3's immediate transactions take the write lock up front, so two
// processes never deadlock on a lock upgrade (SQLITE_BUSY).
import Database from 'better-sqlite3';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Compilable } from 'kysely';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations.js';
import type { DB } from './schema.js';

export type { DB } from './schema.js';

export interface Prepared<R, A extends unknown[]> {
  all(...args: A): R[];
  /** The row a lookup finds (by a unique key); where several rows can match, use all(). */
  get(...args: A): R | undefined;
  run(...args: A): { changes: number; lastInsertRowid: number };
}

/** Stands for the i-th argument of a prepared query. */
export type Param = (index: number) => never;

export interface Store {
  /** The query builder; pass what it builds to all/get/run. */
  readonly q: Kysely<DB>;
  /**
   * A query built and compiled once per store under `key`, then run with arguments: for the hot
   * paths, where building and compiling a Kysely query on every call costs more than SQLite does.
   * `build` receives `param(i)`, a stand-in for the i-th argument.
   */
  prepared<R, A extends unknown[]>(key: string, build: (param: Param) => Compilable<R>): Prepared<R, A>;
  all<R>(query: Compilable<R>): R[];
  get<R>(query: Compilable<R>): R | undefined;
  run(query: Compilable<unknown>): { changes: number; lastInsertRowid: number };
  /** Runs fn in one write transaction (BEGIN IMMEDIATE); a throw rolls everything back. */
  write<T>(fn: () => T): T;
  /** Runs fn in one read transaction, so several reads see one snapshot; inside a transaction, in that one. */
  read<T>(fn: () => T): T;
  /** Changes whenever anything is committed, by this connection or another: cached reads made under another value are stale. */
  dataVersion(): string;
  readonly path: string;
  close(): void;
}

const BUSY_TIMEOUT_MS = 10_000;

export function openStore(path: string): Store {
  if (path !== ':memory:') makeFolder(dirname(path));
  let sqlite: Database.Database;
  try {
    sqlite = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    enableWal(sqlite);
  } catch (error) {
    throw new StoreOpenError(`cannot open the store ${path}: ${(error as Error).message}`);
  }
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  migrate(sqlite);

  const q = new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });

  const statements = new Map<string, Database.Statement>();
  const prepare = (query: Compilable<unknown>) => {
    const compiled = query.compile();
    let statement = statements.get(compiled.sql);
    if (!statement) {
      statement = sqlite.prepare(compiled.sql);
      statements.set(compiled.sql, statement);
    }
    return { statement, parameters: compiled.parameters as unknown[] };
  };

  // Made once: better-sqlite3 builds each transaction function with several property definitions.
  const transaction = sqlite.transaction((fn: () => unknown) => fn());
  // data_version moves with other connections' commits; this connection counts its own writes.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  let ownWrites = 0;
  const preparedQueries = new Map<string, Prepared<unknown, unknown[]>>();
  const PARAM = Symbol('param');
  type Marker = { [PARAM]: number };
  const isMarker = (value: unknown): value is Marker => typeof value === 'object' && value !== null && PARAM in value;

  function compilePrepared(build: (param: Param) => Compilable<unknown>): Prepared<unknown, unknown[]> {
    const compiled = build(((index: number) => ({ [PARAM]: index })) as unknown as Param).compile();
    const statement = sqlite.prepare(compiled.sql);
    // Each bound value is either an argument (by index) or a constant written into the query.
    const sources = compiled.parameters.map((value) => (isMarker(value) ? { index: value[PARAM], value: undefined } : { index: -1, value }));
    // Arguments that stand in order for every bound value are passed as they are (the hot lookups).
    const direct = sources.every((source, i) => source.index === i);
    const bind = (args: unknown[]) => (direct && args.length === sources.length ? args : sources.map((source) => (source.index >= 0 ? args[source.index] : source.value)));
    const run = (...args: unknown[]) => {
      ownWrites++;
      const result = statement.run(...bind(args));
      return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
    };
    if (!statement.reader) return { all: () => [], get: () => undefined, run };
    // Rows come as arrays and become objects through a function made for this query's columns:
    // a fixed-shape object literal, about half the cost of better-sqlite3 building each object.
    statement.raw(true);
    const columns = statement.columns();
    const names = columns.map((column) => column.name);
    const toRow = new Function('r', `return {${names.map((name, i) => `${JSON.stringify(name)}: r[${i}]`).join(', ')}};`) as (row: unknown[]) => unknown;
    const all = (...args: unknown[]) => (statement.all(...bind(args)) as unknown[][]).map(toRow);
    // One row (a lookup by key, the hot path of every GET) crosses from SQLite as one JSON text
    // rather than value by value: better-sqlite3 converts each column on its own, and for a
    // 27-column customer that cost twice JSON.parse of the same row. JSON keeps integers, reals
    // (17 digits), text and null exactly; it cannot hold blobs, so a blob column (or a repeated
    // name) reads raw. all() stays raw: an outer SELECT would leave the row order to SQLite.
    if (new Set(names).size !== names.length || columns.some((column) => /BLOB/i.test(column.type ?? ''))) {
      const get = (...args: unknown[]) => {
        const row = statement.get(...bind(args)) as unknown[] | undefined;
        return row === undefined ? undefined : toRow(row);
      };
      return { all, get, run };
    }
    const quoted = names.map((name) => `"${name.replaceAll('"', '""')}"`).join(', ');
    const json = sqlite.prepare(`SELECT json_array(${quoted}) FROM (${compiled.sql})`).pluck();
    return {
      all,
      get: (...args) => {
        const text = json.get(...bind(args)) as string | undefined;
        return text === undefined ? undefined : toRow(JSON.parse(text) as unknown[]);
      },
      run,
    };
  }

  return {
    q,
    path,
    prepared<R, A extends unknown[]>(key: string, build: (param: Param) => Compilable<R>): Prepared<R, A> {
      let query = preparedQueries.get(key);
      if (!query) {
        query = compilePrepared(build);
        preparedQueries.set(key, query);
      }
      return query as unknown as Prepared<R, A>;
    },
    all<R>(query: Compilable<R>): R[] {
      const { statement, parameters } = prepare(query);
      return statement.all(...parameters) as R[];
    },
    get<R>(query: Compilable<R>): R | undefined {
      const { statement, parameters } = prepare(query);
      return statement.get(...parameters) as R | undefined;
    },
    run(query) {
      ownWrites++;
      const { statement, parameters } = prepare(query);
      const result = statement.run(...parameters);
      return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
    },
    write<T>(fn: () => T): T {
      ownWrites++;
      return transaction.immediate(fn) as T;
    },
    read<T>(fn: () => T): T {
      // Inside another transaction the reads already share its snapshot (a savepoint adds nothing).
      return sqlite.inTransaction ? fn() : (transaction.deferred(fn) as T);
    },
    dataVersion: () => `${dataVersion.get() as number}.${ownWrites}`,
    close() {
      if (sqlite.open) sqlite.close();
    },
  };
}

/** The store file could not be opened (a folder that cannot be made, a file that is not a store). */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdir spins forever on some paths (a missing
 * folder under /proc), and every failure here should be one clear message.
 */
function makeFolder(folder: string): void {
  const missing: string[] = [];
  for (let current = folder; !existsSync(current); current = dirname(current)) {
    if (dirname(current) === current) break;
    missing.unshift(current);
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new StoreOpenError(`cannot make the store's folder ${level}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Switches a new store to WAL. The switch needs the file to itself and SQLite does not wait for
 * it with the busy timeout, so processes opening a new store at the same moment retry here.
 */
function enableWal(sqlite: Database.Database): void {
  if (String(sqlite.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      pause(5 + Math.random() * 20);
    }
  }
}

function migrate(sqlite: Database.Database): void {
  const current = () => sqlite.pragma('user_version', { simple: true }) as number;
  if (current() >= migrations.length) return;
  sqlite.transaction(() => {
    // Another process may have migrated while this one waited for the lock.
    for (let version = current(); version < migrations.length; version++) {
      sqlite.exec(migrations[version]);
      sqlite.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
}
