// Subscription plans: made by an operator (createPlan), read-only over the API.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import { createPlan } from '../../src/lib/core/plan-writes.js';
import type { Result } from '../../src/lib/core/result.js';
import { all } from '../../src/lib/store/unit.js';
import { testCore, type TestCore } from '../helpers/store.js';
import {
  BASE,
  context,
  createCustomer,
  expectError,
  insertSubscription,
  link,
  makePlan,
  minimalCustomer,
  send,
} from './support.js';

const problemsOf = (result: Result<unknown>): string[] => {
  if (result.ok) throw new Error('expected createPlan to refuse');
  if (result.failure.kind !== 'invalid_attribute')
    throw new Error(`expected invalid_attribute, got ${result.failure.kind}`);
  return result.failure.problems.map((p) => p.attribute).sort();
};

const planCount = async (core: TestCore) =>
  (await core.store.read(() => all((q) => q.selectFrom('subscription_plans').select('id')))).length;

describe('createPlan', () => {
  it('when only name and amount are given, fills in the defaults', async () => {
    const core = await testCore();
    const id = await makePlan(core, { name: ' Gold ', amount: '12.5' });
    const answer = await send(core, 'GET', `/subscription-plans/${id}`);
    expect(answer.status).toBe(200);
    const self = `${BASE}/subscription-plans/${id}`;
    expect(answer.body).toEqual({
      links: { self },
      data: {
        type: 'subscription-plan',
        id: String(id),
        links: { self },
        attributes: {
          name: 'Gold',
          description: null,
          // Today in the account's zone, at 00:00 (TEST_NOW is 2026-11-21T10:00Z).
          start_date: '2026-11-21T00:00:00+01:00',
          status: 'active',
          mandate_authentication_method: 'email',
          send_invoice: true,
          storno_retries: 2,
          terms: null,
          archived: false,
          amount: '12.50',
          frequency: 'monthly',
          created_at: '2026-11-21T11:00:00+01:00',
          updated_at: '2026-11-21T11:00:00+01:00',
        },
        relationships: { subscriptions: { links: { related: `${self}/subscriptions` }, data: [] } },
      },
    });
  });

  it('when every attribute is given, shows each as given', async () => {
    const core = await testCore();
    const id = await makePlan(core, {
      name: 'Yearly',
      amount: 120,
      frequency: 'yearly',
      description: 'All clubs',
      start_date: '2026-07-01',
      status: 'inactive',
      mandate_authentication_method: 'online_payment',
      send_invoice: 'false',
      storno_retries: '0',
      terms: 'Cancel any time',
    });
    const { body } = await send(core, 'GET', `/subscription-plans/${id}`);
    expect(body.data.attributes).toMatchObject({
      name: 'Yearly',
      amount: '120.00',
      frequency: 'yearly',
      description: 'All clubs',
      start_date: '2026-07-01T00:00:00+02:00', // summer time
      status: 'inactive',
      mandate_authentication_method: 'online_payment',
      send_invoice: false,
      storno_retries: 0,
      terms: 'Cancel any time',
    });
  });

  it.each([
    ['12.50', '12.50'],
    [12.5, '12.50'],
    ['0.01', '0.01'],
    [' 7 ', '7.00'],
    ['1000', '1000.00'],
    [99.99, '99.99'],
  ])('when the amount is %j, shows it as the decimal string %s', async (amount, shown) => {
    const core = await testCore();
    const id = await makePlan(core, { name: 'P', amount });
    expect((await send(core, 'GET', `/subscription-plans/${id}`)).body.data.attributes.amount).toBe(shown);
  });

  it('when start_date is a datetime with an offset, shows that instant in the account zone', async () => {
    const core = await testCore();
    const id = await makePlan(core, { name: 'P', amount: '1', start_date: '2026-12-01T09:30:00-05:00' });
    expect((await send(core, 'GET', `/subscription-plans/${id}`)).body.data.attributes.start_date).toBe(
      '2026-12-01T15:30:00+01:00',
    );
  });

  it('when the account is in Asia/Kolkata, dates carry +05:30 and "today" is that zone\'s today', async () => {
    const first = await testCore({ clock: { now: () => new Date('2026-11-21T20:00:00Z') } });
    const made = await createAccount(first.store, first.clock, 'mumbai', { time_zone: 'Asia/Kolkata' });
    expect(made.ok).toBe(true);
    const core = await testCore({ dbPath: first.dbPath, account: 'mumbai', clock: first.clock });
    const dated = await makePlan(core, { name: 'Dated', amount: '5', start_date: '2026-12-01' });
    const today = await makePlan(core, { name: 'Today', amount: '5' });

    expect((await send(core, 'GET', `/subscription-plans/${dated}`)).body.data.attributes.start_date).toBe(
      '2026-12-01T00:00:00+05:30',
    );
    const attributes = (await send(core, 'GET', `/subscription-plans/${today}`)).body.data.attributes;
    // 20:00 UTC on the 21st is 01:30 on the 22nd in Kolkata.
    expect(attributes.start_date).toBe('2026-11-22T00:00:00+05:30');
    expect(attributes.created_at).toBe('2026-11-22T01:30:00+05:30');
  });

  it.each([
    ['amount with three decimals', { amount: '12.505' }, ['amount']],
    ['a negative amount', { amount: '-5' }, ['amount']],
    ['a zero amount', { amount: '0' }, ['amount']],
    ['an amount that is not a number', { amount: 'abc' }, ['amount']],
    ['an amount with a comma', { amount: '12,50' }, ['amount']],
    ['an amount that is a boolean', { amount: true }, ['amount']],
    ['a frequency not in the list', { frequency: 'daily' }, ['frequency']],
    ['a status not in the list', { status: 'paused' }, ['status']],
    ['a mandate method not in the list', { mandate_authentication_method: 'fax' }, ['mandate_authentication_method']],
    ['a start_date that is not a real date', { start_date: '2026-02-30' }, ['start_date']],
    ['a start_date that is words', { start_date: 'tomorrow' }, ['start_date']],
    ['a datetime start_date without offset', { start_date: '2026-12-01T10:00:00' }, ['start_date']],
    ['a start_date that is a number', { start_date: 20261201 }, ['start_date']],
    ['storno_retries above 10', { storno_retries: 11 }, ['storno_retries']],
    ['an unknown attribute', { colour: 'gold' }, ['colour']],
    ['archived (read-only)', { archived: true }, ['archived']],
  ])('when given %s, refuses it and makes no plan', async (_situation, attributes, expected) => {
    const core = await testCore();
    expect(problemsOf(await createPlan(await context(core), { name: 'P', amount: '10', ...attributes }))).toEqual(
      expected,
    );
    expect(await planCount(core)).toBe(0);
  });

  it('when name and amount are missing, says both are required', async () => {
    const core = await testCore();
    const result = await createPlan(await context(core), {});
    expect(problemsOf(result)).toEqual(['amount', 'name']);
    if (!result.ok && result.failure.kind === 'invalid_attribute') {
      for (const p of result.failure.problems) expect(p.detail).toMatch(/required/);
    }
  });

  it('when amount, frequency, status and start_date are all bad, reports all four at once', async () => {
    const core = await testCore();
    const result = await createPlan(await context(core), {
      name: 'P',
      amount: '1.234',
      frequency: 'daily',
      status: 'paused',
      start_date: '2026-02-30',
    });
    expect(problemsOf(result)).toEqual(['amount', 'frequency', 'start_date', 'status']);
    expect(await planCount(core)).toBe(0);
  });
});

describe('GET /subscription-plans', () => {
  it('when there are plans, lists them by id with meta.total and links', async () => {
    const core = await testCore();
    const ids = [
      await makePlan(core, { name: 'A', amount: '1' }),
      await makePlan(core, { name: 'B', amount: '2', frequency: 'weekly' }),
      await makePlan(core, { name: 'C', amount: '3' }),
    ];
    const answer = await send(core, 'GET', '/subscription-plans', { query: 'page[size]=2' });
    expect(answer.status).toBe(200);
    expect(answer.body.meta).toEqual({ total: 3 });
    expect(answer.body.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 2).map(String));
    expect(answer.body.data[1].attributes).toMatchObject({ name: 'B', amount: '2.00', frequency: 'weekly' });
    expect(link(answer.body.links.next)).toEqual({
      at: `${BASE}/subscription-plans`,
      params: { 'page[number]': '2', 'page[size]': '2' },
    });
    expect(answer.body.links.prev).toBeNull();
  });

  it('when include=subscriptions, embeds the subscriptions of the listed plans', async () => {
    const core = await testCore();
    const customer = await createCustomer(core, minimalCustomer());
    const gold = await makePlan(core, { name: 'Gold', amount: '10' });
    const silver = await makePlan(core, { name: 'Silver', amount: '5' });
    const sub = await insertSubscription(core, customer, silver);
    const answer = await send(core, 'GET', '/subscription-plans', { query: 'include=subscriptions' });
    expect(answer.status).toBe(200);
    expect(
      answer.body.data.find((p: { id: string }) => p.id === String(gold)).relationships.subscriptions.data,
    ).toEqual([]);
    expect(
      answer.body.data.find((p: { id: string }) => p.id === String(silver)).relationships.subscriptions.data,
    ).toEqual([{ type: 'subscription', id: String(sub) }]);
    expect(answer.body.included.map((s: { id: string }) => s.id)).toEqual([String(sub)]);
  });

  it('when fields[subscription-plan] is given, returns only those attributes', async () => {
    const core = await testCore();
    await makePlan(core, { name: 'Gold', amount: '10', frequency: 'quarterly' });
    const answer = await send(core, 'GET', '/subscription-plans', {
      query: 'fields[subscription-plan]=amount,frequency',
    });
    expect(answer.body.data[0].attributes).toEqual({ amount: '10.00', frequency: 'quarterly' });
  });

  it.each([
    ['include=customers', 'include'],
    ['fields[subscription-plan]=price', 'fields[subscription-plan]'],
    ['page[size]=0', 'page[size]'],
  ])('when the query is %s, answers 400 Invalid Parameter', async (query, parameter) => {
    const core = await testCore();
    expectError(await send(core, 'GET', '/subscription-plans', { query }), 400, 'Invalid Parameter', { parameter });
  });

  it('when there are no plans, answers an empty collection', async () => {
    const core = await testCore();
    const answer = await send(core, 'GET', '/subscription-plans');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ meta: { total: 0 }, data: [], links: { prev: null, next: null } });
  });
});

describe('GET /subscription-plans/{id}', () => {
  it('when the plan does not exist, answers 404', async () => {
    const core = await testCore();
    await makePlan(core);
    expectError(await send(core, 'GET', '/subscription-plans/2'), 404, 'Not Found');
    expectError(await send(core, 'GET', '/subscription-plans/gold'), 404, 'Not Found');
  });

  it.each(['POST', 'PATCH', 'DELETE'])(
    'when the method is %s, answers 405 and the plan stays as it was',
    async (method) => {
      const core = await testCore();
      const id = await makePlan(core);
      const before = await send(core, 'GET', `/subscription-plans/${id}`);
      const path = method === 'POST' ? '/subscription-plans' : `/subscription-plans/${id}`;
      const answer = await send(core, method, path, {
        body: { data: { type: 'subscription-plan', id: String(id), attributes: { name: 'Hacked', amount: '1' } } },
      });
      expectError(answer, 405, 'Method Not Allowed');
      expect(answer.headers.allow).toBe('GET, HEAD');
      expect(await send(core, 'GET', `/subscription-plans/${id}`)).toEqual(before);
      expect(await planCount(core)).toBe(1);
    },
  );
});

describe('GET /subscription-plans/{id}/subscriptions', () => {
  it('when the plan has subscriptions, lists exactly those', async () => {
    const core = await testCore();
    const customer = await createCustomer(core);
    const gold = await makePlan(core, { name: 'Gold', amount: '10' });
    const silver = await makePlan(core, { name: 'Silver', amount: '5' });
    const onGold = await insertSubscription(core, customer, gold);
    await insertSubscription(core, customer, silver);
    const answer = await send(core, 'GET', `/subscription-plans/${gold}/subscriptions`);
    expect(answer.status).toBe(200);
    expect(answer.body.meta.total).toBe(1);
    expect(answer.body.data.map((s: { id: string }) => s.id)).toEqual([String(onGold)]);
    expect(answer.body.data[0].relationships['subscription-plan'].data).toEqual({
      type: 'subscription-plan',
      id: String(gold),
    });
    expect(link(answer.body.links.self)?.at).toBe(`${BASE}/subscription-plans/${gold}/subscriptions`);
  });

  it('when the plan does not exist, answers 404', async () => {
    const core = await testCore();
    expectError(await send(core, 'GET', '/subscription-plans/3/subscriptions'), 404, 'Not Found');
  });
});
