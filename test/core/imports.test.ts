// The import's batches on both engines: rows checked by their create's rules, the progress in the
// same transaction as the rows, a refused row taking back what it wrote (savepoint), and the search
// index kept for customers imported in bulk.
import { describe, expect, it } from 'vitest';
import { findImport, importBatch, type ImportProgress, type RowOutcome } from '../../src/lib/core/imports.js';
import { testCore } from '../helpers/store.js';

const progress = (rows: number, done = false): ImportProgress => ({
  offset: rows * 10,
  line: rows,
  imported: rows,
  rejected: 0,
  rejectsBytes: 0,
  done,
});

async function setup() {
  const core = await testCore();
  const ctx = { store: core.store, clock: core.clock, account: await core.account() };
  const get = async (path: string) =>
    (await core.transport.request({ method: 'GET', path })).body as {
      data: { id: string; attributes: Record<string, unknown> }[];
      meta: { total: number };
    };
  return { core, ctx, get };
}

describe('importBatch', () => {
  it('customers: the good rows written, the bad ones refused with their problems, the progress recorded with them; search finds the new rows', async () => {
    const { ctx, get } = await setup();
    const seen: RowOutcome[][] = [];
    const outcomes = await importBatch(
      ctx,
      'customers',
      'hash-1',
      [
        { line: 1, attributes: { first_name: 'Anna', last_name: 'Zonneveld', email: 'anna@example.com' } },
        { line: 2, attributes: { first_name: 'Bob', email: 'nope' } },
        {
          line: 3,
          attributes: {
            first_name: 'Cees',
            last_name: 'Bakker',
            email: 'cees@example.com',
            iban: 'NL91 ABNA 0417 1643 00',
          },
        },
      ],
      (o) => (seen.push(o), progress(3)),
    );
    expect(outcomes[0]).toBeUndefined();
    expect(outcomes[1]).toEqual([
      { attribute: 'last_name', detail: 'is required' },
      { attribute: 'email', detail: 'must be a valid email address' },
    ]);
    expect(outcomes[2]).toBeUndefined();
    expect(seen.at(-1)).toEqual(outcomes);
    expect(await findImport(ctx, 'customers', 'hash-1')).toEqual(progress(3));
    expect(await findImport(ctx, 'customers', 'hash-2')).toBeUndefined();
    const list = await get('/customers');
    expect(list.data.map((c) => c.attributes.email)).toEqual(['anna@example.com', 'cees@example.com']);
    expect(list.data[1].attributes.iban).toBe('NL91ABNA0417164300');
    expect((await get('/customers?filter[search]=zonnev')).data.map((c) => c.attributes.first_name)).toEqual(['Anna']);
  });

  it('a batch whose transaction fails writes neither its rows nor its progress', async () => {
    const { ctx, get } = await setup();
    // SQLite throws at once, PostgreSQL rejects: either way, the same failure.
    const batch = async () =>
      importBatch(
        ctx,
        'customers',
        'hash-x',
        [{ line: 1, attributes: { first_name: 'A', last_name: 'B', email: 'a@example.com' } }],
        () => {
          throw new Error('killed between the rows and the progress');
        },
      );
    await expect(batch()).rejects.toThrow('killed between');
    expect((await get('/customers')).meta.total).toBe(0);
    expect(await findImport(ctx, 'customers', 'hash-x')).toBeUndefined();
  });

  it('invoices: a row refused after its invoice was written (a line past the total bound) leaves nothing; the next row is made', async () => {
    const { core, ctx, get } = await setup();
    const post = (path: string, type: string, attributes: Record<string, unknown>) =>
      core.transport.request({ method: 'POST', path, body: { data: { type, attributes } } });
    await post('/customers', 'customer', { first_name: 'A', last_name: 'B', email: 'a@example.com' });
    const { createPlan } = await import('../../src/lib/core/plan-writes.js');
    expect((await createPlan(ctx, { name: 'Box', amount: '10.00', frequency: 'monthly' })).ok).toBe(true);
    expect((await post('/subscriptions', 'subscription', { customer_id: 1, subscription_plan_id: 1 })).status).toBe(
      201,
    );
    const outcomes = await importBatch(
      ctx,
      'invoices',
      'hash-i',
      [
        {
          line: 1,
          attributes: {
            subscription_id: 1,
            lines: [
              { description: 'Ok', amount: '1.00', tax_rate: '21' },
              { description: 'Huge', amount: '1000000.00', tax_rate: '21', quantity: 1000000 },
            ],
          },
        },
        {
          line: 2,
          attributes: { subscription_id: 1, lines: [{ description: 'Box', amount: '12.50', tax_rate: '9' }] },
        },
        { line: 3, attributes: { subscription_id: 7 } },
      ],
      () => progress(3, true),
    );
    expect(outcomes[0]?.[0].attribute).toMatch(/^lines\/1\//);
    expect(outcomes[1]).toBeUndefined();
    expect(outcomes[2]).toEqual([{ attribute: 'subscription_id', detail: 'no subscription with id 7' }]);
    const invoices = await get('/invoices');
    expect(invoices.data).toHaveLength(1);
    expect(invoices.data[0].attributes).toMatchObject({ amount_excl: '12.50', status: 'draft' });
    expect((await get(`/invoices/${invoices.data[0].id}/lines`)).data).toHaveLength(1);
    expect(await findImport(ctx, 'invoices', 'hash-i')).toEqual(progress(3, true));
  });
});
