// The store: better-sqlite3 executing queries that Kysely builds and types.
//
// Kysely is used as a query builder only (compile, then run synchronously). A synchronous core
// means a use case's read-check-write can never interleave with another request in the same
// process, and better-sqlite3's immediate transactions take the write lock up front, so two
// processes never deadlock on a lock upgrade (SQLITE_BUSY).
import Database from 'better-sqlite3';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Compilable } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations.js';
import type { DB } from './schema.js';

export type { DB } from './schema.js';

export interface Store {
  /** The query builder; pass what it builds to all/get/run. */
  readonly q: Kysely<DB>;
  all<R>(query: Compilable<R>): R[];
  get<R>(query: Compilable<R>): R | undefined;
  run(query: Compilable<unknown>): { changes: number; lastInsertRowid: number };
  /** Runs fn in one write transaction (BEGIN IMMEDIATE); a throw rolls everything back. */
  write<T>(fn: () => T): T;
  /** Runs fn in one read transaction, so several reads see one snapshot. */
  read<T>(fn: () => T): T;
  readonly path: string;
  close(): void;
}

const BUSY_TIMEOUT_MS = 10_000;

export function openStore(path: string): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  sqlite.pragma('journal_mode = WAL');
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

  return {
    q,
    path,
    all<R>(query: Compilable<R>): R[] {
      const { statement, parameters } = prepare(query);
      return statement.all(...parameters) as R[];
    },
    get<R>(query: Compilable<R>): R | undefined {
      const { statement, parameters } = prepare(query);
      return statement.get(...parameters) as R | undefined;
    },
    run(query) {
      const { statement, parameters } = prepare(query);
      const result = statement.run(...parameters);
      return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
    },
    write<T>(fn: () => T): T {
      return sqlite.transaction(fn).immediate();
    },
    read<T>(fn: () => T): T {
      return sqlite.transaction(fn).deferred();
    },
    close() {
      if (sqlite.open) sqlite.close();
    },
  };
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
