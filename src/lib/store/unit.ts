// A unit of work, written once for both engines.
//
// A use case's database work is a generator that yields the queries it needs and receives their
// rows: `const row = yield* get((q) => q.selectFrom('customers')...)`. The store drives it:
// SQLite runs every step synchronously inside one transaction (nothing else in the process can
// interleave, and reads stay as fast as before), PostgreSQL awaits each step on one pooled
// connection inside one transaction, and can run the whole unit again after a serialization
// failure, because a generator function is a replayable recipe rather than work already done.
import type { Compilable, Kysely, RawBuilder, SqlBool } from 'kysely';
import type { DB } from './schema.js';

/** A value now (SQLite) or later (PostgreSQL). */
export type MaybePromise<T> = T | Promise<T>;

/** Builds a query with the engine's own Kysely instance (its SQL dialect). */
export type Build<R> = (q: Kysely<DB>, dialect: Dialect) => Compilable<R>;

/** Stands for the i-th argument of a prepared query. */
export type Param = (index: number) => never;

/** The few SQL expressions that differ between the engines, for queries built in the core. */
export interface Dialect {
  /** The aggregate of an integer column's values as text `1,2,3`, in any order (null for no rows). */
  joinedIds(column: string): RawBuilder<string | null>;
  /**
   * A text column with A-Z folded to a-z and nothing else, compared and ordered by code point, alike
   * on both engines. The migrations index these very expressions, so a sort or a match can use them.
   */
  lower(column: string): RawBuilder<string>;
  /**
   * A text column already folded to lower case (the search text), compared and ordered by code
   * point on both engines, as its index is made on each (see migration 15).
   */
  codePoint(column: string): RawBuilder<string>;
  /**
   * A subquery the planner must plan alone (OFFSET 0: neither engine merges it into the outer
   * query), so it is read by its own conditions' index, not by the outer query's order.
   */
  fenced<Q extends { offset(n: number): Q; limit(n: number): Q }>(query: Q): Q;
  /**
   * Customers whose search text (store/search-text.ts) holds every term (folded by searchTerms):
   * through the engine's trigram index for the terms of 3 characters or more.
   */
  customerSearch(terms: readonly string[]): RawBuilder<SqlBool>;
  /** A text column's text before the first `separator` (all of it without one). */
  before(column: string, separator: string): RawBuilder<string>;
  /**
   * A SELECT that locks the rows it reads until the transaction ends, skipping rows another
   * transaction holds when `skip` (SKIP LOCKED): how due work is claimed. PostgreSQL takes FOR NO
   * KEY UPDATE (what an UPDATE of the row takes), not FOR UPDATE: the key-share lock a foreign key
   * check takes on the row it points at (a new transaction's subscription, an event's account) does
   * not wait for it, so a writer holding a subscription and one holding an account's invoice counter
   * never wait for each other through an insert. SQLite has one writer at a time: queries stay as they are.
   */
  locked<Q extends { forNoKeyUpdate(): Q; skipLocked(): Q }>(query: Q, skip?: boolean): Q;
  /**
   * A SELECT that keeps the rows it reads from changing until the transaction ends (PostgreSQL: FOR
   * SHARE, which readers holding it do not wait for each other over, while an UPDATE waits for them
   * and they for it): what a READ COMMITTED write checks of a row it does not change (the plan a
   * subscription is made on) holds until it commits. SQLite: as it is.
   */
  shared<Q extends { forShare(): Q }>(query: Q): Q;
  /**
   * A statement that holds a lock on (`scope`, `id`) until the transaction ends, which only another
   * transaction taking the same one waits for: no reader or writer of any row does (PostgreSQL: a
   * transaction-level advisory lock). SQLite has one writer at a time: a statement that does nothing.
   */
  serialized(scope: number, id: number): RawBuilder<unknown>;
  /**
   * `column IN (ids)` for a chunk of ids (a batch's thousand): PostgreSQL takes them as one array
   * parameter (`= ANY`), not one parameter each, which Kysely, pg and the server would each handle a
   * thousand times per statement. SQLite: the IN list. None matches nothing.
   */
  among(column: string, ids: readonly number[] | readonly string[]): RawBuilder<SqlBool>;
}

/** How a column of a bulk write travels: PostgreSQL sends each as one typed array. */
export type ColumnType = 'text' | 'integer' | 'instant' | 'flag' | 'json';

/**
 * A bulk write's table and columns, defined once at module level (`key` names it, as a prepared
 * query's does). Rows are objects with these columns; an update finds each row by `by`.
 */
export interface RowsSpec {
  key: string;
  table: keyof DB;
  columns: Readonly<Record<string, ColumnType>>;
  /** For updates: the column that finds the row (it is not changed). */
  by?: string;
}

export type PreparedBuild<R> = (q: Kysely<DB>, param: Param, dialect: Dialect) => Compilable<R>;

export type Op =
  | { kind: 'all' | 'get' | 'run'; build: Build<unknown> }
  | { kind: 'prepared'; mode: 'all' | 'get' | 'run'; query: PreparedQuery<unknown, unknown[]>; args: unknown[] }
  | { kind: 'wait'; promise: Promise<unknown> }
  | { kind: 'ahead'; read: Unit<unknown> }
  | { kind: 'taken'; ahead: Ahead<unknown> }
  | { kind: 'turn' }
  | { kind: 'rows'; mode: 'insert' | 'update'; spec: RowsSpec; rows: readonly Record<string, unknown>[] };

/** Database work that yields queries and returns T. */
export type Unit<T> = Generator<Op, T, unknown>;

export function* all<R>(build: Build<R>): Unit<R[]> {
  return (yield { kind: 'all', build }) as R[];
}

/** The first row, or undefined. */
export function* get<R>(build: Build<R>): Unit<R | undefined> {
  return (yield { kind: 'get', build }) as R | undefined;
}

/** Runs a statement; gives the number of rows it changed. */
export function* run(build: Build<unknown>): Unit<number> {
  return (yield { kind: 'run', build }) as number;
}

/**
 * Inserts (or, by spec.by, updates) many rows of one table: SQLite runs one prepared statement per
 * row, PostgreSQL one statement for them all (unnest of typed arrays), so a batch costs one round trip.
 * PostgreSQL sends it without waiting: a failure ends the unit at its next query, or before COMMIT,
 * never caught by the unit (on SQLite it is thrown here; a unit must not rely on catching it).
 */
export function* writeRows(
  mode: 'insert' | 'update',
  spec: RowsSpec,
  rows: readonly Record<string, unknown>[],
): Unit<void> {
  if (rows.length > 0) yield { kind: 'rows', mode, spec, rows };
}

/**
 * Lets the connection send the bulk writes the unit has sent while the unit works on:
 * PostgreSQL sends a unit's statements one after another, each when the one before has answered,
 * and only while the process is free to read the answer. A unit that works for long between its
 * queries (reading a bank's report) says so every few milliseconds, or the server waits the while.
 * SQLite: nothing.
 */
export function* turn(): Unit<void> {
  yield { kind: 'turn' };
}

/**
 * A read started now, whose answer the unit takes later (`yield* taken(it)`). PostgreSQL sends its
 * queries after the writes sent before it and lets the unit work on meanwhile, so the server reads
 * while the process computes; SQLite runs it at once. The read only reads (no bulk write, no wait),
 * and nothing the unit writes between the two is in it. A failure ends the unit, at `taken` or at
 * its next query.
 */
export function* ahead<T>(read: Unit<T>): Unit<Ahead<T>> {
  return (yield { kind: 'ahead', read: readsOnly(read) }) as Ahead<T>;
}

/**
 * `read`, refused at its first op that is not a query (a bulk write, a wait, a turn, a `run`): the
 * store may send it beside the unit's own work, which only a query answered by rows allows.
 */
function* readsOnly<T>(read: Unit<T>): Unit<T> {
  let step = read.next();
  while (!step.done) {
    const op = step.value;
    const reads = op.kind === 'all' || op.kind === 'get' || (op.kind === 'prepared' && op.mode !== 'run');
    if (!reads) throw new Error(`a read started ahead only reads rows; it asked for ${op.kind}`);
    let value: unknown;
    try {
      value = yield op;
    } catch (error) {
      step = read.throw(error);
      continue;
    }
    step = read.next(value);
  }
  return step.value;
}

/** What a read started by `ahead` gives: its value (SQLite) or its promise (PostgreSQL). */
export interface Ahead<T> {
  readonly value?: T;
  readonly promise?: Promise<T>;
}

/** The answer of a read started by `ahead`, waited for if it is still coming. */
export function* taken<T>(it: Ahead<T>): Unit<T> {
  return (yield { kind: 'taken', ahead: it }) as T;
}

/** Waits for other work between queries; only a bulk write (Store.bulkWrite) may. */
export function* wait<T>(promise: Promise<T>): Unit<T> {
  return (yield { kind: 'wait', promise }) as T;
}

/**
 * A query built and compiled once per store, then run with arguments: for the hot paths, where
 * building a Kysely query on every call costs more than the database does. Define it once, at
 * module level; `build` receives `param(i)`, a stand-in for the i-th argument.
 */
export interface PreparedQuery<R, A extends unknown[]> {
  readonly key: string;
  readonly build: PreparedBuild<R>;
  all(...args: A): Unit<R[]>;
  /** The row a lookup finds (by a unique key); where several rows can match, use all(). */
  get(...args: A): Unit<R | undefined>;
  run(...args: A): Unit<number>;
  /**
   * The lookup as a bare op, for `(yield query.lookup(...args)) as Row | undefined`: one generator
   * fewer than `yield* query.get(...)`, for the hottest reads only.
   */
  lookup(...args: A): Op;
}

export function prepared<R, A extends unknown[]>(key: string, build: PreparedBuild<R>): PreparedQuery<R, A> {
  const query: PreparedQuery<R, A> = {
    key,
    build,
    *all(...args) {
      return (yield { kind: 'prepared', mode: 'all', query, args }) as R[];
    },
    *get(...args) {
      return (yield { kind: 'prepared', mode: 'get', query, args }) as R | undefined;
    },
    *run(...args) {
      return (yield { kind: 'prepared', mode: 'run', query, args }) as number;
    },
    lookup: (...args) => ({ kind: 'prepared', mode: 'get', query, args }),
  };
  return query;
}

/** Applies f to a value that may still be coming, without a promise when it is already here. */
export function andThen<T, U>(value: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
