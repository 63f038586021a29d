// PostgreSQL: the same units, awaited on one pooled connection each, for several `billing serve`
// instances sharing one database.
//
// A write unit runs in one SERIALIZABLE transaction, so what it read still holds when it commits,
// as SQLite's one-writer-at-a-time gives; a serialization failure or deadlock rolls it back and
// runs the whole unit again (a bounded number of times). A read unit of several queries runs in
// one REPEATABLE READ snapshot; a read of one query needs none, and the store learns which reads
// those are, so the hot lookups cost one round trip.
import { PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type SqlBool } from 'kysely';
import { compilePrepared, queryBuilder, searchTextHolds } from './compile.js';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { postgresMigrations, SEARCH_TEXT_VERSION } from './migrations.js';
import { customerSearchText, type SearchedFields } from './search-text.js';
import {
  KeyGuardError,
  MAKE_A_STORE,
  StoreAuthError,
  StoreBusyError,
  StoreMissingError,
  StoreOpenError,
  StoreUnreachableError,
  newerStore,
  redact,
  type KeyGuard,
  type OpenOptions,
  type PostgresStore,
} from './store.js';
import { get, type ColumnType, type Dialect, type Op, type PreparedQuery, type RowsSpec, type Unit } from './unit.js';

export const DEFAULT_POOL_SIZE = 10;
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** Attempts of a write unit that keeps meeting serialization failures or deadlocks. */
const MAX_ATTEMPTS = 12;
/** Backoff between them: full jitter over a doubling window, capped (about 1.3 s in all at worst). */
const BACKOFF_FIRST_MS = 2;
const BACKOFF_CAP_MS = 200;
/** Any fixed number: the advisory lock that lets one of several starting instances migrate. */
const MIGRATION_LOCK = 7_411_230_001;

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected
/** How each kind of unit starts its transaction ('one' has none: it is one autocommit statement). */
const BEGIN = {
  read: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  bulkRead: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  write: 'BEGIN ISOLATION LEVEL SERIALIZABLE',
  // Claiming due work: row locks and SKIP LOCKED, which SERIALIZABLE would turn into serialization failures.
  work: 'BEGIN ISOLATION LEVEL READ COMMITTED',
  bulk: 'BEGIN',
  one: '',
} as const;

/** Distinct statement texts that get a name (parsed and planned once per connection); more run unnamed. */
const MAX_NAMED_STATEMENTS = 1_000;

/**
 * A read's first statement with the key guard beside its rows: whether the key still belongs to the
 * cached account as it was, computed in the same snapshot, for no extra round trip. `__row` tells
 * the statement's rows from the one row a LEFT JOIN gives when it has none.
 */
const guarded = (text: string, n: number) =>
  `SELECT g."__guard", t.* FROM (SELECT (SELECT k.account_id = $${n + 2} AND a.updated_at = $${n + 3}::timestamptz FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $${n + 1}) AS "__guard") g LEFT JOIN (SELECT true AS "__row", s.* FROM (${text}) s) t ON true`;

const dialect: Dialect = {
  joinedIds: (column) => sql<string | null>`string_agg(${sql.ref(column)}::text, ',')`,
  // COLLATE "C": lower() folds A-Z only and the order is by code point, whatever the database's own
  // collation (under another, lower() and the order would follow its locale).
  lower: (column) => sql<string>`lower(${sql.ref(column)} COLLATE "C")`,
  codePoint: (column) => sql<string>`${sql.ref(column)} COLLATE "C"`,
  fenced: (query) => query.offset(0),
  // The pg_trgm GIN index customers_search is on the search text: each LIKE of a term of 3
  // characters or more is looked up in it; a shorter term has no trigram and is tested on the rows
  // the others found, or on the account's rows when there is no other.
  customerSearch: searchTextHolds,
  before: (column, separator) => sql<string>`split_part(${sql.ref(column)}, ${separator}, 1)`,
  locked: (query, skip) => (skip ? query.forNoKeyUpdate().skipLocked() : query.forNoKeyUpdate()),
  shared: (query) => query.forShare(),
  // Two int4 keys: a key space apart from the single bigint of the migrations' lock. An id past
  // int4 wraps, which can only make two accounts wait for each other.
  serialized: (scope, id) => sql`SELECT pg_advisory_xact_lock(${scope | 0}::integer, ${id | 0}::integer)`,
  among: (column, ids) =>
    ids.length === 0
      ? sql<SqlBool>`false`
      : typeof ids[0] === 'number'
        ? sql<SqlBool>`${sql.ref(column)} = ANY(${`{${ids.join(',')}}`}::bigint[])`
        : sql<SqlBool>`${sql.ref(column)} = ANY(${arrayLiteral('text', ids)}::text[])`,
};

const ARRAY_TYPES = {
  text: 'text[]',
  integer: 'bigint[]',
  instant: 'timestamptz[]',
  flag: 'boolean[]',
  json: 'json[]',
} as const;
const SCALAR_TYPES = {
  text: 'text',
  integer: 'bigint',
  instant: 'timestamptz',
  flag: 'boolean',
  json: 'json',
} as const;

/**
 * Bulk writes a unit may have sent and not yet seen written (runUnit): a chunk's flush is about six
 * (its items, transactions, events, due work, subscriptions, invoices), all sent before the next
 * chunk is worked out. Each holds its rows' values until written.
 */
const MAX_SENT = 8;

/** Updates of at most this many rows go row by row (see execute). */
const FEW_ROWS = 4;

/** Flags are 0/1 in the core, boolean here. */
const valueOf = (spec: RowsSpec, column: string, value: unknown): unknown =>
  spec.columns[column] === 'flag' && value !== null && value !== undefined ? value === 1 || value === true : value;

/**
 * A bulk write's column as the text of one PostgreSQL array: what pg makes of a JS array, without
 * its two regular expressions and a conversion per element (a fifth of the client's CPU when a bank
 * report books 100,000 entries). Each element is quoted, with `"` and `\` escaped, except numbers.
 */
function arrayLiteral(type: ColumnType, values: readonly unknown[]): string {
  const elements = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    // A column's value repeated from the row before (a batch's account, state and stamps) is not made again.
    if (i > 0 && value === values[i - 1]) elements[i] = elements[i - 1];
    else if (value === null || value === undefined) elements[i] = 'NULL';
    else if (type === 'flag') elements[i] = value === 1 || value === true ? 't' : 'f';
    else if (typeof value === 'number') elements[i] = String(value);
    else {
      const text =
        typeof value === 'string'
          ? value
          : value instanceof Date
            ? value.toISOString()
            : typeof value === 'bigint'
              ? String(value)
              : JSON.stringify(value);
      elements[i] = `"${text.includes('"') || text.includes('\\') ? text.replace(/["\\]/g, '\\$&') : text}"`;
    }
  }
  return `{${elements.join(',')}}`;
}

/** One row's update, found by its key. */
function rowUpdate(spec: RowsSpec): { text: string; columns: string[] } {
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const by = spec.by!;
  const set = Object.keys(spec.columns).filter((c) => c !== by);
  return {
    text: `UPDATE ${quote(spec.table)} SET ${set.map((c, i) => `${quote(c)} = $${i + 1}`).join(', ')} WHERE ${quote(by)} = $${set.length + 1}`,
    columns: [...set, by],
  };
}

/**
 * A bulk write as one statement: each column's values as one typed array, unnested into rows,
 * except the columns `same` names (one value in every row: a batch's account, state and stamps),
 * sent once. The server parses each array element by element: 1,000 identical timestamps are a
 * thousand parses, and a batch's items took a fifth less of its time with them sent once. Parameters
 * go in the order of the spec's columns.
 */
function rowsStatement(
  mode: 'insert' | 'update',
  spec: RowsSpec,
  same: ReadonlySet<string>,
): { text: string; columns: string[] } {
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const columns = Object.keys(spec.columns);
  const param = (c: string) =>
    `$${columns.indexOf(c) + 1}::${same.has(c) ? SCALAR_TYPES[spec.columns[c]] : ARRAY_TYPES[spec.columns[c]]}`;
  const varying = columns.filter((c) => !same.has(c));
  const unnest = `unnest(${varying.map(param).join(', ')}) AS u(${varying.map(quote).join(', ')})`;
  const value = (c: string) => (same.has(c) ? param(c) : `u.${quote(c)}`);
  if (mode === 'insert')
    return {
      text: `INSERT INTO ${quote(spec.table)} (${columns.map(quote).join(', ')}) SELECT ${columns.map(value).join(', ')} FROM ${unnest}`,
      columns,
    };
  const by = spec.by!;
  const set = columns
    .filter((c) => c !== by)
    .map((c) => `${quote(c)} = ${value(c)}`)
    .join(', ');
  // `= ANY` of the keys too: the rows are found through the key's index, never by a scan of the
  // table, which under SERIALIZABLE would lock the whole table against concurrent writers.
  return {
    text: `UPDATE ${quote(spec.table)} AS t SET ${set} FROM ${unnest} WHERE t.${quote(by)} = ANY(${param(by)}) AND t.${quote(by)} = u.${quote(by)}`,
    columns,
  };
}

/**
 * The columns of a bulk write with one value in every row, sent once (rowsStatement). An update's
 * key never is; nor, when every column is, the first (the rows are as many as its array).
 */
function sameInEveryRow(spec: RowsSpec, rows: readonly Record<string, unknown>[]): Set<string> {
  const same = new Set<string>();
  for (const column of Object.keys(spec.columns)) {
    if (column === spec.by) continue;
    const first = rows[0][column];
    let i = 1;
    while (i < rows.length && rows[i][column] === first) i++;
    if (i === rows.length) same.add(column);
  }
  if (same.size === Object.keys(spec.columns).length) same.delete(Object.keys(spec.columns)[0]);
  return same;
}

/** A value sent once for a whole column (sameInEveryRow), as arrayLiteral writes one element. */
function scalarOf(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'flag') return value === 1 || value === true;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** Values as the core sees them on SQLite too: safe integers as numbers, flags as 0/1, instants as ISO text, JSON as written. */
const PARSERS: Record<number, (text: string) => unknown> = {
  20: (text) => {
    const n = Number(text);
    if (!Number.isSafeInteger(n))
      throw new RangeError(`the integer ${text} is beyond what billing can represent exactly`);
    return n;
  },
  16: (text) => (text === 't' ? 1 : 0),
  1184: isoInstant,
  114: (text) => text,
  3802: (text) => text,
};

/**
 * `2026-11-21 10:00:00.1+00` (timestamptz in UTC) as `2026-11-21T10:00:00.100Z`, the form SQLite
 * keeps. Its shape tested, then sliced by position, not matched: a batch reads 200,000 of them, and
 * the match arrays were 40 MB of its garbage. Anything else (another zone, a year past 9999, BC)
 * goes through Date.
 */
function isoInstant(text: string): string {
  if (!ISO_SHAPE.test(text)) return new Date(text).toISOString();
  const end = text.length - 3;
  const fraction = end === 19 ? '000' : text.slice(20, Math.min(end, 23)).padEnd(3, '0');
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`;
}
/** The shape isoInstant slices (test() makes no match array). */
const ISO_SHAPE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\+00$/;

const types = {
  getTypeParser(oid: number, format?: string) {
    return PARSERS[oid] ?? (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
};

/** host:port and database of a URL, for messages. */
function describe(config: ReturnType<typeof parseConnectionString>): {
  server: string;
  database: string;
  user: string;
} {
  const host = config.host ?? 'localhost';
  const server = host.startsWith('/') ? `${host} (socket)` : `${host}:${config.port ?? 5432}`;
  return { server, database: config.database ?? config.user ?? '', user: config.user ?? '' };
}

/** Maps a failure to connect to the error a person can act on (exit 3, 4 or 2). */
function connectError(error: unknown, where: { server: string; database: string; user: string }): Error {
  const e = error as { code?: string; message?: string };
  const code = e.code ?? '';
  if (code === '28P01' || code === '28000')
    return new StoreAuthError(
      `the database server ${where.server} refused the credentials of user "${where.user}" for database "${where.database}"`,
    );
  if (code === '3D000')
    return new StoreOpenError(`no database named "${where.database}" on the database server ${where.server}`);
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host lookup failed',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ECONNRESET: 'connection reset',
    ENOENT: 'no such socket',
  };
  if (reasons[code])
    return new StoreUnreachableError(
      `cannot reach the database server ${where.server} (database "${where.database}"): ${reasons[code]}`,
    );
  if (/timeout/i.test(e.message ?? ''))
    return new StoreUnreachableError(
      `cannot reach the database server ${where.server} (database "${where.database}"): connection timed out`,
    );
  if (/terminated|closed/i.test(e.message ?? ''))
    return new StoreUnreachableError(
      `the database server ${where.server} (database "${where.database}") closed the connection`,
    );
  return new StoreOpenError(
    `cannot open database "${where.database}" on ${where.server}: ${redact(e.message ?? String(error))}`,
  );
}

export async function openPostgresStore(url: string, options: OpenOptions = {}): Promise<PostgresStore> {
  let config: ReturnType<typeof parseConnectionString>;
  try {
    // libpq's meaning of sslmode (require: encrypted, not verified; verify-full: verified), as
    // PostgreSQL documents it for every client.
    config = parseConnectionString(url, { useLibpqCompat: true });
  } catch (error) {
    throw new StoreOpenError(`the store URL ${redact(url)} cannot be used: ${redact((error as Error).message)}`);
  }
  const where = describe(config);
  const { ssl, host, port, user, password, database, application_name } = config as Record<string, unknown>;
  const pool = new pg.Pool({
    host: host as string | undefined,
    port: port === undefined || port === null ? undefined : Number(port),
    user: user as string | undefined,
    password: password as string | undefined,
    database: database as string | undefined,
    ssl: ssl as pg.PoolConfig['ssl'],
    application_name: (application_name as string | undefined) ?? 'billing',
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    // A connection left in an open transaction (an instance that hangs) gives its locks back.
    idle_in_transaction_session_timeout: 60_000,
    options: '-c TimeZone=UTC -c DateStyle=ISO',
    types,
  });
  // An idle connection that breaks (a server restart) is dropped by the pool; without a listener
  // its error would end the process.
  pool.on('error', () => {});

  let closed: Promise<void> | undefined;
  const connect = async (): Promise<pg.PoolClient> => {
    if (closed) throw new Error('the store is closed');
    try {
      return await pool.connect();
    } catch (error) {
      throw connectError(error, where);
    }
  };

  try {
    await migrate(
      await connect(),
      `database "${where.database}" on ${where.server}`,
      options.create === 'nothing'
        ? `the database "${where.database}" on ${where.server} has no billing store yet: ${MAKE_A_STORE}`
        : undefined,
    );
  } catch (error) {
    await pool.end().catch(() => {});
    throw error instanceof StoreOpenError ||
      error instanceof StoreAuthError ||
      error instanceof StoreUnreachableError ||
      error instanceof StoreMissingError
      ? error
      : connectError(error, where);
  }

  const q = queryBuilder({
    adapter: () => new PostgresAdapter(),
    introspector: (db) => new PostgresIntrospector(db),
    compiler: () => new PostgresQueryCompiler(),
  });

  const compiled = new Map<string, { sql: string; bind: (args: unknown[]) => unknown[] }>();
  // Every statement text gets a name, so each connection parses and plans it once.
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED_STATEMENTS) names.set(text, (name = `billing_${names.size + 1}`));
    return name;
  };
  // Guarded rows come as arrays and become objects without the guard's two columns, through a function made
  // for the query's fields (a fixed-shape object literal, as in the SQLite store).
  const mappers = new Map<string, (row: unknown[]) => unknown>();
  const mapperOf = (text: string, fields: { name: string }[]) => {
    let mapper = mappers.get(text);
    if (!mapper) {
      const body = fields
        .slice(2)
        .map((field, i) => `${JSON.stringify(field.name)}: r[${i + 2}]`)
        .join(', ');
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- deliberate (see above); keys JSON.stringify'd
      mapper = new Function('r', `return {${body}};`) as (row: unknown[]) => unknown;
      mappers.set(text, mapper);
    }
    return mapper;
  };
  const compile = (query: PreparedQuery<unknown, unknown[]>) => {
    let entry = compiled.get(query.key);
    if (!entry) {
      entry = compilePrepared(query, q, dialect);
      compiled.set(query.key, entry);
    }
    return entry;
  };

  /**
   * The statements of a bulk write, their values taken now. A request changes a row or two: each by
   * its key, so the row is found through the index. The planner may scan a small table for the join
   * of a bulk update, and under SERIALIZABLE a scan locks the whole table against every concurrent
   * writer (serialization failures).
   */
  function rowsQueries(op: Extract<Op, { kind: 'rows' }>): pg.QueryConfig[] {
    if (op.mode === 'update' && op.rows.length <= FEW_ROWS) {
      const { text, columns } = rowUpdate(op.spec);
      return op.rows.map((row) => ({
        name: nameOf(text),
        text,
        values: columns.map((c) => valueOf(op.spec, c, row[c])),
      }));
    }
    const same = sameInEveryRow(op.spec, op.rows);
    const { text, columns } = rowsStatement(op.mode, op.spec, same);
    const values = columns.map((c) =>
      same.has(c)
        ? scalarOf(op.spec.columns[c], op.rows[0][c])
        : arrayLiteral(
            op.spec.columns[c],
            op.rows.map((row) => row[c]),
          ),
    );
    return [{ name: nameOf(text), text, values }];
  }

  async function execute(client: pg.PoolClient, op: Op, guard?: KeyGuard): Promise<unknown> {
    if (op.kind === 'wait') return op.promise;
    if (op.kind === 'taken') return op.ahead.promise ?? op.ahead.value;
    if (op.kind === 'ahead') return { value: await readAhead(client, op.read) }; // outside a transaction: at once
    if (op.kind === 'turn') return undefined; // runUnit turns the event loop itself
    if (op.kind === 'rows') {
      for (const query of rowsQueries(op)) await client.query(query);
      return undefined;
    }
    let text: string;
    let values: unknown[];
    let mode: 'all' | 'get' | 'run';
    if (op.kind === 'prepared') {
      const entry = compile(op.query);
      text = entry.sql;
      values = entry.bind(op.args);
      mode = op.mode;
    } else {
      const built = op.build(q, dialect).compile();
      text = built.sql;
      values = built.parameters as unknown[];
      mode = op.kind;
    }
    let rows: unknown[];
    let changed: number;
    if (guard) {
      const wrapped = guarded(text, values.length);
      const result = await client.query({
        name: nameOf(wrapped),
        text: wrapped,
        values: [...values, guard.keyHash, guard.accountId, guard.accountUpdatedAt],
        rowMode: 'array',
      });
      const raw = result.rows as unknown[][];
      if (raw[0]?.[0] !== 1) throw new KeyGuardError('the API key no longer belongs to the account it was cached for');
      const toRow = mapperOf(wrapped, result.fields);
      rows = raw.filter((row) => row[1] === 1).map(toRow);
      changed = rows.length;
    } else {
      const result = await client.query({ name: nameOf(text), text, values });
      rows = result.rows;
      changed = result.rowCount ?? 0;
    }
    if (mode === 'all') return rows;
    if (mode === 'get') return rows[0];
    return changed;
  }

  /** Runs a read started by `ahead` (only queries: see unit.ts), its queries one after another. */
  async function readAhead(client: pg.PoolClient, read: Unit<unknown>): Promise<unknown> {
    let step = read.next();
    while (!step.done) step = read.next(await execute(client, step.value));
    return step.value;
  }

  /** Reads (by key) found to make more than one query: they start in a snapshot. */
  const multiQueryReads = new Set<string>();
  // Thrown (and caught) by identity: the read starts again.
  const AGAIN = new Error('the read starts again in a snapshot');

  /** kind 'one': one statement in its own transaction (autocommit), no BEGIN or COMMIT. */
  async function runUnit<T>(
    make: () => Unit<T>,
    kind: 'read' | 'write' | 'work' | 'one' | 'bulk' | 'bulkRead',
    keep?: (value: T) => boolean,
    key?: string,
    guard?: KeyGuard,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await connect();
      let open = false;
      let broken: Error | undefined;
      // Bulk writes sent without waiting for them (see below): the last, how many are unwritten, and
      // the first that failed. Never rejected: what comes after waits for it.
      let sent: Promise<void> = Promise.resolve();
      let unwritten = 0;
      // Each write's end, oldest first, as far as the bound below needs them.
      const writing: Promise<void>[] = [];
      let sentError: Error | undefined;
      const settle = async () => {
        await sent;
        if (sentError !== undefined) throw sentError;
      };
      try {
        const unit = make();
        const snapshotAtOnce = kind !== 'read' || key === undefined || multiQueryReads.has(key);
        const begin = BEGIN[kind];
        let queries = 0;
        let step = unit.next();
        while (!step.done) {
          const op = step.value;
          if (op.kind === 'turn') {
            // Through the event loop's poll phase (two turns: an immediate runs before it), where
            // the answer to the statement in flight is read and the next one sent.
            if (unwritten > 0) await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
            step = unit.next(undefined);
            continue;
          }
          if (!open && op.kind !== 'wait' && op.kind !== 'taken') {
            if (kind === 'read' && !snapshotAtOnce && (queries === 1 || op.kind === 'ahead')) {
              // A second query (or a read ahead, which may make several): the first ran in a
              // snapshot of its own. Start again in one.
              multiQueryReads.add(key);
              unit.return(undefined as T);
              throw AGAIN;
            }
            if (kind === 'one' && queries === 1) throw new Error('writeOne runs exactly one statement');
            if (snapshotAtOnce && kind !== 'one') {
              await client.query(begin);
              open = true;
            }
          }
          if (op.kind !== 'wait' && op.kind !== 'taken') queries++;
          if (op.kind === 'rows' && open) {
            // A bulk write gives the unit nothing back: its statements are made now and sent after
            // the writes before it, and the unit goes on, so the client works out what comes next
            // while the server writes. If it fails, the unit ends with its error at its next query
            // (which waits for the writes sent before it) or before COMMIT: thrown into the unit
            // there, it could be taken for that query's own. At most MAX_SENT wait to be written.
            const statements = rowsQueries(op);
            unwritten++;
            sent = sent
              .then(async () => {
                if (sentError === undefined) for (const statement of statements) await client.query(statement);
              })
              .then(
                undefined,
                (error: unknown) => void (sentError ??= error instanceof Error ? error : new Error(String(error))),
              )
              .finally(() => void unwritten--);
            writing.push(sent);
            // Beyond the bound, the oldest is waited for (they end in order), not all of them: the
            // client goes on working while the server writes the rest.
            while (writing.length > MAX_SENT) await writing.shift();
            step = unit.next(undefined);
            continue;
          }
          if (op.kind === 'ahead' && open) {
            // A read started now and taken later: sent after the writes before it, and the writes
            // and queries after it wait for it, as for a bulk write. Its own failure is the unit's
            // at `taken`, or at its next query.
            const read = sent.then(() => {
              if (sentError !== undefined) throw sentError;
              return readAhead(client, op.read);
            });
            unwritten++;
            sent = read
              .then(
                () => undefined,
                (error: unknown) => void (sentError ??= error instanceof Error ? error : new Error(String(error))),
              )
              .finally(() => void unwritten--);
            step = unit.next({ promise: read });
            continue;
          }
          // A query runs after the writes sent before it (one query at a time on a connection); a
          // request that sent none does not wait at all.
          if (op.kind !== 'wait' && op.kind !== 'taken' && (unwritten > 0 || sentError !== undefined))
            await settle().catch((error: unknown) => {
              unit.return(undefined as T);
              throw error;
            });
          let value: unknown;
          try {
            value = await execute(client, op, queries === 1 && kind === 'read' ? guard : undefined);
          } catch (error) {
            if (isRetryable(error) || isConnectionError(error) || error instanceof KeyGuardError) throw error; // not the unit's to handle
            step = unit.throw(error);
            continue;
          }
          step = unit.next(value);
        }
        await settle();
        if (open) {
          await client.query(keep && !keep(step.value) ? 'ROLLBACK' : 'COMMIT');
          open = false;
        }
        // A read that needed no statement (a refused parameter) still checks its key.
        if (guard && kind === 'read' && queries === 0)
          await execute(client, { kind: 'all', build: (db) => db.selectNoFrom(sql<number>`1`.as('one')) }, guard);
        return step.value;
      } catch (error) {
        await sent;
        if (open) await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        if (isConnectionError(error)) broken = error as Error;
        if (error === AGAIN) {
          attempt--;
          continue;
        }
        // READ COMMITTED: a unit's checks cannot see a row another transaction has not committed yet;
        // the unique index meets it at the insert. Run again, the checks see it and refuse as they should.
        const again = isRetryable(error) || (kind === 'work' && isUniqueViolation(error));
        if ((kind === 'write' || kind === 'work' || kind === 'one') && again) {
          // A fixed small delay let two hot writers collide again and again under load (a 500 seen
          // in CI with two instances PATCHing the same rows); a doubling window spreads them out.
          if (attempt < MAX_ATTEMPTS) {
            await new Promise((resolve) =>
              setTimeout(resolve, Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_FIRST_MS * 2 ** attempt)),
            );
            continue;
          }
          throw new StoreBusyError(
            `the write met concurrent writes ${MAX_ATTEMPTS} times (${(error as Error).message}); it changed nothing`,
          );
        }
        if (isConnectionError(error)) throw connectError(error, where);
        throw error;
      } finally {
        client.release(broken);
      }
    }
  }

  return {
    engine: 'postgres',
    location: redact(url),
    read: (unit, key, guard) => runUnit(unit, 'read', undefined, key, guard),
    write: (unit, keep) => runUnit(unit, 'write', keep),
    writeOne: (build) => runUnit(() => get(build), 'one'),
    work: (unit, keep) => runUnit(unit, 'work', keep),
    bulkWrite: (unit) => runUnit(unit, 'bulk'),
    bulkRead: (unit) => runUnit(unit, 'bulkRead'),
    async schemaVersion() {
      const result = await pool.query<{ version: number }>('SELECT version FROM billing_schema');
      return result.rows[0]?.version ?? 0;
    },
    close() {
      closed ??= pool.end();
      return closed;
    },
  };
}

const isRetryable = (error: unknown): boolean => RETRYABLE.has((error as { code?: string }).code ?? '');
const isUniqueViolation = (error: unknown): boolean => (error as { code?: string }).code === '23505';

/** The connection itself failed (not the statement): the client must not go back to the pool. */
const isConnectionError = (error: unknown): boolean => {
  const e = error as { code?: string; message?: string };
  if (e.code && /^(E[A-Z]+|57P0[1-3]|08\d\d\d)$/.test(e.code)) return true;
  return /Connection terminated|Client has encountered a connection error/i.test(e.message ?? '');
};

/** Every customer's search text, written as the core writes it (once, at migration 14), 5,000 rows a statement. */
async function fillSearchText(client: pg.PoolClient): Promise<void> {
  for (let after = 0; ;) {
    const { rows } = await client.query<SearchedFields & { id: string }>(
      `SELECT id, first_name, middle_name, last_name, company_name, email, iban, telephone
       FROM customers WHERE id > $1 ORDER BY id LIMIT 5000`,
      [after],
    );
    if (rows.length === 0) return;
    await client.query(
      'UPDATE customers SET search_text = f.text FROM unnest($1::bigint[], $2::text[]) AS f(id, text) WHERE customers.id = f.id',
      [rows.map((row) => row.id), rows.map(customerSearchText)],
    );
    after = Number(rows[rows.length - 1].id);
  }
}

/**
 * Applies what is missing, in one transaction under an advisory lock: instances starting at the
 * same moment wait for the first, then find nothing left to do. With `missing` (a command that
 * only reads), a database without the billing schema is left as it is: StoreMissingError(missing).
 */
async function migrate(client: pg.PoolClient, label: string, missing?: string): Promise<void> {
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    if (missing !== undefined) {
      const { rows } = await client.query<{ present: boolean }>(
        "SELECT to_regclass('billing_schema') IS NOT NULL AS present",
      );
      if (!rows[0]?.present) throw new StoreMissingError(missing);
    }
    await client.query('CREATE TABLE IF NOT EXISTS billing_schema (version integer NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM billing_schema');
    let version = rows[0]?.version ?? 0;
    if (version > postgresMigrations.length) throw newerStore(label, version, postgresMigrations.length);
    if (rows.length === 0) await client.query('INSERT INTO billing_schema (version) VALUES (0)');
    for (; version < postgresMigrations.length; version++) {
      await client.query(postgresMigrations[version]);
      if (version + 1 === SEARCH_TEXT_VERSION) await fillSearchText(client);
      await client.query('UPDATE billing_schema SET version = $1', [version + 1]);
    }
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    // The connection is fine after a refusal of ours; after anything else it is not trusted.
    client.release(error instanceof StoreMissingError || error instanceof StoreOpenError ? undefined : true);
    throw error;
  }
}
