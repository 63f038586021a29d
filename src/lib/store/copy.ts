// Copying a whole store into an empty one, of either engine (`billing store copy`).
//
// Two units run side by side and hand batches over:
// - the target runs one bulk write (one transaction): it locks and checks that it is empty, then
//   inserts each batch it is handed, table by table (parents first, as TABLES lists them), keeping
//   the ids, and on PostgreSQL moves each identity sequence to the highest id copied. Anything that
//   fails rolls all of it back: the target stays empty.
// - the source runs one bulk read, so that every batch comes from one snapshot without holding its
//   writers back (PostgreSQL: REPEATABLE READ READ ONLY; SQLite: a deferred transaction, which WAL
//   lets other connections write beside); what they commit meanwhile is not copied. It
//   reads each table by keyset (id > last ORDER BY id LIMIT n) and hands a batch over only once the
//   previous one has been taken: at most about two batches are in memory at any time.
import { sql } from 'kysely';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { raw, tableStats, untyped, type Table, type TableStats } from './info.js';
import { KEYS, TABLES } from './migrations.js';

const keyOf = (table: (typeof TABLES)[number]): string => KEYS[table] ?? 'id';
import { parseLocation, type Store } from './store.js';
import { all, get, run, wait, type Unit } from './unit.js';

/** Rows read from the source per query. */
export const DEFAULT_BATCH_SIZE = 500;
/** Values bound in one INSERT at most (SQLite allows 32766, PostgreSQL 65535). */
const MAX_PARAMETERS = 30_000;

export interface CopyProgress {
  table: Table;
  copied: number;
  total: number;
  /** The table is finished. */
  done: boolean;
}

export interface CopyOptions {
  batchSize?: number;
  /** Told after each batch, and when a table starts and ends. */
  onProgress?: (progress: CopyProgress) => void;
}

export interface CopyResult {
  from: string;
  to: string;
  rows: Record<Table, number>;
}

/** The copy was refused before anything was written: the target is not empty, or is the source (a usage error). */
export class CopyRefusedError extends Error {
  override name = 'CopyRefusedError';
}

type Row = Record<string, unknown> & { id: number };
type Message = { stats: Record<Table, TableStats> } | { table: Table; rows: Row[] } | { end: true };

export async function copyStore(source: Store, target: Store, options: CopyOptions = {}): Promise<CopyResult> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`the batch size must be a whole number above 0, not ${batchSize}`);
  if (await sameStore(source.location, target.location))
    throw new CopyRefusedError(`cannot copy the store ${source.location} onto itself`);
  const progress = options.onProgress ?? (() => {});
  const channel = handoff<Message>();

  function* read(): Unit<void> {
    yield* wait(channel.put({ stats: yield* tableStats() }));
    for (const table of TABLES) {
      const key = keyOf(table);
      for (let last = 0; ;) {
        const rows = (yield* all((q) =>
          untyped(q).selectFrom(table).selectAll().where(key, '>', last).orderBy(key).limit(batchSize),
        )) as Row[];
        if (rows.length === 0) break;
        yield* wait(channel.put({ table, rows }));
        if (rows.length < batchSize) break;
        last = rows[rows.length - 1][key] as number;
      }
    }
    yield* wait(channel.put({ end: true }));
  }

  let reading: Promise<void> | undefined;
  const rows = {} as Record<Table, number>;

  function* write(): Unit<void> {
    // Nobody else writes to the target until this transaction ends (SQLite: the write lock of BEGIN IMMEDIATE).
    if (target.engine === 'postgres')
      yield* run(raw(() => sql`LOCK TABLE ${sql.join(TABLES.map((table) => sql.table(table)))} IN EXCLUSIVE MODE`));
    const filled: string[] = [];
    for (const table of TABLES)
      if (yield* get((q) => untyped(q).selectFrom(table).select(keyOf(table)).limit(1))) filled.push(table);
    if (filled.length > 0) {
      throw new CopyRefusedError(
        `the target ${target.location} is not empty (it has rows in ${filled.join(', ')}): store copy writes only into an empty store`,
      );
    }

    reading = source.bulkRead(read).catch((error: unknown) => {
      channel.fail(error);
      throw error;
    });
    reading.catch(() => {}); // awaited below; its failure reaches this unit through the channel

    const first = yield* wait(channel.take());
    if (!('stats' in first)) throw new Error('the source sent rows before its counts');
    const { stats } = first;
    let message = yield* wait(channel.take());
    for (const table of TABLES) {
      const total = stats[table].rows;
      let copied = 0;
      progress({ table, copied, total, done: false });
      while ('table' in message && message.table === table) {
        yield* insert(table, message.rows);
        copied += message.rows.length;
        progress({ table, copied, total, done: false });
        message = yield* wait(channel.take());
      }
      // One snapshot: what was read is exactly what was counted.
      if (copied !== total) throw new Error(`copied ${copied} rows of ${table}, but the source counted ${total}`);
      progress({ table, copied, total, done: true });
      rows[table] = copied;
    }
    if (!('end' in message)) throw new Error('the source sent rows out of table order');
    // The source's transaction has ended well before this one commits.
    yield* wait(reading);

    // PostgreSQL's identity sequences do not follow explicit ids: the next insert must get max + 1.
    // (SQLite's AUTOINCREMENT keeps the highest id inserted by itself.)
    if (target.engine === 'postgres') {
      for (const table of TABLES) {
        if (rows[table] === 0) continue;
        yield* get(
          raw(
            () =>
              sql`SELECT setval(pg_get_serial_sequence(${table}, ${keyOf(table)}), (SELECT max(${sql.ref(keyOf(table))}) FROM ${sql.table(table)}))`,
          ),
        );
      }
      // Planner statistics, which autovacuum would gather only later: without them PostgreSQL takes
      // `id IN (500 ids)` for the whole table and picks its indexes by guesswork (the due work of a
      // year, right after a copy: 69-76 s instead of 48). ANALYZE in this transaction counts its rows.
      yield* run(raw(() => sql`ANALYZE ${sql.join(TABLES.map((table) => sql.table(table)))}`));
    }
  }

  try {
    await target.bulkWrite(write);
  } catch (error) {
    channel.fail(error);
    await reading?.catch(() => {});
    throw error;
  }
  await reading;
  return { from: source.location, to: target.location, rows };
}

/** Inserts one batch, in as many statements as the bound-value limit needs. */
function* insert(table: Table, batch: Row[]): Unit<void> {
  const perInsert = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, Object.keys(batch[0]).length)));
  for (let i = 0; i < batch.length; i += perInsert) {
    const chunk = batch.slice(i, i + perInsert);
    try {
      yield* run((q) => untyped(q).insertInto(table).values(chunk));
    } catch (error) {
      const ids = chunk.length === 1 ? `id ${chunk[0].id}` : `ids ${chunk[0].id} to ${chunk[chunk.length - 1].id}`;
      throw new Error(`writing ${table} (${ids}) into the target failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

/**
 * Hands values from one unit to another, one at a time: put() resolves once its value is taken
 * (so the producer reads one batch ahead, no more); after fail(), both sides reject.
 */
function handoff<T>() {
  const waiting: T[] = [];
  let taker: { resolve(value: T): void; reject(error: unknown): void } | undefined;
  let putter: { resolve(): void; reject(error: unknown): void } | undefined;
  let failure: { error: unknown } | undefined;
  return {
    put(value: T): Promise<void> {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- relays the failure as it was given
      if (failure) return Promise.reject(failure.error);
      if (taker) {
        const t = taker;
        taker = undefined;
        t.resolve(value);
        return Promise.resolve();
      }
      waiting.push(value);
      return new Promise((resolve, reject) => (putter = { resolve, reject }));
    },
    take(): Promise<T> {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- relays the failure as it was given
      if (failure) return Promise.reject(failure.error);
      if (waiting.length > 0) {
        const value = waiting.shift()!;
        const p = putter;
        putter = undefined;
        p?.resolve();
        return Promise.resolve(value);
      }
      return new Promise((resolve, reject) => (taker = { resolve, reject }));
    },
    fail(error: unknown): void {
      if (failure) return;
      failure = { error };
      taker?.reject(error);
      putter?.reject(error);
      taker = putter = undefined;
    },
  };
}

/**
 * Whether two --db values name the same store: the same file (by device and inode when it exists,
 * through symbolic links), or the same database on the same server (localhost, 127.0.0.1 and ::1
 * taken as one host). A password shown as *** does not matter.
 */
export async function sameStore(a: string, b: string): Promise<boolean> {
  const [x, y] = [parseLocation(a), parseLocation(b)];
  if (x.engine === 'sqlite' && y.engine === 'sqlite') {
    if (x.path === ':memory:' || y.path === ':memory:') return false;
    return fileIdentity(x.path) === fileIdentity(y.path);
  }
  if (x.engine === 'postgres' && y.engine === 'postgres')
    return (await databaseIdentity(x.url)) === (await databaseIdentity(y.url));
  return false;
}

function fileIdentity(path: string): string {
  const full = resolve(path);
  if (existsSync(full)) {
    const stat = statSync(full);
    return `inode ${stat.dev}:${stat.ino}`;
  }
  try {
    return join(realpathSync(dirname(full)), basename(full));
  } catch {
    return full;
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '']);

async function databaseIdentity(url: string): Promise<string> {
  const { parse } = await import('pg-connection-string');
  let config: ReturnType<typeof parse>;
  try {
    config = parse(url);
  } catch {
    return url;
  }
  const host = (config.host ?? '').toLowerCase();
  const user = config.user ?? '';
  return JSON.stringify([LOOPBACK.has(host) ? 'loopback' : host, String(config.port || 5432), config.database || user]);
}
