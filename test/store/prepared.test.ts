// store.prepared: a query compiled once and run with arguments, rows mapped to plain objects.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/lib/store/store.js';
import { tempDbPath } from '../helpers/store.js';

let store: Store;
afterEach(() => store?.close());

const seed = (s: Store) => {
  const now = '2026-11-21T10:00:00.000Z';
  s.run(s.q.insertInto('accounts').values({ name: 'a', is_default: 1, webhook_secret: 's', invoice_prefix: 'INV-', time_zone: 'UTC', next_invoice_number: 1, created_at: now, updated_at: now }));
  for (const name of ['Ann', 'Bob', 'Cas']) {
    s.run(s.q.insertInto('customers').values({ account_id: 1, first_name: name, last_name: 'X', email: `${name}@x.nl`, payment_method: 'directdebit', language: 'nl', archived: 0, created_at: now, updated_at: now }));
  }
};

describe('store.prepared', () => {
  it('binds each argument where its param stands, constants stay constant, and rows are plain objects', () => {
    store = openStore(tempDbPath());
    seed(store);
    const byName = store.prepared<{ id: number; first_name: string }, [string, number]>('test.by-name', (p) =>
      store.q.selectFrom('customers').select(['id', 'first_name']).where('first_name', '=', p(0)).where('account_id', '=', p(1)).where('archived', '=', 0),
    );
    expect(byName.get('Bob', 1)).toEqual({ id: 2, first_name: 'Bob' });
    expect(byName.get('Bob', 2)).toBeUndefined();
    expect(byName.get('Cas', 1)).toEqual({ id: 3, first_name: 'Cas' });
    const all = store.prepared<{ id: number }, [number]>('test.all', (p) => store.q.selectFrom('customers').select('id').where('id', '>', p(0)).orderBy('id'));
    expect(all.all(1)).toEqual([{ id: 2 }, { id: 3 }]);
    expect(Object.getPrototypeOf(all.all(0)[0])).toBe(Object.prototype);
  });

  it('compiles once per key: a second build function under the same key is not used', () => {
    store = openStore(tempDbPath());
    seed(store);
    let builds = 0;
    const build = (p: (i: number) => never) => {
      builds++;
      return store.q.selectFrom('customers').select('first_name').where('id', '=', p(0));
    };
    store.prepared('test.once', build).get(1);
    store.prepared('test.once', build).get(2);
    expect(builds).toBe(1);
  });

  it('runs writes and counts them in the data version', () => {
    store = openStore(tempDbPath());
    seed(store);
    const before = store.dataVersion();
    const archive = store.prepared<never, [number]>('test.archive', (p) => store.q.updateTable('customers').set({ archived: 1 }).where('id', '=', p(0)));
    expect(archive.run(2).changes).toBe(1);
    expect(store.dataVersion()).not.toBe(before);
    expect(store.get(store.q.selectFrom('customers').select('archived').where('id', '=', 2))).toEqual({ archived: 1 });
  });
});

describe('store.prepared get: one row read as JSON text', () => {
  it('gives back integers, reals, text and null exactly as stored, and a blob column as bytes', () => {
    store = openStore(tempDbPath());
    const text = 'quote " backslash \\ control \u0001 line\u2028sep é 😀 <tag>';
    const values = { i: 9007199254740991, n: -42, r: 0.1 + 0.2, tiny: 5e-324, big: 1e300, t: text, empty: '', nothing: null };
    store.run(
      store.q.insertInto('accounts').values({ name: 'a', is_default: 1, webhook_secret: text, invoice_prefix: '', time_zone: 'UTC', next_invoice_number: values.i, created_at: 'x', updated_at: 'x' }),
    );
    const row = store
      .prepared<Record<string, unknown>, [string]>('test.values', (p) =>
        store.q
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
      )
      .get('a');
    expect(row).toEqual(values);
    expect(Object.is(row!.r, values.r)).toBe(true);
  });

  it('reads a row whose column names repeat (a join) as the plain query would', () => {
    store = openStore(tempDbPath());
    seed(store);
    const joined = store.prepared<{ id: number }, [number]>('test.join', (p) =>
      store.q.selectFrom('customers').innerJoin('accounts', 'accounts.id', 'customers.account_id').select(['accounts.id', 'customers.id']).where('customers.id', '=', p(0)),
    );
    expect(joined.get(3)).toEqual({ id: 3 });
    expect(joined.all(3)).toEqual([{ id: 3 }]);
  });

  it('keeps text made by a JSON function as text', () => {
    store = openStore(tempDbPath());
    seed(store);
    const made = store.prepared<{ doc: string }, [number]>('test.json-text', (p) =>
      store.q.selectFrom('customers').select(sql<string>`json_object('name', first_name)`.as('doc')).where('id', '=', p(0)),
    );
    expect(made.get(1)).toEqual({ doc: '{"name":"Ann"}' });
  });

  it('binds only the arguments the query uses', () => {
    store = openStore(tempDbPath());
    seed(store);
    const byId = store.prepared<{ first_name: string }, [number, string]>('test.extra-argument', (p) => store.q.selectFrom('customers').select('first_name').where('id', '=', p(0)));
    expect(byId.get(2, 'not used')).toEqual({ first_name: 'Bob' });
  });
});
