// Opening a store: migrations run once and are recorded (SQLite: PRAGMA user_version, the journal
// is WAL; PostgreSQL: the billing_schema table, under an advisory lock), and both engines' lists of
// migrations make the same schema version by version.
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { postgresMigrations, sqliteMigrations, TABLES } from '../../src/lib/store/migrations.js';
import { openStore, type Store } from '../../src/lib/store/store.js';
import { all, get, run } from '../../src/lib/store/unit.js';
import { ENGINE, freshPostgresUrl, freshStoreLocation } from '../helpers/engine.js';
import { camt054For } from '../helpers/bank-reports.js';
import { batch, call, fileOf, makePlan, report, sepaCore, subscribe, transactionsOf, values } from '../helpers/sepa.js';
import { BEFORE_22 } from '../helpers/older-store.js';
import { closeLater, TEST_NOW, tempDbPath, testCore, testStore } from '../helpers/store.js';

const migrations = ENGINE === 'sqlite' ? sqliteMigrations : postgresMigrations;

const pragmas = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return {
      userVersion: db.pragma('user_version', { simple: true }) as number,
      journalMode: db.pragma('journal_mode', { simple: true }) as string,
      tables: (
        db
          .prepare(
            "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
          )
          .all() as { name: string }[]
      ).map((t) => t.name),
    };
  } finally {
    db.close();
  }
};

/** Runs SQL on a PostgreSQL database over a connection of its own. */
async function onPostgres<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

/** Runs statements on a closed store of this run's engine, as an older version would have left it. */
async function onStore(location: string, statements: readonly string[]): Promise<void> {
  if (ENGINE === 'sqlite') {
    const db = new Database(location);
    try {
      for (const statement of statements) db.exec(statement);
    } finally {
      db.close();
    }
  } else await onPostgres(location, statements.join(';\n'));
}

/** A batch of two transactions, one to stay in it and one to be freed by hand; the store closed. */
async function twoInABatch() {
  const core = await sepaCore({ settings: { prenotification_days: 1 } });
  const plan = await makePlan(core);
  const held = await subscribe(core, plan);
  const freed = await subscribe(core, plan);
  const made = await batch(core);
  expect(made.data.attributes.transactions).toBe(2);
  const [heldTx] = await transactionsOf(core, held.subscription);
  const [freedTx] = await transactionsOf(core, freed.subscription);
  await core.store.close();
  return { core, made, heldTx, freedTx };
}

const postgresTables = async (url: string) =>
  (
    await onPostgres<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    )
  ).map((t) => t.table_name);

/** The tables of a store and their columns in order, as the engine itself describes them. */
async function schemaOf(engine: 'sqlite' | 'postgres', location: string): Promise<Record<string, string[]>> {
  const schema: Record<string, string[]> = {};
  if (engine === 'sqlite') {
    const db = new Database(location, { readonly: true });
    try {
      for (const { name } of db
        .prepare(
          "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all() as { name: string }[]) {
        schema[name] = (db.pragma(`table_info(${name})`) as { name: string }[]).map((c) => c.name);
      }
    } finally {
      db.close();
    }
    return schema;
  }
  const columns = await onPostgres<{ table_name: string; column_name: string }>(
    location,
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'billing_schema' ORDER BY table_name, ordinal_position",
  );
  for (const { table_name, column_name } of columns) (schema[table_name] ??= []).push(column_name);
  return schema;
}

/** SQLite answers (and throws) at once, PostgreSQL through a promise: both as a promise here. */
const later = <T>(fn: () => T | Promise<T>): Promise<T> => Promise.resolve().then(fn);

describe('the migrations of the two engines', () => {
  it('are lists of the same length: version N of one engine is version N of the other', () => {
    expect(sqliteMigrations.length).toBeGreaterThan(0);
    expect(postgresMigrations.length).toBe(sqliteMigrations.length);
  });

  it('make the same tables with the same columns in the same order', async () => {
    const file = tempDbPath();
    const url = await freshPostgresUrl();
    await (await openStore(file)).close();
    await (await openStore(url, { poolSize: 1 })).close();
    const sqlite = await schemaOf('sqlite', file);
    // search_deferred never holds a committed row (an import's marker inside its transaction), and
    // webhook_hosts is what senders learnt of receivers (a copy learns it again): neither is copied.
    expect(Object.keys(sqlite)).toEqual([...TABLES, 'search_deferred', 'webhook_hosts'].sort());
    expect(await schemaOf('postgres', url)).toEqual(sqlite);
  });
});

describe(`openStore on ${ENGINE}`, () => {
  it('when the store is new, runs every migration and records the version', async () => {
    const store = await testStore();
    expect(await store.schemaVersion()).toBe(migrations.length);
    expect(await store.read(() => all((q) => q.selectFrom('accounts').selectAll()))).toEqual([]);
  });

  it('when the store is opened again, does not run the migrations again and keeps the data', async () => {
    const location = await freshStoreLocation();
    const first = closeLater(await openStore(location, { poolSize: 1 }));
    const account = await defaultAccount(first, fixedClock(TEST_NOW));
    await first.close();

    // Re-running the first migration would fail (its tables exist); opening must just work.
    const second = await testStore(location);
    expect(await second.read(() => all((q) => q.selectFrom('accounts').selectAll()))).toEqual([account]);
    expect(await second.schemaVersion()).toBe(migrations.length);
  });

  it('when two connections are open on the same store at once, both work and the version is recorded once', async () => {
    const location = await freshStoreLocation();
    const a = await testStore(location);
    const b = await testStore(location);
    const account = await defaultAccount(a, fixedClock(TEST_NOW));
    expect(await b.read(() => get((q) => q.selectFrom('accounts').selectAll().where('id', '=', account.id)))).toEqual(
      account,
    );
    expect(await a.schemaVersion()).toBe(migrations.length);
    expect(await b.schemaVersion()).toBe(migrations.length);
  });

  it('when a write throws, rolls back everything it wrote', async () => {
    const store = await testStore();
    await defaultAccount(store, fixedClock(TEST_NOW));
    await expect(
      later(() =>
        store.write(function* () {
          yield* run((q) => q.updateTable('accounts').set({ invoice_prefix: 'CHANGED-' }));
          throw new Error('boom');
        }),
      ),
    ).rejects.toThrow('boom');
    expect(
      (await store.read(() => get((q) => q.selectFrom('accounts').select('invoice_prefix'))))?.invoice_prefix,
    ).toBe('INV-');
  });
});

describe(`the migration of webhook deliveries written before hosts and policies were kept, on ${ENGINE}`, () => {
  it('takes them as written under the strict policy and, pending ones, as counting against their URL', async () => {
    const location = await freshStoreLocation();
    const at = TEST_NOW;
    const delivery = (n: number, url: string, status: string) =>
      `(1, 'e${n}', 'd${n}', 'subscription.active', '${url}', '{}', '${status}', 0, '${at}', '${at}', '${at}')`;
    const rows = `
      INSERT INTO accounts (name, webhook_secret, created_at, updated_at)
        VALUES ('default', 'whsec_x', '${at}', '${at}');
      INSERT INTO webhook_deliveries
        (account_id, event_uid, delivery_id, event, url, body, status, attempts, next_at, created_at, updated_at)
      VALUES ${delivery(1, 'http://127.0.0.1:9/a', 'pending')},
        ${delivery(2, 'https://hooks.example.com/b', 'delivered')};`;
    // A store as version 6 made it, with two deliveries in it.
    if (ENGINE === 'sqlite') {
      const db = new Database(location);
      db.exec(sqliteMigrations.slice(0, 6).join('\n'));
      db.exec(rows);
      db.pragma('user_version = 6');
      db.close();
    } else {
      await onPostgres(
        location,
        `${postgresMigrations.slice(0, 6).join('\n')};
        CREATE TABLE billing_schema (version integer NOT NULL); INSERT INTO billing_schema VALUES (6); ${rows}`,
      );
    }
    const store = await testStore(location);
    expect(await store.schemaVersion()).toBe(migrations.length);
    expect(
      await store.read(() =>
        all((q) => q.selectFrom('webhook_deliveries').select(['delivery_id', 'host', 'allow_private']).orderBy('id')),
      ),
    ).toEqual([
      { delivery_id: 'd1', host: 'http://127.0.0.1:9/a', allow_private: 0 },
      { delivery_id: 'd2', host: '', allow_private: 0 },
    ]);
    expect(await store.read(() => all((q) => q.selectFrom('webhook_hosts').selectAll()))).toEqual([]);
  });
});

describe(`the migration of collection items to a cancelled_at of their own (16), on ${ENGINE}`, () => {
  it('dates the items of cancelled batches, and keeps one live item per attempt and per EndToEndId', async () => {
    const location = await freshStoreLocation();
    const at = TEST_NOW;
    const item = (id: number, collection: number, e2e: string, state: string) =>
      `(${id}, 1, ${collection}, 'tx-1', 1, 1, '${state}', '${e2e}', 'FRST', '${at}', 1250, 'M-1', '${at}',` +
      ` 'Jan', 'NL91ABNA0417164300', '${at}', '${at}')`;
    const rows = `
      INSERT INTO accounts (name, webhook_secret, created_at, updated_at) VALUES ('default', 'whsec_x', '${at}', '${at}');
      INSERT INTO collections (id, account_id, status, message_id, due_until, transaction_count, control_sum_cents,
        cancelled_at, created_at, updated_at)
      VALUES (1, 1, 'cancelled', 'M1', '${at}', 1, 1250, '${at}', '${at}', '${at}'),
        (2, 1, 'created', 'M2', '${at}', 1, 1250, NULL, '${at}', '${at}');
      INSERT INTO collection_items (id, account_id, collection_id, transaction_id, subscription_id, attempt, state,
        end_to_end_id, sequence_type, collection_date, amount_cents, mandate_id, mandate_signed_on, debtor_name,
        debtor_iban, created_at, updated_at)
      VALUES ${item(1, 1, 'E2E-1', 'cancelled')}, ${item(2, 2, 'E2E-1', 'pending')};`;
    // A store as version 15 made it: the same attempt in a cancelled batch and in the batch after it.
    if (ENGINE === 'sqlite') {
      const db = new Database(location);
      db.pragma('foreign_keys = OFF');
      db.exec(sqliteMigrations.slice(0, 15).join('\n'));
      db.exec(rows);
      db.pragma('user_version = 15');
      db.close();
    } else {
      await onPostgres(
        location,
        `${postgresMigrations.slice(0, 15).join('\n')};
        CREATE TABLE billing_schema (version integer NOT NULL); INSERT INTO billing_schema VALUES (15); ${rows}`,
      );
    }
    const store = await testStore(location);
    expect(await store.schemaVersion()).toBe(migrations.length);
    const items = await store.read(() =>
      all((q) => q.selectFrom('collection_items').select(['id', 'state', 'cancelled_at']).orderBy('id')),
    );
    expect(items.map((i) => [i.id, i.state, i.cancelled_at === null ? null : Date.parse(i.cancelled_at)])).toEqual([
      [1, 'cancelled', Date.parse(at)],
      [2, 'pending', null],
    ]);
    // A second live item of the attempt, or of the EndToEndId, is refused; a cancelled one is not.
    const [live] = await store.read(() => all((q) => q.selectFrom('collection_items').selectAll().where('id', '=', 2)));
    const copy = (id: number, cancelled: string | null) =>
      store.write(() => run((q) => q.insertInto('collection_items').values({ ...live, id, cancelled_at: cancelled })));
    await expect((async () => copy(3, null))()).rejects.toThrow(/unique|UNIQUE/);
    await copy(4, at);
    expect(await store.read(() => all((q) => q.selectFrom('collection_items').select('id').orderBy('id')))).toEqual([
      { id: 1 },
      { id: 2 },
      { id: 4 },
    ]);
  });
});

describe(`the migration of a transaction's batch to its collection item alone (17), on ${ENGINE}`, () => {
  it('drops the column and its index; a batched transaction stays in its batch, one freed stays free', async () => {
    const { core, made, heldTx, freedTx } = await twoInABatch();
    // As version 16 kept it: the column naming the batch, and its index (and the index of EndToEndIds,
    // which 18 drops); one item freed by hand since.
    const statements = [
      ...BEFORE_22,
      'CREATE UNIQUE INDEX collection_items_e2e ON collection_items(account_id, end_to_end_id) WHERE cancelled_at IS NULL',
      `ALTER TABLE transactions ADD COLUMN collection_id ${ENGINE === 'postgres' ? 'bigint' : 'INTEGER'}`,
      'CREATE INDEX transactions_batching ON transactions(status, account_id, collection_id, due_date)',
      `UPDATE transactions SET collection_id = ${made.data.id} WHERE id = '${heldTx.id}'`,
      `UPDATE collection_items SET state = 'cancelled', cancelled_at = updated_at WHERE transaction_id = '${freedTx.id}'`,
      ENGINE === 'postgres' ? 'UPDATE billing_schema SET version = 16' : 'PRAGMA user_version = 16',
    ];
    await onStore(core.dbPath, statements);

    const reopened = await testCore({ dbPath: core.dbPath });
    expect(await reopened.store.schemaVersion()).toBe(migrations.length);
    const [row] = await reopened.store.read(() =>
      all((q) => q.selectFrom('transactions').selectAll().where('id', '=', heldTx.id)),
    );
    expect(Object.keys(row)).not.toContain('collection_id');
    // Still in its batch (its item says so): not to be canceled, not to be batched again.
    const refused = await call(reopened, 'DELETE', `/transactions/${heldTx.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].detail).toContain(`collection batch ${made.data.id}`);
    const again = await batch(reopened);
    expect(again.data.attributes.transactions).toBe(1);
    const items = await reopened.store.read(() =>
      all((q) =>
        q.selectFrom('collection_items').select('transaction_id').where('collection_id', '=', Number(again.data.id)),
      ),
    );
    expect(items).toEqual([{ transaction_id: freedTx.id }]);
  });
});

describe(`the migration that finds a report's entries by their transaction (18), on ${ENGINE}`, () => {
  it("drops the items' index of EndToEndIds; a report made for a batch of before still finds its entries", async () => {
    const core = await sepaCore({ settings: { prenotification_days: 1 } });
    await subscribe(core, await makePlan(core));
    await subscribe(core, await makePlan(core));
    const made = await batch(core);
    const xml = await fileOf(core, made.data.id);
    await core.store.close();
    // As version 17 kept it: the unique index of EndToEndIds.
    const statements = [
      ...BEFORE_22,
      'CREATE UNIQUE INDEX collection_items_e2e ON collection_items(account_id, end_to_end_id) WHERE cancelled_at IS NULL',
      ENGINE === 'postgres' ? 'UPDATE billing_schema SET version = 17' : 'PRAGMA user_version = 17',
    ];
    const indexes = async () =>
      ENGINE === 'sqlite'
        ? (() => {
            const db = new Database(core.dbPath, { readonly: true });
            try {
              return (
                db
                  .prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'collection_items' AND type = 'index'")
                  .all() as {
                  name: string;
                }[]
              ).map((row) => row.name);
            } finally {
              db.close();
            }
          })()
        : (
            await onPostgres<{ indexname: string }>(
              core.dbPath,
              "SELECT indexname FROM pg_indexes WHERE tablename = 'collection_items'",
            )
          ).map((row) => row.indexname);
    await onStore(core.dbPath, statements);
    expect(await indexes()).toContain('collection_items_e2e');

    const reopened = await testCore({ dbPath: core.dbPath });
    expect(await reopened.store.schemaVersion()).toBe(migrations.length);
    expect(await indexes()).not.toContain('collection_items_e2e');
    const e2e = values(xml, 'EndToEndId');
    const amounts = [...xml.matchAll(/<InstdAmt Ccy="EUR">([^<]*)</g)].map((m) => m[1]);
    const answer = await report(
      reopened,
      camt054For({
        bookedOn: '2026-11-23',
        booked: [
          ...e2e.map((endToEndId, i) => ({ endToEndId, amountCents: Math.round(Number(amounts[i]) * 100) })),
          // The next attempt's EndToEndId of a transaction in the batch: no item of it, so no match.
          { endToEndId: e2e[0].replace(/-1$/, '-2'), amountCents: 100 },
        ],
      }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.data.attributes).toMatchObject({ entries: 3, booked: 2, unmatched: 1 });
  });
});

describe(`the migration of the unique index of live items to their transaction's row number (22), on ${ENGINE}`, () => {
  it("gives each item its transaction's seq: a batched transaction stays in its batch, a freed one is batched again", async () => {
    const { core, made, heldTx, freedTx } = await twoInABatch();
    // As version 21 kept it: one item freed by hand since, and one whose transaction is not in the store.
    const columns =
      'account_id, collection_id, subscription_id, attempt, state, sequence_type, collection_date, amount_cents, ' +
      'mandate_id, mandate_signed_on, debtor_name, debtor_iban, created_at, updated_at';
    const statements = [
      ...BEFORE_22,
      `UPDATE collection_items SET state = 'cancelled', cancelled_at = updated_at WHERE transaction_id = '${freedTx.id}'`,
      `INSERT INTO collection_items (transaction_id, end_to_end_id, ${columns})
       SELECT 'gone', 'GONE-1', ${columns} FROM collection_items WHERE transaction_id = '${heldTx.id}'`,
      ENGINE === 'postgres' ? 'UPDATE billing_schema SET version = 21' : 'PRAGMA user_version = 21',
    ];
    await onStore(core.dbPath, statements);

    const reopened = await testCore({ dbPath: core.dbPath });
    expect(await reopened.store.schemaVersion()).toBe(migrations.length);
    const seqOf = async (id: string) =>
      (await reopened.store.read(() => get((q) => q.selectFrom('transactions').select('seq').where('id', '=', id))))!
        .seq;
    const items = await reopened.store.read(() =>
      all((q) => q.selectFrom('collection_items').select(['id', 'transaction_id', 'transaction_seq']).orderBy('id')),
    );
    const seqs = new Map([
      [heldTx.id, await seqOf(heldTx.id)],
      [freedTx.id, await seqOf(freedTx.id)],
    ]);
    expect(items.map((item) => item.transaction_id).sort()).toEqual([heldTx.id, freedTx.id, 'gone'].sort());
    expect(items.map((item) => item.transaction_seq)).toEqual(
      items.map((item) => (item.transaction_id === 'gone' ? -item.id : seqs.get(item.transaction_id))),
    );
    // Still in its batch: not to be canceled, and a second live item of its attempt is refused.
    const refused = await call(reopened, 'DELETE', `/transactions/${heldTx.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].detail).toContain(`collection batch ${made.data.id}`);
    const [live] = await reopened.store.read(() =>
      all((q) => q.selectFrom('collection_items').selectAll().where('transaction_id', '=', heldTx.id)),
    );
    const copy = () =>
      reopened.store.write(() =>
        run((q) => q.insertInto('collection_items').values({ ...live, id: 1000, end_to_end_id: 'COPY-1' })),
      );
    await expect((async () => copy())()).rejects.toThrow(/unique|UNIQUE/);
    // The freed one goes into the next batch, its item under its own row number.
    const again = await batch(reopened);
    expect(again.data.attributes.transactions).toBe(1);
    expect(
      await reopened.store.read(() =>
        all((q) =>
          q
            .selectFrom('collection_items')
            .select(['transaction_id', 'transaction_seq'])
            .where('collection_id', '=', Number(again.data.id)),
        ),
      ),
    ).toEqual([{ transaction_id: freedTx.id, transaction_seq: seqs.get(freedTx.id) }]);
  });
});

describe(`a store a newer billing migrated, on ${ENGINE}`, () => {
  it('is not opened: the error names both versions and says to upgrade; the store is left as it is', async () => {
    const core = await testCore();
    await core.store.close();
    const newer = migrations.length + 1;
    const version = async () =>
      ENGINE === 'sqlite'
        ? (() => {
            const db = new Database(core.dbPath, { readonly: true });
            try {
              return db.pragma('user_version', { simple: true }) as number;
            } finally {
              db.close();
            }
          })()
        : Number((await onPostgres<{ version: number }>(core.dbPath, 'SELECT version FROM billing_schema'))[0].version);
    if (ENGINE === 'sqlite') {
      const db = new Database(core.dbPath);
      db.pragma(`user_version = ${newer}`);
      db.close();
    } else await onPostgres(core.dbPath, `UPDATE billing_schema SET version = ${newer}`);
    const refusal = `is at schema version ${newer}, which a newer billing made; this billing knows versions up to ${migrations.length}: upgrade billing`;
    await expect(openStore(core.dbPath)).rejects.toThrow(refusal);
    await expect(openStore(core.dbPath, { create: 'nothing' })).rejects.toThrow(refusal);
    expect(await version()).toBe(newer);
  });
});

describe.runIf(ENGINE === 'sqlite')('openStore on a SQLite file (SQLite only)', () => {
  it('when the file is new, runs every migration, records the version in user_version and turns WAL on', async () => {
    const path = tempDbPath();
    await (await openStore(path)).close();
    const seen = pragmas(path);
    expect(seen.userVersion).toBe(sqliteMigrations.length);
    expect(seen.journalMode).toBe('wal');
    expect(seen.tables).toEqual([
      'accounts',
      'api_keys',
      'bank_reports',
      'collection_items',
      'collections',
      'customers',
      'due_work',
      'events',
      'idempotency_keys',
      'imports',
      'invoice_lines',
      'invoices',
      'notifications',
      'plan_prices',
      'search_deferred',
      'store_clock',
      'subscription_plans',
      'subscriptions',
      'transactions',
      'webhook_deliveries',
      'webhook_hosts',
    ]);
  });

  it('when the store is opened again, keeps user_version', async () => {
    const path = tempDbPath();
    await (await openStore(path)).close();
    await (await openStore(path)).close();
    expect(pragmas(path).userVersion).toBe(sqliteMigrations.length);
  });

  it('when two connections are open on the same file at once, the version is recorded once and the journal stays WAL', async () => {
    const path = tempDbPath();
    const a = await testStore(path);
    const b = await testStore(path);
    const account = await defaultAccount(a, fixedClock(TEST_NOW));
    expect(await b.read(() => get((q) => q.selectFrom('accounts').selectAll().where('id', '=', account.id)))).toEqual(
      account,
    );
    expect(pragmas(path)).toMatchObject({ userVersion: sqliteMigrations.length, journalMode: 'wal' });
  });
});

describe.runIf(ENGINE === 'postgres')('openStore on a PostgreSQL database (PostgreSQL only)', () => {
  it('when the database is new, runs every migration and records the version in billing_schema', async () => {
    const url = await freshPostgresUrl();
    await (await openStore(url, { poolSize: 1 })).close();
    expect(await onPostgres(url, 'SELECT version FROM billing_schema')).toEqual([
      { version: postgresMigrations.length },
    ]);
    expect(await postgresTables(url)).toEqual([
      'accounts',
      'api_keys',
      'bank_reports',
      'billing_schema',
      'collection_items',
      'collections',
      'customers',
      'due_work',
      'events',
      'idempotency_keys',
      'imports',
      'invoice_lines',
      'invoices',
      'notifications',
      'plan_prices',
      'search_deferred',
      'store_clock',
      'subscription_plans',
      'subscriptions',
      'transactions',
      'webhook_deliveries',
      'webhook_hosts',
    ]);
  });

  it('when the database is opened again, keeps one row in billing_schema at the same version', async () => {
    const url = await freshPostgresUrl();
    await (await openStore(url, { poolSize: 1 })).close();
    await (await openStore(url, { poolSize: 1 })).close();
    expect(await onPostgres(url, 'SELECT version FROM billing_schema')).toEqual([
      { version: postgresMigrations.length },
    ]);
  });

  it('when two stores open one new database at the same moment, it is migrated once (the advisory lock) and both work', async () => {
    const url = await freshPostgresUrl();
    const opened = await Promise.allSettled([openStore(url, { poolSize: 2 }), openStore(url, { poolSize: 2 })]);
    const stores = opened.flatMap((o) => (o.status === 'fulfilled' ? [closeLater(o.value)] : []));
    expect(opened.map((o) => (o.status === 'rejected' ? String(o.reason) : 'opened'))).toEqual(['opened', 'opened']);
    const [a, b] = stores as [Store, Store];
    expect(await onPostgres(url, 'SELECT version FROM billing_schema')).toEqual([
      { version: postgresMigrations.length },
    ]);
    expect(await postgresTables(url)).toEqual([
      'accounts',
      'api_keys',
      'bank_reports',
      'billing_schema',
      'collection_items',
      'collections',
      'customers',
      'due_work',
      'events',
      'idempotency_keys',
      'imports',
      'invoice_lines',
      'invoices',
      'notifications',
      'plan_prices',
      'search_deferred',
      'store_clock',
      'subscription_plans',
      'subscriptions',
      'transactions',
      'webhook_deliveries',
      'webhook_hosts',
    ]);
    const [fromA, fromB] = await Promise.all([
      defaultAccount(a, fixedClock(TEST_NOW)),
      defaultAccount(b, fixedClock(TEST_NOW)),
    ]);
    expect(fromB).toEqual(fromA);
    expect(await a.schemaVersion()).toBe(postgresMigrations.length);
    expect(await b.schemaVersion()).toBe(postgresMigrations.length);
  });
});
