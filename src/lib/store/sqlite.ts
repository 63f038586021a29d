// SQLite: better-sqlite3 running the queries that Kysely builds, synchronously.
//
// A unit runs from its first query to its last inside one transaction without ever yielding to
// the event loop, so nothing else in the process can interleave with it; writes are BEGIN
// IMMEDIATE, so processes queue on the write lock instead of deadlocking on a lock upgrade.
import Database from 'better-sqlite3';
import { SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql, type Compilable } from 'kysely';
import { compilePrepared, queryBuilder } from './compile.js';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { sqliteMigrations } from './migrations.js';
import { StoreOpenError, type SqliteStore } from './store.js';
import { get, type Build, type Dialect, type Op, type PreparedQuery, type Unit } from './unit.js';

const BUSY_TIMEOUT_MS = 10_000;

const dialect: Dialect = {
  // Unordered: an ORDER BY inside the aggregate costs SQLite a sorter on every read.
  joinedIds: (column) => sql<string | null>`group_concat(${sql.ref(column)})`,
};

/** A prepared query compiled for this connection: raw statements and the row mapper. */
interface Compiled {
  all(args: unknown[]): unknown[];
  get(args: unknown[]): unknown;
  run(args: unknown[]): number;
}

export function openSqliteStore(path: string): SqliteStore {
  if (path !== ':memory:') makeFolder(dirname(path));
  let sqlite: Database.Database;
  try {
    sqlite = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    enableWal(sqlite);
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    migrate(sqlite);
  } catch (error) {
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError(`cannot open the store ${path}: ${(error as Error).message}`);
  }

  const q = queryBuilder({ adapter: () => new SqliteAdapter(), introspector: (db) => new SqliteIntrospector(db), compiler: () => new SqliteQueryCompiler() });

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
  const compiledQueries = new Map<string, Compiled>();

  function prepareStatements(query: PreparedQuery<unknown, unknown[]>): Compiled {
    const compiled = compilePrepared(query, q, dialect);
    const statement = sqlite.prepare(compiled.sql);
    const { bind } = compiled;
    const run = (args: unknown[]) => statement.run(...bind(args)).changes;
    if (!statement.reader) return { all: () => [], get: () => undefined, run };
    // Rows come as arrays and become objects through a function made for this query's columns:
    // a fixed-shape object literal, about half the cost of better-sqlite3 building each object.
    statement.raw(true);
    const columns = statement.columns();
    const names = columns.map((column) => column.name);
    const toRow = new Function('r', `return {${names.map((name, i) => `${JSON.stringify(name)}: r[${i}]`).join(', ')}};`) as (row: unknown[]) => unknown;
    const all = (args: unknown[]) => (statement.all(...bind(args)) as unknown[][]).map(toRow);
    // One row (a lookup by key, the hot path of every GET) crosses from SQLite as one JSON text
    // rather than value by value: better-sqlite3 converts each column on its own, and for a
    // 27-column customer that cost twice JSON.parse of the same row. JSON keeps integers, reals
    // (17 digits), text and null exactly; it cannot hold blobs, so a blob column (or a repeated
    // name) reads raw. all() stays raw: an outer SELECT would leave the row order to SQLite.
    if (new Set(names).size !== names.length || columns.some((column) => /BLOB/i.test(column.type ?? ''))) {
      const get = (args: unknown[]) => {
        const row = statement.get(...bind(args)) as unknown[] | undefined;
        return row === undefined ? undefined : toRow(row);
      };
      return { all, get, run };
    }
    const quoted = names.map((name) => `"${name.replaceAll('"', '""')}"`).join(', ');
    const json = sqlite.prepare(`SELECT json_array(${quoted}) FROM (${compiled.sql})`).pluck();
    return {
      all,
      get: (args) => {
        const text = json.get(...bind(args)) as string | undefined;
        return text === undefined ? undefined : toRow(JSON.parse(text) as unknown[]);
      },
      run,
    };
  }

  function execute(op: Op): unknown {
    switch (op.kind) {
      case 'prepared': {
        let compiled = compiledQueries.get(op.query.key);
        if (!compiled) {
          compiled = prepareStatements(op.query);
          compiledQueries.set(op.query.key, compiled);
        }
        return compiled[op.mode](op.args);
      }
      case 'all': {
        const { statement, parameters } = prepare(op.build(q));
        return statement.all(...parameters);
      }
      case 'get': {
        const { statement, parameters } = prepare(op.build(q));
        return statement.reader ? statement.get(...parameters) : (statement.run(...parameters), undefined);
      }
      case 'run': {
        const { statement, parameters } = prepare(op.build(q));
        return statement.run(...parameters).changes;
      }
      case 'wait':
        throw new Error('a unit that waits runs only in bulkWrite');
    }
  }

  /** Runs a unit to its end, synchronously; a query's error is thrown into the unit. */
  function drive<T>(unit: Unit<T>): T {
    let step = unit.next();
    while (!step.done) {
      let value: unknown;
      try {
        value = execute(step.value);
      } catch (error) {
        step = unit.throw(error);
        continue;
      }
      step = unit.next(value);
    }
    return step.value;
  }

  const ROLLBACK = Symbol('rollback');
  // Whether a transaction of this store is open, kept in JS: asking better-sqlite3 (a native
  // getter) on every read of a batch of GETs costs more than the flag.
  let open = 0;
  const inside = <T>(fn: () => T): T => {
    open++;
    try {
      return fn();
    } finally {
      open--;
    }
  };

  const store: SqliteStore = {
    engine: 'sqlite',
    path,
    location: path,
    read<T>(unit: () => Unit<T>): T {
      // Inside another transaction the reads already share its snapshot (a savepoint adds nothing).
      return open > 0 ? drive(unit()) : (inside(() => transaction.deferred(() => drive(unit()))) as T);
    },
    snapshot<T>(fn: () => T): T {
      return open > 0 ? fn() : (inside(() => transaction.deferred(fn)) as T);
    },
    write<T>(unit: () => Unit<T>, keep?: (value: T) => boolean): T {
      ownWrites++;
      let refused: { value: T } | undefined;
      try {
        return inside(() => transaction.immediate(() => {
          const value = drive(unit());
          if (keep && !keep(value)) {
            refused = { value };
            throw ROLLBACK;
          }
          return value;
        })) as T;
      } catch (error) {
        if (error === ROLLBACK) return refused!.value;
        throw error;
      }
    },
    writeOne<R>(build: Build<R>): R | undefined {
      return store.write(() => get(build));
    },
    bulkWrite<T>(unit: () => Unit<T>): Promise<T> {
      ownWrites++;
      return driveAsync('BEGIN IMMEDIATE', unit);
    },
    bulkRead<T>(unit: () => Unit<T>): Promise<T> {
      // Deferred: the snapshot starts at the first read; in WAL mode other connections keep writing.
      return driveAsync('BEGIN DEFERRED', unit);
    },
    async schemaVersion() {
      return sqlite.pragma('user_version', { simple: true }) as number;
    },
    dataVersion: () => `${dataVersion.get() as number}.${ownWrites}`,
    async close() {
      if (sqlite.open) sqlite.close();
    },
  };
  return store;

  /** A transaction whose unit may wait between queries: only for a single user of the connection (a copy). */
  async function driveAsync<T>(begin: string, unit: () => Unit<T>): Promise<T> {
    sqlite.exec(begin);
    open++;
    try {
      const gen = unit();
      let step = gen.next();
      while (!step.done) {
        let value: unknown;
        try {
          value = step.value.kind === 'wait' ? await step.value.promise : execute(step.value);
        } catch (error) {
          step = gen.throw(error);
          continue;
        }
        step = gen.next(value);
      }
      sqlite.exec('COMMIT');
      return step.value;
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw error;
    } finally {
      open--;
    }
  }
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

/** Migrations run on open, in one write transaction, and are recorded in PRAGMA user_version. */
function migrate(sqlite: Database.Database): void {
  const current = () => sqlite.pragma('user_version', { simple: true }) as number;
  if (current() >= sqliteMigrations.length) return;
  sqlite.transaction(() => {
    // Another process may have migrated while this one waited for the lock.
    for (let version = current(); version < sqliteMigrations.length; version++) {
      sqlite.exec(sqliteMigrations[version]);
      sqlite.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
}
