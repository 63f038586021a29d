// What a store holds, engine-neutral: its engine, where it is, its schema version and the rows of
// each table (`billing store info`). Every table is counted in one read snapshot.
import { type Compilable, type Kysely, type RawBuilder } from 'kysely';
import { TABLES } from './migrations.js';
import type { DB } from './schema.js';
import type { Engine, Store } from './store.js';
import { get, type Dialect, type Unit } from './unit.js';

export type Table = (typeof TABLES)[number];

/** The store's tables seen without their row types: copying and counting go over all of them alike. */
export type AnyDB = Record<string, Record<string, unknown>>;
export const untyped = (q: Kysely<DB>): Kysely<AnyDB> => q as unknown as Kysely<AnyDB>;

/** A raw statement as a unit's query. */
export const raw =
  <R>(build: (q: Kysely<DB>, dialect: Dialect) => RawBuilder<R>) =>
  (q: Kysely<DB>, dialect: Dialect): Compilable<R> => ({ compile: () => build(q, dialect).compile(q) });

export interface TableStats {
  rows: number;
}

/** The rows of every table in TABLES, in one read (run it inside store.read). */
export function* tableStats(): Unit<Record<Table, TableStats>> {
  const stats = {} as Record<Table, TableStats>;
  for (const table of TABLES) {
    const row = yield* get((q) =>
      untyped(q)
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('rows')),
    );
    stats[table] = { rows: Number(row?.rows ?? 0) };
  }
  return stats;
}

export interface StoreInfo {
  engine: Engine;
  /** Password shown as ***. */
  location: string;
  schema_version: number;
  counts: Record<Table, number>;
}

export async function storeInfo(store: Store): Promise<StoreInfo> {
  const stats = await store.read(tableStats);
  const counts = Object.fromEntries(TABLES.map((table) => [table, stats[table].rows])) as Record<Table, number>;
  return { engine: store.engine, location: store.location, schema_version: await store.schemaVersion(), counts };
}
