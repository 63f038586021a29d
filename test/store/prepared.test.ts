// Prepared queries: compiled once per store and run with arguments, rows mapped to plain objects.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { SqliteStore, Store } from '../../src/lib/store/store.js';
import { get, prepared, run, type PreparedBuild, type Unit } from '../../src/lib/store/unit.js';
import { ENGINE } from '../helpers/engine.js';
import { testStore } from '../helpers/store.js';

const NOW = '2026-11-21T10:00:00.000Z';

function* seed(): Unit<void> {
  yield* run((q) =>
    q.insertInto('accounts').values({
      name: 'a',
      is_default: 1,
      webhook_secret: 's',
      invoice_prefix: 'INV-',
      time_zone: 'UTC',
      next_invoice_number: 1,
      created_at: NOW,
      updated_at: NOW,
    }),
  );
  for (const name of ['Ann', 'Bob', 'Cas']) {
    yield* run((q) =>
      q.insertInto('customers').values({
        account_id: 1,
        first_name: name,
        last_name: 'X',
        email: `${name}@x.nl`,
        payment_method: 'directdebit',
        language: 'nl',
        archived: 0,
        search_text: '',
        created_at: NOW,
        updated_at: NOW,
      }),
    );
  }
}

/** A fresh store with one account and the customers Ann (1), Bob (2) and Cas (3). */
async function seeded(): Promise<Store> {
  const store = await testStore();
  await store.write(seed);
  return store;
}

const byName = prepared<{ id: number; first_name: string }, [string, number]>('test.by-name', (q, p) =>
  q
    .selectFrom('customers')
    .select(['id', 'first_name'])
    .where('first_name', '=', p(0))
    .where('account_id', '=', p(1))
    .where('archived', '=', 0),
);
const idsAbove = prepared<{ id: number }, [number]>('test.all', (q, p) =>
  q.selectFrom('customers').select('id').where('id', '>', p(0)).orderBy('id'),
);
const archive = prepared<never, [number]>('test.archive', (q, p) =>
  q.updateTable('customers').set({ archived: 1 }).where('id', '=', p(0)),
);
const archivedOf = (id: number) => get((q) => q.selectFrom('customers').select('archived').where('id', '=', id));

describe(`prepared queries on ${ENGINE}`, () => {
  it('binds each argument where its param stands, constants stay constant, and rows are plain objects', async () => {
    const store = await seeded();
    expect(await store.read(() => byName.get('Bob', 1))).toEqual({ id: 2, first_name: 'Bob' });
    expect(await store.read(() => byName.get('Bob', 2))).toBeUndefined();
    expect(await store.read(() => byName.get('Cas', 1))).toEqual({ id: 3, first_name: 'Cas' });
    expect(await store.read(() => idsAbove.all(1))).toEqual([{ id: 2 }, { id: 3 }]);
    expect(Object.getPrototypeOf((await store.read(() => idsAbove.all(0)))[0])).toBe(Object.prototype);
    expect(Object.getPrototypeOf(await store.read(() => byName.get('Ann', 1)))).toBe(Object.prototype);
  });

  it('compiles once per key: a second build function under the same key is not used', async () => {
    const store = await seeded();
    let builds = 0;
    const build: PreparedBuild<{ first_name: string }> = (q, p) => {
      builds++;
      return q.selectFrom('customers').select('first_name').where('id', '=', p(0));
    };
    const other: PreparedBuild<{ first_name: string }> = (q, p) => {
      builds++;
      return q.selectFrom('customers').select('last_name as first_name').where('id', '=', p(0));
    };
    expect(await store.read(() => prepared<{ first_name: string }, [number]>('test.once', build).get(1))).toEqual({
      first_name: 'Ann',
    });
    expect(await store.read(() => prepared<{ first_name: string }, [number]>('test.once', build).get(2))).toEqual({
      first_name: 'Bob',
    });
    expect(await store.read(() => prepared<{ first_name: string }, [number]>('test.once', other).get(3))).toEqual({
      first_name: 'Cas',
    });
    expect(builds).toBe(1);
  });

  it('runs writes and gives the number of rows they changed', async () => {
    const store = await seeded();
    expect(await store.write(() => archive.run(2))).toBe(1);
    expect(await store.write(() => archive.run(99))).toBe(0);
    expect(await store.read(() => archivedOf(2))).toEqual({ archived: 1 });
    expect(await store.read(() => archivedOf(1))).toEqual({ archived: 0 });
  });

  it('reads a row whose column names repeat (a join) as the plain query would', async () => {
    const store = await seeded();
    const joined = prepared<{ id: number }, [number]>('test.join', (q, p) =>
      q
        .selectFrom('customers')
        .innerJoin('accounts', 'accounts.id', 'customers.account_id')
        .select(['accounts.id', 'customers.id'])
        .where('customers.id', '=', p(0)),
    );
    expect(await store.read(() => joined.get(3))).toEqual({ id: 3 });
    expect(await store.read(() => joined.all(3))).toEqual([{ id: 3 }]);
  });

  it('binds only the arguments the query uses', async () => {
    const store = await seeded();
    const byId = prepared<{ first_name: string }, [number, string]>('test.extra-argument', (q, p) =>
      q.selectFrom('customers').select('first_name').where('id', '=', p(0)),
    );
    expect(await store.read(() => byId.get(2, 'not used'))).toEqual({ first_name: 'Bob' });
  });
});

describe.runIf(ENGINE === 'sqlite')('prepared queries on SQLite: the data version (SQLite only)', () => {
  it('counts a prepared write in the data version', async () => {
    const store = (await seeded()) as SqliteStore;
    const before = store.dataVersion();
    expect(store.write(() => archive.run(2))).toBe(1);
    expect(store.dataVersion()).not.toBe(before);
  });
});

describe.runIf(ENGINE === 'sqlite')('prepared get on SQLite: one row read as JSON text (SQLite only)', () => {
  it('gives back integers, reals, text and null exactly as stored', async () => {
    const store = await testStore();
    const text = 'quote " backslash \\ control \u0001 line\u2028sep é 😀 <tag>';
    const values = {
      i: 9007199254740991,
      n: -42,
      r: 0.1 + 0.2,
      tiny: 5e-324,
      big: 1e300,
      t: text,
      empty: '',
      nothing: null,
    };
    await store.write(() =>
      run((q) =>
        q.insertInto('accounts').values({
          name: 'a',
          is_default: 1,
          webhook_secret: text,
          invoice_prefix: '',
          time_zone: 'UTC',
          next_invoice_number: values.i,
          created_at: 'x',
          updated_at: 'x',
        }),
      ),
    );
    const row = store.read(() =>
      prepared<Record<string, unknown>, [string]>('test.values', (q, p) =>
        q
          .selectFrom('accounts')
          .select(['webhook_secret as t', 'invoice_prefix as empty', 'next_invoice_number as i'])
          .select((eb) => [
            eb.val(values.n).as('n'),
            eb.val(values.r).as('r'),
            eb.val(values.tiny).as('tiny'),
            eb.val(values.big).as('big'),
            eb.val(null).as('nothing'),
          ])
          .where('name', '=', p(0)),
      ).get('a'),
    );
    expect(row).toEqual(values);
    expect(Object.is((row as Record<string, unknown>).r, values.r)).toBe(true);
  });

  it('keeps text made by a JSON function as text', async () => {
    const store = await seeded();
    const made = prepared<{ doc: string }, [number]>('test.json-text', (q, p) =>
      q
        .selectFrom('customers')
        .select(sql<string>`json_object('name', first_name)`.as('doc'))
        .where('id', '=', p(0)),
    );
    expect(store.read(() => made.get(1))).toEqual({ doc: '{"name":"Ann"}' });
  });
});

describe.runIf(ENGINE === 'postgres')(
  'prepared get on PostgreSQL: values as the core sees them on SQLite (PostgreSQL only)',
  () => {
    it('gives back bigints as numbers, flags as 0/1, instants as ISO text, text exactly and null', async () => {
      const store = await testStore();
      const text = 'quote " backslash \\ control \u0001 line\u2028sep é 😀 <tag>';
      await store.write(() =>
        run((q) =>
          q.insertInto('accounts').values({
            name: 'a',
            is_default: 1,
            webhook_secret: text,
            invoice_prefix: '',
            time_zone: 'UTC',
            next_invoice_number: 9007199254740991,
            created_at: '2026-11-21T10:00:00.100Z',
            updated_at: NOW,
          }),
        ),
      );
      const row = await store.read(() =>
        prepared<Record<string, unknown>, [string]>('test.values', (q, p) =>
          q
            .selectFrom('accounts')
            .select([
              'webhook_secret as t',
              'invoice_prefix as empty',
              'next_invoice_number as i',
              'is_default as flag',
              'created_at as at',
              'updated_at as whole',
            ])
            .select((eb) => eb.val(null).as('nothing'))
            .where('name', '=', p(0)),
        ).get('a'),
      );
      expect(row).toEqual({
        t: text,
        empty: '',
        i: 9007199254740991,
        flag: 1,
        at: '2026-11-21T10:00:00.100Z',
        whole: NOW,
        nothing: null,
      });
    });

    it('refuses an integer beyond what a JS number holds exactly, rather than rounding it', async () => {
      const store = await testStore();
      await store.write(() =>
        run((q) =>
          q.insertInto('accounts').values({
            name: 'a',
            is_default: 1,
            webhook_secret: 's',
            invoice_prefix: '',
            time_zone: 'UTC',
            next_invoice_number: sql<number>`9007199254740993`,
            created_at: NOW,
            updated_at: NOW,
          }),
        ),
      );
      await expect(
        store.read(() => get((q) => q.selectFrom('accounts').select('next_invoice_number'))),
      ).rejects.toThrow(/9007199254740993 is beyond/);
    });

    it('keeps JSON as the text it was written in', async () => {
      const store = await testStore();
      const written = '{"b": 1,  "a" : [2, {"c": null}]}';
      expect(await store.read(() => get((q) => q.selectNoFrom(sql<string>`${written}::json`.as('doc'))))).toEqual({
        doc: written,
      });
    });
  },
);
