// Transactions: made by hand or by the plan, collected on their due date, fulfilled 3 days later,
// returned and retried as the plan allows, canceled only before collection.
import { describe, expect, it } from 'vitest';
import { setClock } from '../../src/lib/core/store-clock.js';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import { all } from '../../src/lib/store/unit.js';
import { testCore, type TestCore } from '../helpers/store.js';
import {
  context,
  createCustomer,
  createSubscription,
  expectError,
  expectInvalidAttributes,
  makePlan,
  send,
} from './support.js';

const post = (core: TestCore, attributes: Record<string, unknown>) =>
  send(core, 'POST', '/transactions', { body: { data: { type: 'transaction', attributes } } });

/** An active subscription on a monthly plan of 12.50 with the given retries; TEST_NOW is 2026-11-21 11:00 in Amsterdam. */
async function arrange(options: { retries?: number; status?: string; start?: string; name?: string } = {}) {
  const core = await testCore();
  const customer = await createCustomer(core);
  const plan = await makePlan(core, {
    name: options.name ?? 'Gold',
    amount: '12.50',
    storno_retries: options.retries ?? 2,
  });
  const subscription = await createSubscription(core, {
    customer_id: customer,
    subscription_plan_id: plan,
    status: options.status ?? 'active',
    start_date: options.start ?? '2026-12-01',
  });
  return { core, subscription };
}

const get = async (core: TestCore, id: string) => (await send(core, 'GET', `/transactions/${id}`)).body.data.attributes;
const historyOf = async (core: TestCore, id: string) =>
  ((await get(core, id)).history as any[]).map((h) => [
    h.status,
    h.recorded_on,
    h.attempt,
    h.reason_code,
    h.new_due_date,
  ]);
const list = async (core: TestCore, subscription: string, query = 'page[size]=100') =>
  (await send(core, 'GET', `/subscriptions/${subscription}/transactions`, { query })).body;

describe('POST /transactions', () => {
  it('answers 201 queued, with an empty history, the plan’s name as description and the customer’s payment method', async () => {
    const { core, subscription } = await arrange();
    const answer = await post(core, { subscription_id: subscription, amount: 34.5, due_date: '2026-12-15' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(answer.headers.location).toBe(`http://127.0.0.1:8080/transactions/${answer.body.data.id}`);
    expect(answer.body.data.attributes).toEqual({
      status: 'queued',
      scheduled_on: null,
      due_date: '2026-12-15T00:00:00+01:00',
      amount: 34.5,
      canceled_on: null,
      webhook_url: null,
      payment_method: 'directdebit',
      description: 'Gold',
      history: [],
    });
    expect(answer.body.data.relationships).toBeUndefined();
  });

  it('cuts the description to 140 characters for direct debit', async () => {
    const { core, subscription } = await arrange();
    const answer = await post(core, { subscription_id: subscription, amount: '1', description: 'x'.repeat(200) });
    expect(answer.body.data.attributes.description).toBe('x'.repeat(140));
  });

  it('defaults the due date to the later of today and the start date, and refuses one before either', async () => {
    const { core, subscription } = await arrange({ start: '2026-12-01' });
    expect((await post(core, { subscription_id: subscription, amount: '1' })).body.data.attributes.due_date).toBe(
      '2026-12-01T00:00:00+01:00',
    );
    expectInvalidAttributes(
      await post(core, { subscription_id: subscription, amount: '1', due_date: '2026-11-25' }),
      ['due_date'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await post(core, { subscription_id: subscription, amount: '1', due_date: '2026-11-20' }),
      ['due_date'],
      expect.anything(),
    );
  });

  it('refuses bad amounts, unknown subscriptions and read-only attributes, each named; a subscription that is not active is Invalid State', async () => {
    const { core, subscription } = await arrange();
    const before = await core.store.read(() => all((q) => q.selectFrom('transactions').selectAll()));
    expectInvalidAttributes(
      await post(core, { subscription_id: subscription, amount: '12.345' }),
      ['amount'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await post(core, { subscription_id: subscription, amount: 0 }),
      ['amount'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await post(core, { subscription_id: 999, amount: 1 }),
      ['subscription_id'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await post(core, { subscription_id: subscription, amount: 1, status: 'fulfilled' }),
      ['status'],
      expect.anything(),
    );
    const unverified = await arrange({ status: 'unverified' });
    expectError(
      await post(unverified.core, { subscription_id: unverified.subscription, amount: 1 }),
      400,
      'Invalid State',
      { pointer: '/data/attributes/subscription_id' },
    );
    expect(await core.store.read(() => all((q) => q.selectFrom('transactions').selectAll()))).toEqual(before);
  });
});

describe('collection', () => {
  it('scheduled when due work runs, succeeded on the due date, fulfilled 3 days later; each change in the history and as an event', async () => {
    const { core, subscription } = await arrange();
    const id = (await post(core, { subscription_id: subscription, amount: '5', due_date: '2026-12-15' })).body.data.id;
    await setClock(core, '2026-11-21T10:00:01Z');
    expect((await get(core, id)).status).toBe('scheduled');
    await setClock(core, '2026-12-20T00:00:00Z');
    expect(await historyOf(core, id)).toEqual([
      ['scheduled', '2026-11-21T11:00:00+01:00', 1, null, null], // when it was made: the work was due then
      ['succeeded', '2026-12-15T00:00:00+01:00', 1, null, null],
      ['fulfilled', '2026-12-18T00:00:00+01:00', 1, null, null],
    ]);
    const events = await core.store.read(() =>
      all((q) => q.selectFrom('events').select(['status']).where('transaction_id', '=', id).orderBy('id')),
    );
    expect(events.map((e) => e.status)).toEqual(['queued', 'scheduled', 'succeeded', 'fulfilled']);
  });

  it('a failure set beforehand fails the collection, is retried 3 days on, and after the plan’s retries ends failed', async () => {
    const { core, subscription } = await arrange({ retries: 1 });
    const [plan] = (await list(core, subscription)).data;
    expect((await simulateOutcome(await context(core), plan.id, 'failed', 'AM04')).ok).toBe(true);
    await setClock(core, '2026-12-02T00:00:00Z');
    expect((await simulateOutcome(await context(core), plan.id, 'failed', 'AC04')).ok).toBe(true);
    await setClock(core, '2026-12-10T00:00:00Z');
    expect(await historyOf(core, plan.id)).toEqual([
      ['scheduled', '2026-11-21T11:00:00+01:00', 1, null, null],
      ['failed', '2026-12-01T00:00:00+01:00', 1, 'AM04', null],
      ['rescheduled', '2026-12-01T00:00:00+01:00', 1, null, '2026-12-04T00:00:00+01:00'],
      ['failed', '2026-12-04T00:00:00+01:00', 2, 'AC04', null],
    ]);
    const attributes = await get(core, plan.id);
    expect(attributes.status).toBe('failed');
    expect(attributes.history[1].reason).toBe('Insufficient funds');
    expect(attributes.history[3].reason).toBe('Account closed');
    // The plan went on: the next cycle was scheduled when the first was collected.
    expect((await list(core, subscription)).data.map((t: any) => [t.attributes.due_date, t.attributes.status])).toEqual(
      [
        ['2027-01-01T00:00:00+01:00', 'scheduled'],
        ['2026-12-01T00:00:00+01:00', 'failed'],
      ],
    );
  });

  it('a charge-back after collection happens at once and is retried; a charge-back set beforehand arrives instead of the funds', async () => {
    const { core, subscription } = await arrange({ retries: 2 });
    const [first] = (await list(core, subscription)).data;
    await setClock(core, '2026-12-06T00:00:00Z'); // collected Dec 1, fulfilled Dec 4
    expect((await simulateOutcome(await context(core), first.id, 'charged_back')).ok).toBe(true);
    expect(
      (await get(core, first.id)).history.slice(-2).map((h: any) => [h.status, h.reason_code, h.new_due_date]),
    ).toEqual([
      ['charged_back', 'MD06', null],
      ['rescheduled', null, '2026-12-09T00:00:00+01:00'],
    ]);
    expect((await simulateOutcome(await context(core), first.id, 'charged_back', 'MS02')).ok).toBe(true); // for the retry
    await setClock(core, '2026-12-20T00:00:00Z');
    expect(await historyOf(core, first.id)).toEqual([
      ['scheduled', '2026-11-21T11:00:00+01:00', 1, null, null],
      ['succeeded', '2026-12-01T00:00:00+01:00', 1, null, null],
      ['fulfilled', '2026-12-04T00:00:00+01:00', 1, null, null],
      ['charged_back', '2026-12-06T01:00:00+01:00', 1, 'MD06', null], // at the time it was set (00:00 UTC)
      ['rescheduled', '2026-12-06T01:00:00+01:00', 1, null, '2026-12-09T00:00:00+01:00'],
      ['succeeded', '2026-12-09T00:00:00+01:00', 2, null, null],
      ['charged_back', '2026-12-12T00:00:00+01:00', 2, 'MS02', null],
      ['rescheduled', '2026-12-12T00:00:00+01:00', 2, null, '2026-12-15T00:00:00+01:00'],
      ['succeeded', '2026-12-15T00:00:00+01:00', 3, null, null],
      ['fulfilled', '2026-12-18T00:00:00+01:00', 3, null, null],
    ]);
    expect((await get(core, first.id)).status).toBe('fulfilled'); // the third attempt went through
  });

  it('a charge-back of a collection whose subscription was cancelled since is still retried, and collected again', async () => {
    const { core, subscription } = await arrange({ retries: 2 });
    const [first] = (await list(core, subscription)).data;
    await setClock(core, '2026-12-02T00:00:00Z'); // collected Dec 1, its funds settling until Dec 4
    const cancelled = await send(core, 'PATCH', `/subscriptions/${subscription}`, {
      body: { data: { type: 'subscription', id: subscription, attributes: { status: 'cancelled' } } },
    });
    expect(cancelled.body.data.attributes.status).toBe('cancelled');
    expect((await simulateOutcome(await context(core), first.id, 'charged_back', 'AM04')).ok).toBe(true);
    expect((await get(core, first.id)).history.slice(-2).map((h: any) => [h.status, h.new_due_date])).toEqual([
      ['charged_back', null],
      ['rescheduled', '2026-12-05T00:00:00+01:00'],
    ]);
    await setClock(core, '2026-12-09T00:00:00Z');
    expect((await historyOf(core, first.id)).slice(-2)).toEqual([
      ['succeeded', '2026-12-05T00:00:00+01:00', 2, null, null],
      ['fulfilled', '2026-12-08T00:00:00+01:00', 2, null, null],
    ]);
    // The next cycle, made when the first was collected, was canceled with the subscription; no other was made.
    expect((await list(core, subscription)).data.map((t: any) => t.attributes.status)).toEqual([
      'canceled',
      'fulfilled',
    ]);
  });

  it('refuses an outcome for a canceled transaction, failed for a fulfilled one, and an unknown reason code', async () => {
    const { core, subscription } = await arrange();
    const [first] = (await list(core, subscription)).data;
    const ctx = await context(core);
    expect(await simulateOutcome(ctx, first.id, 'failed', 'ZZ99')).toMatchObject({
      ok: false,
      failure: { kind: 'invalid_attribute' },
    });
    await setClock(core, '2026-12-06T00:00:00Z');
    expect(await simulateOutcome(ctx, first.id, 'failed')).toMatchObject({
      ok: false,
      failure: { kind: 'invalid_state' },
    });
    const manual = (await post(core, { subscription_id: subscription, amount: 1, due_date: '2027-03-01' })).body.data
      .id;
    expect((await send(core, 'DELETE', `/transactions/${manual}`)).status).toBe(204);
    expect(await simulateOutcome(ctx, manual, 'charged_back')).toMatchObject({
      ok: false,
      failure: { kind: 'invalid_state' },
    });
    expect(await simulateOutcome(ctx, '00000000-0000-4000-8000-000000000000', 'failed')).toMatchObject({
      ok: false,
      failure: { kind: 'not_found' },
    });
  });
});

describe('GET and DELETE /transactions/{id}', () => {
  it('cancels before collection (204, canceled_on set), and refuses after it with Invalid State', async () => {
    const { core, subscription } = await arrange();
    const [plan] = (await list(core, subscription)).data;
    const manual = (await post(core, { subscription_id: subscription, amount: 1, due_date: '2027-03-01' })).body.data
      .id;
    const deleted = await send(core, 'DELETE', `/transactions/${manual.toUpperCase()}`);
    expect(deleted).toMatchObject({ status: 204 });
    expect(deleted.body).toBeUndefined();
    expect(await historyOf(core, manual)).toEqual([['canceled', '2026-11-21T11:00:00+01:00', 1, null, null]]);
    expect(await get(core, manual)).toMatchObject({ status: 'canceled', canceled_on: '2026-11-21T11:00:00+01:00' });
    await setClock(core, '2026-12-02T00:00:00Z');
    expectError(await send(core, 'DELETE', `/transactions/${plan.id}`), 400, 'Invalid State');
    expect((await get(core, plan.id)).status).toBe('succeeded');
  });

  it('an unknown id, or one that is not a UUID, is 404', async () => {
    const { core } = await arrange();
    expectError(await send(core, 'GET', '/transactions/00000000-0000-4000-8000-000000000000'), 404, 'Not Found');
    expectError(await send(core, 'GET', '/transactions/42'), 404, 'Not Found');
    expectError(await send(core, 'DELETE', '/transactions/not-a-uuid'), 404, 'Not Found');
  });

  it('lists a subscription’s transactions newest due date first, filters by status and sorts', async () => {
    const { core, subscription } = await arrange();
    await post(core, { subscription_id: subscription, amount: 1, due_date: '2027-02-01' });
    await post(core, { subscription_id: subscription, amount: 2, due_date: '2026-12-24' });
    const body = await list(core, subscription);
    expect(body.meta.total).toBe(3);
    expect(body.data.map((t: any) => t.attributes.due_date)).toEqual([
      '2027-02-01T00:00:00+01:00',
      '2026-12-24T00:00:00+01:00',
      '2026-12-01T00:00:00+01:00',
    ]);
    expect((await list(core, subscription, 'sort=due_date')).data.map((t: any) => t.attributes.amount)).toEqual([
      12.5, 2, 1,
    ]);
    expect(
      (await list(core, subscription, 'filter[status]=scheduled')).data.map((t: any) => t.attributes.amount),
    ).toEqual([12.5]);
    expect(
      (await send(core, 'GET', `/subscriptions/${subscription}/transactions`, { query: 'filter[status]=lost' })).status,
    ).toBe(400);
    expect((await send(core, 'GET', '/subscriptions/99/transactions')).status).toBe(404);
  });
});
