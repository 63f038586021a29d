// What both engines do alike with Kysely: build queries in their dialect without a driver (the
// store runs them itself), and compile a prepared query once into SQL plus a binder.
import {
  DummyDriver,
  Kysely,
  sql,
  type DialectAdapter,
  type DatabaseIntrospector,
  type QueryCompiler,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import type { DB } from './schema.js';
import type { Dialect, Param, PreparedQuery } from './unit.js';

/** A Kysely that only builds and compiles queries, in one engine's SQL. */
export function queryBuilder(parts: {
  adapter: () => DialectAdapter;
  introspector: (db: Kysely<unknown>) => DatabaseIntrospector;
  compiler: () => QueryCompiler;
}): Kysely<DB> {
  return new Kysely<DB>({
    dialect: {
      createAdapter: parts.adapter,
      createDriver: () => new DummyDriver(),
      createIntrospector: parts.introspector,
      createQueryCompiler: parts.compiler,
    },
  });
}

const PARAM = Symbol('param');
type Marker = { [PARAM]: number };
const isMarker = (value: unknown): value is Marker => typeof value === 'object' && value !== null && PARAM in value;
const param = ((index: number) => ({ [PARAM]: index })) as unknown as Param;

/**
 * A prepared query's SQL, and how a call's arguments become its bound values: each bound value is
 * either an argument (by index) or a constant written into the query. Arguments that stand in
 * order for every bound value are passed as they are (the hot lookups).
 */
export function compilePrepared(
  query: PreparedQuery<unknown, unknown[]>,
  q: Kysely<DB>,
  dialect: Dialect,
): { sql: string; bind: (args: unknown[]) => unknown[] } {
  const compiled = query.build(q, param, dialect).compile();
  const sources = compiled.parameters.map((value) =>
    isMarker(value) ? { index: value[PARAM], value: undefined } : { index: -1, value },
  );
  const direct = sources.every((source, i) => source.index === i);
  return {
    sql: compiled.sql,
    bind: (args) =>
      direct && args.length === sources.length
        ? args
        : sources.map((source) => (source.index >= 0 ? args[source.index] : source.value)),
  };
}

/** A LIKE pattern for the text anywhere, its wildcards (and the escape character) taken literally. */
export const containing = (text: string): string => `%${escapeLike(text)}%`;

/** Text to put in a LIKE pattern, its wildcards (and the escape character) taken literally. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

/** Every term is in the customer's search text: one LIKE each, what both engines can test of any row. */
export const searchTextHolds = (terms: readonly string[]): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${sql.join(
    terms.map((term) => sql`${sql.ref('search_text')} LIKE ${containing(term)} ESCAPE '\\'`),
    sql` AND `,
  )})`;
