// GET /transactions (an extension): an account's transactions in one list, newest due date first,
// found by status (several), the last reason code, a due-date range and the customer; each with
// its customer and last reason in meta. Failed collections in one place (issue 23, point 3).
import { describe, expect, it } from 'vitest';
import { setClock } from '../../src/lib/core/store-clock.js';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import { all, run } from '../../src/lib/store/unit.js';
import { testCore, type TestCore } from '../helpers/store.js';
import { context, createCustomer, expectError, makePlan, send } from './support.js';

async function subscribe(core: TestCore, customer: string, plan: number): Promise<string> {
  const answer = await send(core, 'POST', '/subscriptions', {
    body: {
      data: {
        type: 'subscription',
        attributes: { customer_id: customer, subscription_plan_id: plan, status: 'active', start_date: '2026-12-01' },
      },
    },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data.id as string;
}

const firstOf = async (core: TestCore, subscription: string): Promise<string> =>
  (await send(core, 'GET', `/subscriptions/${subscription}/transactions`, { query: 'sort=due_date' })).body.data[0].id;

/**
 * Three customers on a monthly plan (no retries), collected on Dec 1, fulfilled Dec 4: Anna's first
 * collection failed (AM04), Bert's was charged back (MD06) and, with no retries, ended failed with
 * that code; Cees's went through. The clock is then Dec 10; each has the January cycle scheduled.
 */
async function arrange() {
  const core = await testCore();
  const plan = await makePlan(core, { name: 'Gold', amount: '12.50', storno_retries: 0 });
  const anna = await createCustomer(core, { first_name: 'Anna', last_name: 'de Vries', email: 'anna@example.com' });
  const bert = await createCustomer(core, { first_name: 'Bert', last_name: 'Bakker', email: 'bert@example.com' });
  const cees = await createCustomer(core, { first_name: 'Cees', last_name: 'Jansen', email: 'cees@example.com' });
  const subs = { anna: await subscribe(core, anna, plan), bert: await subscribe(core, bert, plan) };
  const ceesSub = await subscribe(core, cees, plan);
  const failed = await firstOf(core, subs.anna);
  const chargedBack = await firstOf(core, subs.bert);
  expect((await simulateOutcome(await context(core), failed, 'failed', 'AM04')).ok).toBe(true);
  await setClock(core, '2026-12-06T00:00:00Z');
  expect((await simulateOutcome(await context(core), chargedBack, 'charged_back', 'MD06')).ok).toBe(true);
  await setClock(core, '2026-12-10T00:00:00Z');
  return { core, anna, bert, cees, ceesSub, failed, chargedBack };
}

const listing = async (core: TestCore, query?: string) => {
  const answer = await send(core, 'GET', '/transactions', { query });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};
const rows = (body: any) =>
  body.data.map((t: any) => [t.meta.customer.name, t.attributes.status, t.attributes.due_date.slice(0, 10)]);

describe('GET /transactions', () => {
  it('lists the whole account newest due date first, each with its customer and last reason in meta', async () => {
    const { core, anna, failed } = await arrange();
    const body = await listing(core);
    expect(body.meta.total).toBe(6);
    expect(rows(body)).toEqual([
      // Same due date: the one made last first (the January cycles, made on Dec 1, Bert's after Anna's).
      ['Cees Jansen', 'scheduled', '2027-01-01'],
      ['Bert Bakker', 'scheduled', '2027-01-01'],
      ['Anna de Vries', 'scheduled', '2027-01-01'],
      ['Cees Jansen', 'fulfilled', '2026-12-01'],
      ['Bert Bakker', 'failed', '2026-12-01'],
      ['Anna de Vries', 'failed', '2026-12-01'],
    ]);
    const annas = body.data.find((t: any) => t.id === failed);
    expect(annas.meta).toEqual({
      customer: { id: anna, name: 'Anna de Vries' },
      reason_code: 'AM04',
      reason: 'Insufficient funds',
    });
    // The hosted service's attributes, unchanged; no relationships (it shows none).
    expect(Object.keys(annas.attributes)).toEqual([
      'status',
      'scheduled_on',
      'due_date',
      'amount',
      'canceled_on',
      'webhook_url',
      'payment_method',
      'description',
      'history',
    ]);
    expect(annas.relationships).toBeUndefined();
    expect(body.data[0].meta).toMatchObject({ reason_code: null, reason: null });
  });

  it('finds by several statuses, a reason code (any case), a due-date range and a customer, together', async () => {
    const { core, anna, bert } = await arrange();
    const failedOnes = await listing(core, 'filter[status]=charged_back,failed');
    expect(rows(failedOnes)).toEqual([
      ['Bert Bakker', 'failed', '2026-12-01'],
      ['Anna de Vries', 'failed', '2026-12-01'],
    ]);
    expect(failedOnes.data.map((t: any) => t.meta.reason_code)).toEqual(['MD06', 'AM04']);
    expect(rows(await listing(core, 'filter[status]=fulfilled,failed&filter[due_to]=2026-12-31'))).toEqual([
      ['Cees Jansen', 'fulfilled', '2026-12-01'],
      ['Bert Bakker', 'failed', '2026-12-01'],
      ['Anna de Vries', 'failed', '2026-12-01'],
    ]);
    expect(rows(await listing(core, 'filter[reason_code]=md06'))).toEqual([['Bert Bakker', 'failed', '2026-12-01']]);
    // Days of the account's time zone, both included.
    expect((await listing(core, 'filter[due_from]=2027-01-01')).meta.total).toBe(3);
    expect((await listing(core, 'filter[due_to]=2026-12-01')).meta.total).toBe(3);
    expect((await listing(core, 'filter[due_from]=2026-12-02&filter[due_to]=2026-12-31')).meta.total).toBe(0);
    expect(rows(await listing(core, `filter[customer_id]=${anna}`))).toEqual([
      ['Anna de Vries', 'scheduled', '2027-01-01'],
      ['Anna de Vries', 'failed', '2026-12-01'],
    ]);
    expect(
      rows(
        await listing(
          core,
          `filter[status]=failed,charged_back&filter[due_from]=2026-12-01&filter[due_to]=2026-12-01&filter[customer_id]=${bert}`,
        ),
      ),
    ).toEqual([['Bert Bakker', 'failed', '2026-12-01']]);
    // Sorted the other way, and paged by number with the filters kept in the links.
    const page = await listing(core, 'filter[status]=scheduled,fulfilled&sort=due_date&page[size]=2&page[number]=2');
    expect(rows(page)).toEqual([
      ['Bert Bakker', 'scheduled', '2027-01-01'],
      ['Cees Jansen', 'scheduled', '2027-01-01'],
    ]);
    expect(page.meta.total).toBe(4);
    expect(page.links).toMatchObject({
      prev: 'http://127.0.0.1:8080/transactions?filter%5Bstatus%5D=scheduled,fulfilled&sort=due_date&page%5Bnumber%5D=1&page%5Bsize%5D=2',
      next: null,
    });
  });

  it('refuses what it cannot find by, and page[after] (the list is not in id order), as 400 naming the parameter', async () => {
    const { core } = await arrange();
    for (const [query, parameter] of [
      ['filter[status]=failed,lost', 'filter[status]'],
      ['filter[reason_code]=AM0', 'filter[reason_code]'],
      ['filter[due_from]=2026-02-30', 'filter[due_from]'],
      ['filter[customer_id]=0', 'filter[customer_id]'],
      ['filter[outcome]=failed', 'filter[outcome]'],
      ['sort=amount', 'sort'],
      ['page[after]=0', 'page[after]'],
    ]) {
      const answer = await send(core, 'GET', '/transactions', { query });
      expectError(answer, 400, 'Invalid Parameter');
      expect(answer.body.errors[0].source, query).toEqual({ parameter });
    }
  });

  it("never shows another account's transactions", async () => {
    const { core } = await arrange();
    const other = await core.store.read(() =>
      all((q) => q.selectFrom('transactions').select(['account_id']).groupBy('account_id')),
    );
    expect(other).toHaveLength(1);
    // Moving every row to an account of its own leaves this account's list empty.
    const { run } = await import('../../src/lib/store/unit.js');
    await core.store.write(() =>
      run((q) =>
        q.insertInto('accounts').values({
          id: 999,
          name: 'other',
          invoice_prefix: 'INV-',
          time_zone: 'Europe/Amsterdam',
          webhook_secret: 'whsec_x',
          is_default: 0,
          next_invoice_number: 1,
          created_at: '2026-11-21T10:00:00.000Z',
          updated_at: '2026-11-21T10:00:00.000Z',
        }),
      ),
    );
    await core.store.write(() => run((q) => q.updateTable('transactions').set({ account_id: 999 })));
    expect((await listing(core, 'filter[status]=failed')).meta.total).toBe(0);
    expect((await listing(core)).data).toEqual([]);
  });

  it('keeps the last reason code in the store beside the history, for filter[reason_code]', async () => {
    const { core, failed, chargedBack } = await arrange();
    const stored = await core.store.read(() =>
      all((q) => q.selectFrom('transactions').select(['id', 'reason_code']).where('reason_code', 'is not', null)),
    );
    expect(Object.fromEntries(stored.map((t) => [t.id, t.reason_code]))).toEqual({
      [failed]: 'AM04',
      [chargedBack]: 'MD06',
    });
  });
});

describe('GET /transactions?filter[id_prefix]', () => {
  /** Three transactions whose ids share their starts as chosen (the ids are made by the store, then renamed). */
  async function crafted(ids: string[]): Promise<TestCore> {
    const core = await testCore();
    const plan = await makePlan(core, { name: 'Gold', amount: '12.50' });
    for (const [n, id] of ids.entries()) {
      const sub = await subscribe(
        core,
        await createCustomer(core, { first_name: `F${n}`, last_name: 'L', email: `c${n}@example.com` }),
        plan,
      );
      const old = await firstOf(core, sub);
      await core.store.write(function* () {
        yield* run((q) => q.updateTable('events').set({ transaction_id: null }).where('transaction_id', '=', old));
        yield* run((q) => q.updateTable('transactions').set({ id }).where('id', '=', old));
      });
    }
    return core;
  }
  const found = async (core: TestCore, prefix: string) =>
    ((await listing(core, `filter[id_prefix]=${prefix}`)).data as { id: string }[]).map((t) => t.id).sort();

  it('finds the transactions whose id starts so (8 to 32 hex digits, hyphens optional, any case), by a range of the id', async () => {
    const ids = [
      'abcdef01-0000-4000-8000-000000000001',
      'abcdef01-f000-4000-8000-000000000002',
      'abcdef02-0000-4000-8000-000000000003',
    ];
    const core = await crafted(ids);
    expect(await found(core, 'abcdef01')).toEqual([ids[0], ids[1]]);
    expect(await found(core, 'ABCDEF01F')).toEqual([ids[1]]);
    expect(await found(core, 'abcdef01-f')).toEqual([ids[1]]);
    expect(await found(core, 'abcdef010000')).toEqual([ids[0]]);
    expect(await found(core, 'abcdef03')).toEqual([]);
    expect(await found(core, ids[2].replace(/-/g, ''))).toEqual([ids[2]]);
  });

  it('refuses a start that is not 8 to 32 hex digits (400 naming the parameter)', async () => {
    const core = await testCore();
    for (const bad of ['abcdef0', 'abcdefgh', 'abcdef01-0000-4000-8000-0000000000011'])
      expectError(
        await send(core, 'GET', '/transactions', { query: `filter[id_prefix]=${bad}` }),
        400,
        'Invalid Parameter',
      );
  });
});

describe('GET /events?sort=-id', () => {
  it('lists the newest first; page[after] keeps ascending id and is refused beside another order', async () => {
    const { core } = await arrange();
    const ids = (body: any) => (body.data as { id: string }[]).map((e) => Number(e.id));
    const newest = ids((await send(core, 'GET', '/events', { query: 'sort=-id&page[size]=5' })).body);
    const oldest = ids((await send(core, 'GET', '/events', { query: 'page[size]=5' })).body);
    expect(newest).toEqual([...newest].sort((a, b) => b - a));
    expect(oldest).toEqual([1, 2, 3, 4, 5]);
    expect(newest[0]).toBeGreaterThan(oldest[4]);
    expectError(await send(core, 'GET', '/events', { query: 'sort=-id&page[after]=3' }), 400, 'Invalid Parameter');
  });
});
