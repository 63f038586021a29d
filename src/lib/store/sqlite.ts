// SQLite: better-sqlite3 running the queries that Kysely builds, synchronously.
//
// A unit runs from its first query to its last inside one transaction without ever yielding to
// the event loop, so nothing else in the process can interleave with it; writes are BEGIN
// IMMEDIATE, so processes queue on the write lock instead of deadlocking on a lock upgrade.
// Only the waiting for that lock may leave the thread: a store that yields when busy (billing
// serve) tries it without waiting and, while another process holds it, again on timers.
import Database from 'better-sqlite3';
import { SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql, type Compilable, type SqlBool } from 'kysely';
import { compilePrepared, queryBuilder, searchTextHolds } from './compile.js';
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { SEARCH_TEXT_VERSION, sqliteMigrations } from './migrations.js';
import { customerSearchText, type SearchedFields } from './search-text.js';
import { walWriteLockHolder } from './lock-holder.js';
import {
  DEFAULT_BUSY_MS,
  MAKE_A_STORE,
  StoreBusyError,
  StoreMissingError,
  StoreOpenError,
  StoreReadOnlyError,
  newerStore,
  type Create,
  type SqliteStore,
} from './store.js';
import { get, type Build, type Dialect, type Op, type PreparedQuery, type RowsSpec, type Unit } from './unit.js';

/** Between tries for the write lock, like SQLite's busy handler, capped at 25 ms (a freed lock is seen that soon). */
const RETRY_DELAYS_MS = [1, 2, 5, 10, 15, 20, 25];
/** How long the writes queued for the lock may run in one go before the event loop gets a turn. */
const DRAIN_SLICE_MS = 10;

/** SQLITE_BUSY and its extended codes (BUSY_RECOVERY, BUSY_SNAPSHOT, BUSY_TIMEOUT). */
const isBusy = (error: unknown): boolean =>
  (error as { code?: unknown } | undefined)?.code?.toString().startsWith('SQLITE_BUSY') === true;

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

/**
 * Another process kept the store locked for writing past the wait: the message names the file,
 * and the holder when /proc/locks tells it.
 */
function lockedError(path: string, waitedMs: number, holder = walWriteLockHolder(path)): StoreBusyError {
  const who = holder ? `another process, ${holder},` : 'another process';
  const message =
    `store busy, try again: ${who} kept ${path} locked for writing longer than the ${seconds(waitedMs)} wait ` +
    '(BILLING_BUSY_MS); nothing was changed';
  return new StoreBusyError(message, { file: path, holder, waitedMs });
}

/** A read found the store locked: only while another process recovers or checkpoints it (WAL readers need no lock). */
const readLockedError = (path: string): StoreBusyError =>
  new StoreBusyError(
    `store busy, try again: another process has ${path} locked while it recovers or checkpoints it; ` +
      'nothing was changed',
    { file: path, waitedMs: 0 },
  );

const dialect: Dialect = {
  // Unordered: an ORDER BY inside the aggregate costs SQLite a sorter on every read.
  joinedIds: (column) => sql<string | null>`group_concat(${sql.ref(column)})`,
  // lower() folds ASCII only, and the default collation (BINARY) orders by code point.
  lower: (column) => sql<string>`lower(${sql.ref(column)})`,
  // The search text's index is on lower() of it (which changes nothing: it is folded already): on
  // the column, SQLite would take that index as covering and read a whole account through it
  // rather than find the few rows through the trigram table (a search of a company took 190 ms).
  codePoint: (column) => sql<string>`lower(${sql.ref(column)})`,
  // SQLite has no OFFSET without a LIMIT; -1 is no limit.
  fenced: (query) => query.limit(-1).offset(0),
  customerSearch(terms) {
    // The FTS5 trigram table customers_search indexes each customer's search text: a quoted term
    // of 3 characters or more matches where it is a substring, and several quoted terms must all
    // match. A shorter term has no trigram: it is tested on the rows the others found, or on the
    // account's rows when there is no other.
    const indexed = terms.filter((term) => [...term].length >= 3);
    const short = terms.filter((term) => [...term].length < 3);
    if (indexed.length === 0) return searchTextHolds(short);
    const found = sql<SqlBool>`${sql.ref('id')} IN (SELECT rowid FROM customers_search WHERE customers_search MATCH ${indexed.map(phrase).join(' ')})`;
    return short.length ? sql<SqlBool>`(${found} AND ${searchTextHolds(short)})` : found;
  },
  before: (column, separator) =>
    sql<string>`substr(${sql.ref(column)}, 1, coalesce(nullif(instr(${sql.ref(column)}, ${separator}), 0), length(${sql.ref(column)}) + 1) - 1)`,
  // One writer at a time (BEGIN IMMEDIATE): what a write reads, nobody else changes meanwhile.
  locked: (query) => query,
  shared: (query) => query,
  serialized: () => sql`SELECT 1`,
  among: (column, ids) => sql<SqlBool>`${sql.ref(column)} in (${sql.join(ids)})`,
};

/** An FTS5 query that is the text as one phrase: quoted, its quotes doubled, no syntax left in it. */
const phrase = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/** A write queued for the lock (a store that yields): tried until it runs or its deadline (performance.now()). */
interface Waiting {
  attempt(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  deadline: number;
}

type RowMaker = (row: unknown[]) => unknown;

/**
 * A reader's rows as objects, from the arrays of its raw mode (which the caller sets): a function
 * made for the statement's columns, building a fixed-shape object literal. better-sqlite3 building
 * each object itself costs about twice as much: 1.1 s against 0.45 for a batch's 300 reads of
 * 1,000 rows. The function is made once the statement has read MADE_AFTER rows, a loop doing it
 * before: a command that reads a few rows of each statement compiles none (a finalise's ten cost
 * 0.57 ms of its start, against 0.22 ms for the loop's rows). A name given twice keeps its last
 * value, as better-sqlite3's objects do.
 */
function rowMaker(statement: Database.Statement): RowMaker {
  const names = statement.columns().map((column) => column.name);
  let rows = 0;
  let made: RowMaker | undefined;
  return (r) => {
    if (made) return made(r);
    if (++rows === MADE_AFTER) {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- deliberate (see above); keys JSON.stringify'd
      made = new Function(
        'r',
        `return {${names.map((name, i) => `${JSON.stringify(name)}: r[${i}]`).join(', ')}};`,
      ) as RowMaker;
    }
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]] = r[i];
    return row;
  };
}
const MADE_AFTER = 64;

/** A prepared query compiled for this connection: raw statements and the row mapper. */
interface Compiled {
  all(args: unknown[]): unknown[];
  get(args: unknown[]): unknown;
  run(args: unknown[]): number;
}

export interface SqliteOptions {
  /** What opening may make; default 'folders'. */
  create?: Create;
  /**
   * The longest a write waits for the write lock another process holds, in ms; then it fails
   * with StoreBusyError, having changed nothing. Default DEFAULT_BUSY_MS. Opening waits as long
   * for what it writes (WAL, migrations), blocking: nothing is served before the store is open.
   */
  busyMs?: number;
}

export function openSqliteStore(path: string, options: SqliteOptions = {}): SqliteStore {
  const create = options.create ?? 'folders';
  const busyMs = options.busyMs ?? DEFAULT_BUSY_MS;
  const readOnly = path !== ':memory:' && path !== '' && prepareFile(path, create);
  let opened: Database.Database | undefined;
  try {
    const sqlite = (opened = new Database(path, {
      timeout: busyMs,
      readonly: readOnly,
      fileMustExist: create === 'nothing',
    }));
    // A read finds no billing store in a file without its schema (an empty file, another program's
    // database), and leaves it as it is: this is asked before anything (WAL) is written.
    const version = sqlite.pragma('user_version', { simple: true }) as number;
    if (create === 'nothing' && version === 0)
      throw new StoreMissingError(`${path} is not a billing store yet: ${MAKE_A_STORE}`);
    if (version > sqliteMigrations.length) throw newerStore(path, version, sqliteMigrations.length);
    if (!readOnly) enableWal(sqlite, busyMs);
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    if (readOnly && version < sqliteMigrations.length) {
      throw new StoreReadOnlyError(
        `the store ${path} is read-only and needs upgrading to this version of billing, which only a user who can write it can do (open it once with write access)`,
      );
    }
    if (migrate(sqlite)) {
      // A migration that rebuilds a table (ALTER TABLE ... DROP COLUMN) leaves SQLite's temporary
      // database open on its connection, and while it is open PRAGMA temp_store fails inside any
      // transaction (an import sets it). Changing temp_store outside one closes it; then back.
      sqlite.pragma('temp_store = MEMORY');
      sqlite.pragma('temp_store = DEFAULT');
    }
  } catch (error) {
    if (opened?.open) opened.close();
    if (error instanceof StoreOpenError || error instanceof StoreMissingError || error instanceof StoreReadOnlyError)
      throw error;
    if (isBusy(error)) throw lockedError(path, busyMs);
    const code = (error as { code?: string }).code;
    if (readOnly && (code === 'SQLITE_READONLY_DIRECTORY' || code === 'SQLITE_CANTOPEN')) {
      throw new StoreOpenError(
        `cannot read the store ${path}: its folder ${dirname(path)} is read-only, and SQLite needs to make its shared-memory file (${basename(path)}-shm) beside it; let this user write the folder, or copy the store elsewhere`,
      );
    }
    throw new StoreOpenError(`cannot open the store ${path}: ${(error as Error).message}`);
  }
  const sqlite = opened;
  const writeRefusal = readOnly ? readOnlyMessage(path) : undefined;
  const refuseWrites = (): void => {
    // A read (opened read-only) that would still write, e.g. the default account on first use.
    if (writeRefusal !== undefined) throw new StoreReadOnlyError(writeRefusal);
  };

  const q = queryBuilder({
    adapter: () => new SqliteAdapter(),
    introspector: (db) => new SqliteIntrospector(db),
    compiler: () => new SqliteQueryCompiler(),
  });

  // A reader's rows come as arrays and become objects through `toRow` (see rowMaker), but for a
  // single column: there an array per row is most of the row, and the 100,000 candidates of a
  // batch, read at once, raised its peak RSS by 17 MB to save some 9 ms.
  const statements = new Map<string, { statement: Database.Statement; toRow: RowMaker | undefined }>();
  const prepare = (query: Compilable<unknown>) => {
    const compiled = query.compile();
    let entry = statements.get(compiled.sql);
    if (!entry) {
      const statement = sqlite.prepare(compiled.sql);
      entry = {
        statement,
        toRow: statement.reader && statement.columns().length > 1 ? rowMaker(statement.raw(true)) : undefined,
      };
      statements.set(compiled.sql, entry);
    }
    return { ...entry, parameters: compiled.parameters as unknown[] };
  };

  // Made once: better-sqlite3 builds each transaction function with several property definitions.
  const transaction = sqlite.transaction((fn: () => unknown) => fn());
  // data_version moves with other connections' commits; this connection counts its own writes.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const setBusyTimeout = (ms: number) => sqlite.pragma(`busy_timeout = ${Math.round(ms)}`);
  let ownWrites = 0;
  const compiledQueries = new Map<string, Compiled>();

  function prepareStatements(query: PreparedQuery<unknown, unknown[]>): Compiled {
    const compiled = compilePrepared(query, q, dialect);
    const statement = sqlite.prepare(compiled.sql);
    const { bind } = compiled;
    const run = (args: unknown[]) => statement.run(...bind(args)).changes;
    if (!statement.reader) return { all: () => [], get: () => undefined, run };
    const toRow = rowMaker(statement.raw(true));
    const columns = statement.columns();
    const names = columns.map((column) => column.name);
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

  // A bulk write's statement per spec: one row per run, prepared once.
  const rowStatements = new Map<string, { statement: Database.Statement; columns: string[] }>();
  function rowStatement(mode: 'insert' | 'update', spec: RowsSpec) {
    const key = `${mode}:${spec.key}`;
    let entry = rowStatements.get(key);
    if (!entry) {
      const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
      let columns = Object.keys(spec.columns);
      let text: string;
      if (mode === 'insert')
        text = `INSERT INTO ${quote(spec.table)} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
      else {
        const by = spec.by!;
        const set = columns.filter((c) => c !== by);
        text = `UPDATE ${quote(spec.table)} SET ${set.map((c) => `${quote(c)} = ?`).join(', ')} WHERE ${quote(by)} = ?`;
        columns = [...set, by];
      }
      entry = { statement: sqlite.prepare(text), columns };
      rowStatements.set(key, entry);
    }
    return entry;
  }

  function execute(op: Op): unknown {
    switch (op.kind) {
      case 'rows': {
        const { statement, columns } = rowStatement(op.mode, op.spec);
        const values: unknown[] = new Array(columns.length);
        for (const row of op.rows) {
          for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]];
          statement.run(values);
        }
        return undefined;
      }
      case 'prepared': {
        let compiled = compiledQueries.get(op.query.key);
        if (!compiled) {
          compiled = prepareStatements(op.query);
          compiledQueries.set(op.query.key, compiled);
        }
        return compiled[op.mode](op.args);
      }
      case 'all': {
        const { statement, toRow, parameters } = prepare(op.build(q, dialect));
        return toRow ? (statement.all(...parameters) as unknown[][]).map(toRow) : statement.all(...parameters);
      }
      case 'get': {
        const { statement, toRow, parameters } = prepare(op.build(q, dialect));
        if (!toRow) return statement.reader ? statement.get(...parameters) : (statement.run(...parameters), undefined);
        const row = statement.get(...parameters) as unknown[] | undefined;
        return row === undefined ? undefined : toRow(row);
      }
      case 'run': {
        const { statement, parameters } = prepare(op.build(q, dialect));
        return statement.run(...parameters).changes;
      }
      case 'turn':
        return undefined;
      case 'ahead':
        return { value: drive(op.read) };
      case 'taken':
        return op.ahead.value;
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
        // Inside a write this connection holds the lock: only a read can find the store busy.
        step = unit.throw(isBusy(error) ? readLockedError(path) : error);
        continue;
      }
      step = unit.next(value);
    }
    return step.value;
  }

  // Thrown (and caught) by identity to leave better-sqlite3's transaction function, rolled back.
  const ROLLBACK = new Error('the unit refused its result: rolled back');
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

  const BUSY = Symbol('busy');
  /**
   * The write in one BEGIN IMMEDIATE transaction, run to its end; BUSY when another connection
   * holds the write lock (after the connection's busy timeout: none once the store yields).
   */
  function attempt<T>(unit: () => Unit<T>, keep?: (value: T) => boolean): T | typeof BUSY {
    let refused: { value: T } | undefined;
    let began = false;
    try {
      return inside(() =>
        transaction.immediate(() => {
          began = true;
          const value = drive(unit());
          if (keep && !keep(value)) {
            refused = { value };
            throw ROLLBACK;
          }
          return value;
        }),
      ) as T;
    } catch (error) {
      if (error === ROLLBACK) return refused!.value;
      if (!began && isBusy(error)) return BUSY;
      throw error;
    } finally {
      // After the commit, so a key cached meanwhile (dataVersion) is dropped.
      ownWrites++;
    }
  }

  // A store that yields: writes that found the lock held wait here, oldest first, and are tried
  // again on a timer (one for them all); a write that comes while some wait queues behind them.
  let yielding = false;
  const waiting: Waiting[] = [];
  let timer: NodeJS.Timeout | undefined;
  let tries = 0;
  const poll = (delay: number) => {
    timer ??= setTimeout(drain, delay);
  };
  function drain(): void {
    timer = undefined;
    const started = performance.now();
    while (waiting.length > 0) {
      // A long queue goes in slices: requests and reads get their turn in between.
      if (performance.now() - started > DRAIN_SLICE_MS) return poll(0);
      const next = waiting[0];
      let value: unknown;
      try {
        value = next.attempt();
      } catch (error) {
        waiting.shift();
        next.reject(error);
        continue;
      }
      if (value === BUSY) break;
      waiting.shift();
      tries = 0;
      next.resolve(value);
    }
    if (waiting.length === 0) return void (tries = 0);
    const now = performance.now();
    // Queued in order with one bound, so those past it are the first: refused, having changed nothing.
    if (waiting[0].deadline <= now) {
      const holder = walWriteLockHolder(path);
      while (waiting.length > 0 && waiting[0].deadline <= now) {
        waiting.shift()!.reject(lockedError(path, busyMs, holder));
      }
    }
    if (waiting.length > 0) poll(RETRY_DELAYS_MS[Math.min(tries++, RETRY_DELAYS_MS.length - 1)]);
  }
  const queued = <T>(unit: () => Unit<T>, keep?: (value: T) => boolean): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const deadline = performance.now() + busyMs;
      const settle = resolve as (value: unknown) => void;
      waiting.push({ attempt: () => attempt(unit, keep), resolve: settle, reject, deadline });
      poll(RETRY_DELAYS_MS[0]);
    });

  const write = <T>(unit: () => Unit<T>, keep?: (value: T) => boolean): T | Promise<T> => {
    refuseWrites();
    // Nested in a transaction of this connection, a write is a savepoint: it cannot wait for a lock.
    if (!yielding || open > 0) {
      const value = attempt(unit, keep);
      if (value === BUSY) throw lockedError(path, yielding ? 0 : busyMs);
      return value;
    }
    if (waiting.length === 0) {
      const value = attempt(unit, keep);
      if (value !== BUSY) return value;
    }
    return queued(unit, keep);
  };

  /** One try, no waiting (withoutWaiting): the lock held, or writes queued for it, skip this turn. */
  const tryOnce = <T>(unit: () => Unit<T>, keep?: (value: T) => boolean): T => {
    refuseWrites();
    let value: T | typeof BUSY = BUSY;
    if (yielding) {
      if (waiting.length === 0) value = attempt(unit, keep);
    } else {
      setBusyTimeout(0);
      try {
        value = attempt(unit, keep);
      } finally {
        setBusyTimeout(busyMs);
      }
    }
    if (value === BUSY) {
      const message = `store busy: another process holds the write lock of ${path}; this turn is skipped`;
      throw new StoreBusyError(message, { file: path, waitedMs: 0, skipped: true });
    }
    return value;
  };
  let impatient: SqliteStore | undefined;

  const store: SqliteStore = {
    engine: 'sqlite',
    path,
    location: path,
    writeRefusal,
    read<T>(unit: () => Unit<T>): T {
      // Inside another transaction the reads already share its snapshot (a savepoint adds nothing).
      return open > 0 ? drive(unit()) : (inside(() => transaction.deferred(() => drive(unit()))) as T);
    },
    snapshot<T>(fn: () => T): T {
      return open > 0 ? fn() : (inside(() => transaction.deferred(fn)) as T);
    },
    write,
    writeOne: (build) => write(() => get(build)),
    work: write,
    yieldWhenBusy() {
      if (yielding) return;
      yielding = true;
      // Reads in WAL mode take no lock a writer holds; a read that finds one (another process
      // recovering the store) fails at once rather than blocking the thread. The automatic
      // checkpoint after a commit is PASSIVE: SQLite never calls the busy handler for it, and it
      // skips what readers still use, so neither side waits on it.
      setBusyTimeout(0);
    },
    withoutWaiting() {
      impatient ??= Object.assign(Object.create(store) as SqliteStore, {
        write: tryOnce,
        work: tryOnce,
        writeOne: <R>(build: Build<R>) => tryOnce(() => get(build)),
      });
      return impatient;
    },
    bulkWrite<T>(unit: () => Unit<T>): Promise<T> {
      refuseWrites();
      ownWrites++;
      // The lock taken once for the whole copy, waited for as the connection waits (blocking, or not when it yields).
      return driveAsync('BEGIN IMMEDIATE', unit);
    },
    bulkRead<T>(unit: () => Unit<T>): Promise<T> {
      // Deferred: the snapshot starts at the first read; in WAL mode other connections keep writing.
      return driveAsync('BEGIN DEFERRED', unit);
    },
    schemaVersion() {
      return Promise.resolve(sqlite.pragma('user_version', { simple: true }) as number);
    },
    dataVersion: () => `${dataVersion.get() as number}.${ownWrites}`,
    async backup(to) {
      // The copy is new and this process's own: what can stop it is the store it reads.
      await backupWithin(sqlite, to, busyMs, () => {
        const shm = `${basename(path)}-shm`;
        return new StoreBusyError(
          `store busy, try again: ${path} could not be read whole within the ${seconds(busyMs)} wait (BILLING_BUSY_MS): ` +
            `another process holds it locked, or this user cannot write its shared-memory file ${shm}; nothing was changed`,
          { file: path, waitedMs: busyMs },
        );
      });
    },
    close() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      for (const late of waiting.splice(0)) {
        const message = `the store ${path} was closed while this write waited for its lock; nothing was changed`;
        late.reject(new StoreBusyError(message, { file: path, waitedMs: 0 }));
      }
      if (sqlite.open) sqlite.close();
      return Promise.resolve();
    },
  };
  return store;

  /** A transaction whose unit may wait between queries: only for a single user of the connection (a copy). */
  async function driveAsync<T>(begin: string, unit: () => Unit<T>): Promise<T> {
    try {
      sqlite.exec(begin);
    } catch (error) {
      throw isBusy(error) ? lockedError(path, yielding ? 0 : busyMs) : error;
    }
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

const writable = (path: string): boolean => {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/** Why this process cannot write the store at path (the file, or its folder where SQLite keeps its journal). */
const readOnlyReason = (path: string): string =>
  writable(path)
    ? `its folder ${dirname(path)} cannot be written (SQLite keeps its journal beside the store)`
    : 'this user cannot write the file';

/** A write refused on a store this user cannot write; reads work only where SQLite can make its files beside it. */
const readOnlyMessage = (path: string): string =>
  `the store ${path} is read-only: ${readOnlyReason(path)}` +
  (writable(dirname(path))
    ? '; reads still work'
    : '; reading it needs the folder writable too (SQLite makes its shared-memory file there)');

/**
 * Before opening: makes what `create` allows and checks what is there. Returns whether to open the
 * store read-only: a read of a store this process cannot write. The kernel decides (access(2) with
 * W_OK: modes, ACLs, a read-only mount), not a guess from the mode bits.
 */
function prepareFile(path: string, create: Create): boolean {
  const folder = dirname(path);
  if (!existsSync(path)) {
    if (create === 'nothing') throw new StoreMissingError(`no store at ${path}: ${MAKE_A_STORE}`);
    if (create === 'folders') makeFolder(folder);
    else if (!existsSync(folder))
      throw new StoreOpenError(
        `cannot make the store ${path}: there is no folder ${folder} (make it first, or give --db a path in an existing folder)`,
      );
    if (!statSync(folder).isDirectory())
      throw new StoreOpenError(`cannot make the store ${path}: ${folder} is not a folder`);
    if (!writable(folder))
      throw new StoreReadOnlyError(`cannot make the store ${path}: the folder ${folder} is read-only`);
    return false;
  }
  if (writable(path) && writable(folder)) return false;
  if (create === 'nothing') return true;
  throw new StoreReadOnlyError(readOnlyMessage(path));
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
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new StoreOpenError(
          `cannot make the store's folder ${level}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
    }
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Switches a new store to WAL. The switch needs the file to itself and SQLite does not wait for
 * it with the busy timeout, so processes opening a new store at the same moment retry here.
 */
function enableWal(sqlite: Database.Database, busyMs: number): void {
  if (String(sqlite.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
  const deadline = Date.now() + busyMs;
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

/** Migrations run on open, in one write transaction, and are recorded in PRAGMA user_version. Whether any ran. */
function migrate(sqlite: Database.Database): boolean {
  const current = () => sqlite.pragma('user_version', { simple: true }) as number;
  if (current() >= sqliteMigrations.length) return false;
  sqlite
    .transaction(() => {
      // Another process may have migrated while this one waited for the lock.
      for (let version = current(); version < sqliteMigrations.length; version++) {
        sqlite.exec(sqliteMigrations[version]);
        if (version + 1 === SEARCH_TEXT_VERSION) fillSearchText(sqlite);
        sqlite.pragma(`user_version = ${version + 1}`);
      }
    })
    .immediate();
  return true;
}

/** Every customer's search text, written as the core writes it; the triggers index each (once, at migration 14). */
function fillSearchText(sqlite: Database.Database): void {
  const read = sqlite.prepare<[number], SearchedFields & { id: number }>(
    `SELECT id, first_name, middle_name, last_name, company_name, email, iban, telephone
     FROM customers WHERE id > ? ORDER BY id LIMIT 5000`,
  );
  const write = sqlite.prepare<[string, number]>('UPDATE customers SET search_text = ? WHERE id = ?');
  for (let rows = read.all(0); rows.length; rows = read.all(rows[rows.length - 1].id))
    for (const row of rows) write.run(customerSearchText(row), row.id);
}

/**
 * Replaces the whole store at `to` by the store at `from`, through SQLite's backup API: the
 * destination is locked while its pages are replaced, so other connections (a running billing
 * serve) see the old store or the new one, never a mix. `to` is migrated by the next open.
 */
export async function replaceSqliteStore(from: string, to: string, busyMs = DEFAULT_BUSY_MS): Promise<void> {
  const source = new Database(from, { readonly: true, fileMustExist: true });
  try {
    // Never a store this billing could not open again (nor undo the restore with).
    const version = source.pragma('user_version', { simple: true }) as number;
    if (version > sqliteMigrations.length) throw newerStore(from, version, sqliteMigrations.length);
    await backupWithin(source, to, busyMs);
  } finally {
    source.close();
  }
}

/** Pages copied a step: better-sqlite3's own rate after its first step. */
const PAGES_A_STEP = 100;

/**
 * SQLite's backup of `db` into the file `to`, bounded as a write is: better-sqlite3 steps the copy
 * again and again while a lock stands in its way, and takes a lock refused at the first step (no page
 * counted yet) for a copy done. A copy let go before its end changes nothing at `to`.
 */
async function backupWithin(
  db: Database.Database,
  to: string,
  busyMs = DEFAULT_BUSY_MS,
  busy = () => lockedError(to, busyMs),
): Promise<void> {
  const deadline = Date.now() + busyMs;
  for (;;) {
    let remaining = -1;
    let movedAt = Date.now();
    const done = await db.backup(to, {
      progress: ({ remainingPages }) => {
        if (remainingPages !== remaining) [remaining, movedAt] = [remainingPages, Date.now()];
        else if (Date.now() - movedAt > busyMs) throw busy();
        return PAGES_A_STEP;
      },
    });
    if (done.totalPages > 0) return;
    if (Date.now() > deadline) throw busy();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
