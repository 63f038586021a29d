// A unit of work is one transaction on both engines: it commits whole or changes nothing, and on
// PostgreSQL a serialization failure or deadlock runs the whole unit again, a bounded number of times.
import { sql } from 'kysely';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore, StoreBusyError, type Store } from '../../src/lib/store/store.js';
import { ahead, all, get, run, taken, turn, writeRows, type RowsSpec } from '../../src/lib/store/unit.js';
import { ENGINE, freshStoreLocation } from '../helpers/engine.js';
import { insertAccount } from '../helpers/store.js';

const NOW = '2026-11-21T10:00:00.000Z';
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function freshStore(): Promise<Store> {
  const store = await openStore(await freshStoreLocation(), { poolSize: 4 });
  stores.push(store);
  return store;
}

/** SQLite answers (and throws) at once, PostgreSQL through a promise: both as a promise here. */
const later = <T>(fn: () => T | Promise<T>): Promise<T> => Promise.resolve().then(fn);

const accountNames = (store: Store) =>
  store.read(() => all((q) => q.selectFrom('accounts').select('name').orderBy('id')));
const counter = (store: Store) =>
  store.read(() => get((q) => q.selectFrom('accounts').select('next_invoice_number').where('name', '=', 'a')));

describe(`units on ${ENGINE}`, () => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore();
  });

  it('commits every statement of a unit together', async () => {
    const ids = await store.write(function* () {
      return [yield* insertAccount('a'), yield* insertAccount('b')];
    });
    expect(ids).toEqual([1, 2]);
    expect(await accountNames(store)).toEqual([{ name: 'a' }, { name: 'b' }]);
  });

  it('changes nothing when the unit throws after writing', async () => {
    await expect(
      later(() =>
        store.write(function* () {
          yield* insertAccount('a');
          throw new Error('a rule failed halfway');
        }),
      ),
    ).rejects.toThrow('a rule failed halfway');
    expect(await accountNames(store)).toEqual([]);
  });

  it('changes nothing when a statement fails after others succeeded', async () => {
    await expect(
      later(() =>
        store.write(function* () {
          yield* insertAccount('a');
          yield* insertAccount('a'); // unique name: the database refuses it
        }),
      ),
    ).rejects.toThrow();
    expect(await accountNames(store)).toEqual([]);
  });

  it('rolls back and returns the value when keep() refuses it (a refused request)', async () => {
    const value = await store.write(
      function* () {
        yield* insertAccount('a');
        return { ok: false };
      },
      (result) => result.ok,
    );
    expect(value).toEqual({ ok: false });
    expect(await accountNames(store)).toEqual([]);
  });

  it('gives a statement error to the unit, which may answer it', async () => {
    const value = await store.write(function* () {
      try {
        yield* run((q) => q.insertInto('api_keys').values({ account_id: 999, key_hash: 'x', created_at: NOW })); // no such account
        return 'inserted';
      } catch {
        return 'refused';
      }
    });
    expect(value).toBe('refused');
  });

  // PostgreSQL sends a bulk write without waiting for it (the unit goes on while the server writes):
  // what follows still sees it, and its failure is still the unit's, never a half-written batch.
  const ACCOUNTS: RowsSpec = {
    key: 'test.accounts',
    table: 'accounts',
    columns: { name: 'text', webhook_secret: 'text', created_at: 'instant', updated_at: 'instant' },
  };
  const accountRows = (...names: string[]) =>
    names.map((name) => ({ name, webhook_secret: 's', created_at: NOW, updated_at: NOW }));
  const CUSTOMERS: RowsSpec = {
    key: 'test.customers',
    table: 'customers',
    columns: {
      account_id: 'integer',
      first_name: 'text',
      middle_name: 'text',
      last_name: 'text',
      email: 'text',
      payment_method: 'text',
      language: 'text',
      archived: 'flag',
      created_at: 'instant',
      updated_at: 'instant',
    },
  };

  it('a query after a bulk write sees what it wrote', async () => {
    const names = await store.write(function* () {
      yield* writeRows('insert', ACCOUNTS, accountRows('a', 'b', 'c'));
      yield* writeRows('insert', ACCOUNTS, accountRows('d'));
      return (yield* all((q) => q.selectFrom('accounts').select('name').orderBy('name'))).map((row) => row.name);
    });
    expect(names).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reads rows as objects by column name: every type as stored, nulls, a name given twice keeping its last value', async () => {
    await store.write(() => insertAccount('a'));
    const read = () =>
      all((q) =>
        q
          .selectFrom('accounts as x')
          .innerJoin('accounts as y', 'y.id', 'x.id')
          .select([
            'x.name',
            'x.next_invoice_number',
            sql<null>`null`.as('nothing'),
            sql<string>`'first'`.as('twice'),
            sql<string>`'last'`.as('twice'),
          ])
          .selectAll('y'),
      );
    // Twice: the first read makes the statement, the second reuses it.
    for (const rows of [await store.read(read), await store.read(read)]) {
      expect(rows).toHaveLength(1);
      const [row] = rows as unknown as Record<string, unknown>[];
      expect(row).toMatchObject({ name: 'a', nothing: null, twice: 'last' });
      expect(typeof row.next_invoice_number).toBe('number');
      expect(typeof row.id).toBe('number');
    }
    const one = await store.read(() =>
      get((q) =>
        q
          .selectFrom('accounts')
          .select(['name', sql<string>`'first'`.as('twice'), sql<string>`'last'`.as('twice')])
          .where('name', '=', 'a'),
      ),
    );
    expect(one).toEqual({ name: 'a', twice: 'last' });
  });

  it('reads many rows of one statement alike: the first ones and those after its row function is made', async () => {
    const numbers = sql<{
      i: number;
    }>`(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150) SELECT i FROM n)`;
    const read = () =>
      all((q) =>
        q
          .selectFrom(numbers.as('n'))
          .select([
            'n.i',
            sql<string>`'first'`.as('twice'),
            sql<null>`null`.as('nothing'),
            sql<string>`'last'`.as('twice'),
          ])
          .orderBy('n.i'),
      );
    const expected = Array.from({ length: 150 }, (_, k) => ({ i: k + 1, twice: 'last', nothing: null }));
    expect(await store.read(read)).toEqual(expected);
    expect(await store.read(read)).toEqual(expected);
  });

  it('reads instants back as written, milliseconds included', async () => {
    const instants = [
      '2026-11-21T10:00:00.000Z',
      '2026-11-21T10:00:00.100Z',
      '2026-11-21T23:59:59.120Z',
      '2026-03-29T01:00:00.123Z',
      '1999-12-31T23:59:59.999Z',
    ];
    await store.write(() =>
      writeRows(
        'insert',
        ACCOUNTS,
        instants.map((at, i) => ({ name: `t${i}`, webhook_secret: 's', created_at: at, updated_at: at })),
      ),
    );
    const rows = await store.read(() =>
      all((q) => q.selectFrom('accounts').select(['created_at', 'updated_at']).orderBy('id')),
    );
    expect(rows.map((row) => row.created_at)).toEqual(instants);
    expect(rows.map((row) => row.updated_at)).toEqual(instants);
  });

  it('finds rows among a list of ids, and none among an empty one', async () => {
    await store.write(() => writeRows('insert', ACCOUNTS, accountRows('a', 'b', 'c', 'd')));
    const among = (ids: number[]) =>
      store.read(() =>
        all((q, d) => q.selectFrom('accounts').select('name').where(d.among('id', ids)).orderBy('name')),
      );
    expect((await among([4, 2, 99, 2])).map((row) => row.name)).toEqual(['b', 'd']);
    expect(await among([])).toEqual([]);
    // Text too, whatever it holds (PostgreSQL: quoted in the array's literal).
    const odd = 'x "quoted", {braced} \\ NULL';
    await store.write(() => writeRows('insert', ACCOUNTS, accountRows(odd, 'NULL')));
    const named = (names: string[]) =>
      store.read(() =>
        all((q, d) => q.selectFrom('accounts').select('id').where(d.among('name', names)).orderBy('id')),
      );
    expect((await named(['c', odd, 'NULL', 'zz'])).map((row) => row.id)).toEqual([3, 5, 6]);
    expect(await named([])).toEqual([]);
  });

  it("a bulk write that fails ends the unit with its own error, at the latest at the unit's next query", async () => {
    let after = false;
    let caughtAsQuery = false;
    const failed = await later(() =>
      store.write(function* () {
        yield* insertAccount('a');
        yield* writeRows('insert', ACCOUNTS, accountRows('b', 'a')); // unique name: refused
        try {
          yield* all((q) => q.selectFrom('accounts').select('name'));
        } catch {
          caughtAsQuery = true; // never: the write's failure is not the query's
        }
        after = true;
      }),
    ).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    // The write's error, not the query's after it ("current transaction is aborted"), nor caught as the query's.
    expect(failed?.message).toMatch(/unique/i);
    expect(failed?.message).not.toMatch(/aborted/);
    expect(caughtAsQuery).toBe(false);
    expect(after).toBe(false);
    expect(await accountNames(store)).toEqual([]);
  });

  it('a turn changes nothing: a query after it sees the bulk writes sent before it', async () => {
    const names = await store.write(function* () {
      yield* writeRows('insert', ACCOUNTS, accountRows('a', 'b'));
      yield* turn();
      yield* writeRows('insert', ACCOUNTS, accountRows('c'));
      yield* turn();
      return (yield* all((q) => q.selectFrom('accounts').select('name').orderBy('name'))).map((row) => row.name);
    });
    expect(names).toEqual(['a', 'b', 'c']);
  });

  it('a read started ahead sees the bulk writes sent before it, not those after it, and is taken later', async () => {
    const [early, late, after] = await store.write(function* () {
      yield* writeRows('insert', ACCOUNTS, accountRows('a', 'b'));
      const names = () => all((q) => q.selectFrom('accounts').select('name').orderBy('name'));
      const first = yield* ahead(names());
      yield* writeRows('insert', ACCOUNTS, accountRows('c'));
      // A read of two queries, the second using the first's answer.
      const second = yield* ahead(
        (function* () {
          const count = (yield* names()).length;
          return (yield* all((q) =>
            q
              .selectFrom('accounts')
              .select('name')
              .orderBy('name')
              .limit(count - 1),
          )).map((row) => row.name);
        })(),
      );
      yield* writeRows('insert', ACCOUNTS, accountRows('d'));
      return [(yield* taken(first)).map((row) => row.name), yield* taken(second), yield* names()];
    });
    expect(early).toEqual(['a', 'b']);
    expect(late).toEqual(['a', 'b']);
    expect(after.map((row) => row.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a read started ahead that fails ends the unit with its error, which changes nothing', async () => {
    let after = false;
    await expect(
      later(() =>
        store.write(function* () {
          yield* insertAccount('a');
          const failing = yield* ahead(
            all((q) => q.selectFrom('accounts').select(sql<number>`abs(-9223372036854775807 - 1)`.as('x'))),
          );
          yield* writeRows('insert', ACCOUNTS, accountRows('b'));
          yield* taken(failing);
          after = true;
        }),
      ),
    ).rejects.toThrow(/overflow|out of range/i); // the smallest integer has no absolute value
    expect(after).toBe(false);
    expect(await accountNames(store)).toEqual([]);
  });

  it('a read started ahead only reads: a write in it ends the unit, which changes nothing', async () => {
    await expect(
      later(() =>
        store.write(function* () {
          yield* insertAccount('a');
          const writing = yield* ahead(
            (function* () {
              yield* all((q) => q.selectFrom('accounts').select('name'));
              return yield* run((q) => q.updateTable('accounts').set({ name: 'z' }));
            })(),
          );
          return yield* taken(writing);
        }),
      ),
    ).rejects.toThrow('a read started ahead only reads rows; it asked for run');
    expect(await accountNames(store)).toEqual([]);
  });

  it('a bulk write sends a value the same in every row once, and keeps it as it was: text, nulls, a flag, an instant', async () => {
    const account = await store.write(() => insertAccount('a'));
    const row = (last: string, archived: number) => ({
      account_id: account,
      first_name: 'with "quotes", {braces} and \\',
      middle_name: null,
      last_name: last,
      email: 'same@example.com',
      payment_method: 'directdebit',
      language: 'nl',
      archived,
      created_at: '2026-11-21T10:00:00.123Z',
      updated_at: NOW,
    });
    // Some columns alike in every row, then every column alike (three rows all the same).
    await store.write(function* () {
      yield* writeRows('insert', CUSTOMERS, [row('X', 1), row('Y', 1), row('Z', 1)]);
      yield* writeRows('insert', CUSTOMERS, [row('W', 0), row('W', 0), row('W', 0)]);
    });
    const read = () =>
      store.read(() =>
        all((q) =>
          q
            .selectFrom('customers')
            .select(['id', 'first_name', 'middle_name', 'last_name', 'archived', 'created_at'])
            .orderBy('id'),
        ),
      );
    const rows = await read();
    expect(rows.map((r) => r.last_name)).toEqual(['X', 'Y', 'Z', 'W', 'W', 'W']);
    expect(rows.map((r) => r.archived)).toEqual([1, 1, 1, 0, 0, 0]);
    expect(new Set(rows.map((r) => `${r.first_name}|${r.middle_name}|${r.created_at}`))).toEqual(
      new Set(['with "quotes", {braces} and \\|null|2026-11-21T10:00:00.123Z']),
    );
    // An update of many rows, each column but the key alike in every row.
    const update: RowsSpec = {
      key: 'test.customers.update.same',
      table: 'customers',
      columns: { id: 'integer', first_name: 'text', middle_name: 'text', archived: 'flag' },
      by: 'id',
    };
    await store.write(() =>
      writeRows(
        'update',
        update,
        rows.slice(0, 5).map((r) => ({ id: r.id, first_name: 'Ö', middle_name: 'NULL', archived: 1 })),
      ),
    );
    const updated = await read();
    expect(updated.map((r) => [r.first_name, r.middle_name, r.archived])).toEqual([
      ...Array.from({ length: 5 }, () => ['Ö', 'NULL', 1]),
      ['with "quotes", {braces} and \\', null, 0],
    ]);
  });

  it('a bulk write that fails as the last statement fails the unit, which changes nothing', async () => {
    await expect(
      later(() =>
        store.write(function* () {
          yield* insertAccount('a');
          yield* writeRows('insert', ACCOUNTS, accountRows('b'));
          yield* writeRows('insert', ACCOUNTS, accountRows('c', 'a'));
        }),
      ),
    ).rejects.toThrow(/unique/i);
    expect(await accountNames(store)).toEqual([]);
  });

  it('a bulk write keeps every value as it was: quotes, backslashes, braces, commas, "NULL", empty text, flags, nulls', async () => {
    const account = await store.write(() => insertAccount('a'));
    const texts = [
      'plain',
      'with "quotes"',
      'back\\slash',
      '\\"',
      '{braces}',
      'a,b',
      'NULL',
      '',
      '  spaced  ',
      'Zoë Ångström',
      'line\nbreak',
    ];
    await store.write(() =>
      writeRows(
        'insert',
        CUSTOMERS,
        texts.map((text, i) => ({
          account_id: account,
          first_name: text,
          middle_name: i % 2 ? null : text,
          last_name: 'L',
          email: `c${i}@example.com`,
          payment_method: 'directdebit',
          language: 'nl',
          archived: i % 3 === 0 ? 1 : 0,
          created_at: NOW,
          updated_at: NOW,
        })),
      ),
    );
    const read = () =>
      store.read(() =>
        all((q) => q.selectFrom('customers').select(['id', 'first_name', 'middle_name', 'archived']).orderBy('id')),
      );
    const rows = await read();
    expect(rows.map((row) => row.first_name)).toEqual(texts);
    expect(rows.map((row) => row.middle_name)).toEqual(texts.map((text, i) => (i % 2 ? null : text)));
    expect(rows.map((row) => row.archived)).toEqual(texts.map((_, i) => (i % 3 === 0 ? 1 : 0)));
    // An update of many rows (one statement on PostgreSQL) by key: the texts reversed, the flags flipped.
    const update: RowsSpec = {
      key: 'test.customers.update',
      table: 'customers',
      columns: { id: 'integer', first_name: 'text', archived: 'flag' },
      by: 'id',
    };
    await store.write(() =>
      writeRows(
        'update',
        update,
        rows.map((row, i) => ({ id: row.id, first_name: texts[texts.length - 1 - i], archived: 1 - row.archived })),
      ),
    );
    const updated = await read();
    expect(updated.map((row) => row.first_name)).toEqual([...texts].reverse());
    expect(updated.map((row) => row.archived)).toEqual(texts.map((_, i) => (i % 3 === 0 ? 0 : 1)));
  });
});

describe.runIf(ENGINE === 'postgres')('units on PostgreSQL: isolation, retries', () => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore();
    await store.write(() => insertAccount('a'));
  });

  const sleep = (seconds: number) => get((q) => q.selectNoFrom(sql<string>`pg_sleep(${seconds})`.as('slept')));
  // Steps are waited for, not timed: a loaded machine may run them in any order. Bounded: 10 s.
  function* sleepUntil(done: () => boolean) {
    for (let i = 0; !done() && i < 200; i++) yield* sleep(0.05);
  }
  const waitUntil = async (done: () => boolean) => {
    for (let i = 0; !done() && i < 1000; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it('a request never sees another request’s uncommitted write', async () => {
    const writing = store.write(function* () {
      yield* insertAccount('uncommitted');
      yield* sleep(0.4);
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await accountNames(store)).toEqual([{ name: 'a' }]); // mid-write: not there
    await writing;
    expect(await accountNames(store)).toEqual([{ name: 'a' }, { name: 'uncommitted' }]);
  });

  it('runs the whole unit again after a serialization failure, and loses no update', async () => {
    let runs = 0;
    let read = 0;
    const increment = () =>
      store.write(function* () {
        runs++;
        const row = yield* get((q) => q.selectFrom('accounts').select('next_invoice_number').where('name', '=', 'a'));
        read++;
        yield* sleepUntil(() => read >= 2); // both read the same value before either writes
        yield* run((q) =>
          q
            .updateTable('accounts')
            .set({ next_invoice_number: row!.next_invoice_number + 1 })
            .where('name', '=', 'a'),
        );
      });
    await Promise.all([increment(), increment()]);
    expect(await counter(store)).toEqual({ next_invoice_number: 3 });
    expect(runs).toBe(3); // one of the two ran again, from its first query
  });

  it('runs the whole unit again after a deadlock', async () => {
    await store.write(() => insertAccount('b'));
    let runs = 0;
    let locked = 0;
    const touch = (first: string, second: string) =>
      store.write(function* () {
        runs++;
        yield* run((q) => q.updateTable('accounts').set({ updated_at: NOW }).where('name', '=', first));
        locked++;
        yield* sleepUntil(() => locked >= 2); // each holds its first row before reaching for the other
        yield* run((q) => q.updateTable('accounts').set({ updated_at: NOW }).where('name', '=', second));
      });
    await Promise.all([touch('a', 'b'), touch('b', 'a')]);
    // The victim runs again (3). If its second run reaches row b before the winner has committed,
    // it waits for that commit and then meets a serialization failure, and runs once more (4).
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(runs).toBeLessThanOrEqual(4);
  });

  it('gives up after a bounded number of attempts as StoreBusyError, leaving nothing half-applied', async () => {
    let runs = 0;
    const started = Date.now();
    const failure = store
      .write(function* () {
        runs++;
        yield* insertAccount(`attempt-${runs}`);
        throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      })
      .catch((error: Error) => error);
    const error = await failure;
    expect(error).toBeInstanceOf(StoreBusyError);
    expect(error.message).toMatch(/concurrent writes 12 times \(could not serialize access\); it changed nothing/);
    expect(runs).toBe(12);
    // The waits between attempts grow but stay bounded (at most about 1.3 s in all).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await accountNames(store)).toEqual([{ name: 'a' }]);
  });

  it('answers a read of several queries from one snapshot, while another connection commits', async () => {
    const other = await openStore(store.location, { poolSize: 2 }); // test URLs carry no password
    stores.push(other);
    const steps = { read: false, committed: false };
    const reading = store.read(function* () {
      const before = yield* all((q) => q.selectFrom('accounts').select('name'));
      yield* sleep(0); // a second query: the first time, the read starts again here, in a snapshot
      steps.read = true;
      yield* sleepUntil(() => steps.committed);
      const after = yield* all((q) => q.selectFrom('accounts').select('name'));
      return { before: before.length, after: after.length };
    }, 'test.snapshot');
    await waitUntil(() => steps.read);
    await other.write(() => insertAccount('meanwhile'));
    steps.committed = true;
    expect(await reading).toEqual({ before: 1, after: 1 });
    expect(await accountNames(store)).toHaveLength(2);
  });

  it('gives a read made of a read ahead alone one snapshot for the queries in it', async () => {
    const other = await openStore(store.location, { poolSize: 2 });
    stores.push(other);
    const reading = store.read(function* () {
      const both = yield* ahead(
        (function* () {
          // The first query sleeps while the other connection commits.
          const before = yield* all((q) =>
            q.selectFrom('accounts').select(['name', sql<string>`pg_sleep(1)::text`.as('slept')]),
          );
          const after = yield* all((q) => q.selectFrom('accounts').select('name'));
          return { before: before.length, after: after.length };
        })(),
      );
      return yield* taken(both);
    }, 'test.ahead');
    await new Promise((resolve) => setTimeout(resolve, 250));
    await other.write(() => insertAccount('meanwhile'));
    expect(await reading).toEqual({ before: 1, after: 1 });
    expect(await accountNames(store)).toHaveLength(2);
  });

  it('learns that a read makes several queries and gives it a snapshot from then on', async () => {
    const other = await openStore(store.location, { poolSize: 2 });
    stores.push(other);
    const steps = { read: false, committed: false };
    const twoQueries = () =>
      store.read(function* () {
        const before = yield* all((q) => q.selectFrom('accounts').select('name'));
        steps.read = true;
        yield* sleepUntil(() => steps.committed);
        return { before: before.length, after: (yield* all((q) => q.selectFrom('accounts').select('name'))).length };
      }, 'test.learned');
    steps.committed = true; // first time: nothing to wait for
    expect(await twoQueries()).toEqual({ before: 1, after: 1 }); // first time: started again in a snapshot
    Object.assign(steps, { read: false, committed: false });
    const reading = twoQueries();
    await waitUntil(() => steps.read);
    await other.write(() => insertAccount('meanwhile'));
    steps.committed = true;
    expect(await reading).toEqual({ before: 1, after: 1 });
  });
});
