// Looking after plans locally (plans update|archive; the hosted service has these only in its
// dashboard): what may change and what stays as made, a new amount from the next transaction
// scheduled after it, an archived plan taking no new subscriptions while its own go on, and a
// change to what a plan already is writing nothing.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { updatePlan } from '../../src/lib/core/plan-writes.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { all } from '../../src/lib/store/unit.js';
import { TEST_NOW, testCore } from '../helpers/store.js';
import { context, createCustomer, makePlan, send } from '../api/support.js';

const subscription = (customer: string, plan: number) => ({
  body: {
    data: {
      type: 'subscription',
      attributes: {
        customer_id: Number(customer),
        subscription_plan_id: plan,
        status: 'active',
        mandate_accepted: true,
        mandate_accepted_date: '2026-11-21',
      },
    },
  },
});

/** A subscription's transactions by due date: the day, the status and the amount. */
async function amounts(core: Awaited<ReturnType<typeof testCore>>, sub: string): Promise<[string, string, number][]> {
  const answer = await send(core, 'GET', `/subscriptions/${sub}/transactions`);
  return (answer.body.data as { attributes: { due_date: string; status: string; amount: number } }[])
    .map((t): [string, string, number] => [
      t.attributes.due_date.slice(0, 10),
      t.attributes.status,
      t.attributes.amount,
    ])
    .sort((a, b) => a[0].localeCompare(b[0]));
}

describe('plans update and archive', () => {
  it('changes what may change; a new amount is collected from the next transaction scheduled after it', async () => {
    const core = await testCore({ clock: fixedClock(TEST_NOW) });
    const plan = await makePlan(core, { name: 'Box', amount: '10.00', frequency: 'monthly' });
    const sub = (await send(core, 'POST', '/subscriptions', subscription(await createCustomer(core), plan))).body.data
      .id as string;
    expect(await amounts(core, sub)).toEqual([['2026-11-21', 'scheduled', 10]]);

    const changed = await updatePlan(await context(core), plan, {
      name: 'Box (2027)',
      amount: '12.50',
      description: 'Fruit',
      terms: 'Cancel any month',
      send_invoice: false,
    });
    expect(changed.ok && changed.value.unchanged).toBe(false);
    const read = (await send(core, 'GET', `/subscription-plans/${plan}`)).body.data.attributes;
    expect(read).toMatchObject({ name: 'Box (2027)', amount: '12.50', description: 'Fruit', send_invoice: false });
    // The one already scheduled keeps the amount it was scheduled with; the next cycle has the new one.
    expect(await amounts(core, sub)).toEqual([['2026-11-21', 'scheduled', 10]]);
    await setClock(core, '2026-12-23T10:00:00.000Z');
    expect(await amounts(core, sub)).toEqual([
      ['2026-11-21', 'fulfilled', 10],
      ['2026-12-21', 'succeeded', 12.5],
      ['2027-01-21', 'scheduled', 12.5],
    ]);
    // The amount before the change is kept for reports of past dates.
    const prices = await core.store.read(() =>
      all((q) => q.selectFrom('plan_prices').select(['subscription_plan_id', 'amount_cents'])),
    );
    expect(prices).toEqual([{ subscription_plan_id: plan, amount_cents: 1000 }]);
  });

  it('keeps the frequency, start date, mandate method and storno retries as made, and refuses bad values, writing nothing', async () => {
    const core = await testCore();
    const plan = await makePlan(core, { name: 'Box', amount: '10.00' });
    const before = (await send(core, 'GET', `/subscription-plans/${plan}`)).body.data.attributes;
    const refused = await updatePlan(await context(core), plan, {
      frequency: 'yearly',
      storno_retries: 0,
      amount: '0.00',
      name: 'Renamed',
    });
    expect(refused.ok).toBe(false);
    if (refused.ok || refused.failure.kind !== 'invalid_attribute') throw new Error('expected invalid attributes');
    expect(Object.fromEntries(refused.failure.problems.map((p) => [p.attribute, p.detail]))).toEqual({
      frequency: "cannot change: the plan's subscriptions were agreed under it (make a new plan instead)",
      storno_retries: "cannot change: the plan's subscriptions were agreed under it (make a new plan instead)",
      amount: expect.stringContaining('at least') as string,
    });
    expect((await send(core, 'GET', `/subscription-plans/${plan}`)).body.data.attributes).toEqual(before);
  });

  it('an archived plan takes no new subscriptions; its own go on being collected', async () => {
    const core = await testCore({ clock: fixedClock(TEST_NOW) });
    const plan = await makePlan(core, { name: 'Box', amount: '10.00', frequency: 'monthly' });
    const sub = (await send(core, 'POST', '/subscriptions', subscription(await createCustomer(core), plan))).body.data
      .id as string;
    const archived = await updatePlan(await context(core), plan, { archived: true });
    expect(archived.ok && archived.value.plan.archived).toBe(1);
    expect((await send(core, 'GET', `/subscription-plans/${plan}`)).body.data.attributes.archived).toBe(true);

    const refused = await send(core, 'POST', '/subscriptions', subscription(await createCustomer(core), plan));
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({
      source: { pointer: '/data/attributes/subscription_plan_id' },
      detail: expect.stringContaining(`the plan ${plan} is archived`) as string,
    });
    expect((await send(core, 'GET', '/subscriptions')).body.data).toHaveLength(1);

    await setClock(core, '2027-01-23T10:00:00.000Z');
    expect(await amounts(core, sub)).toEqual([
      ['2026-11-21', 'fulfilled', 10],
      ['2026-12-21', 'fulfilled', 10],
      ['2027-01-21', 'succeeded', 10],
      ['2027-02-21', 'scheduled', 10],
    ]);
    // Back again: it takes subscriptions once more.
    await updatePlan(await context(core), plan, { archived: false });
    expect((await send(core, 'POST', '/subscriptions', subscription(await createCustomer(core), plan))).status).toBe(
      201,
    );
  });

  it("a change to what the plan already is writes nothing; another account's plan is not found", async () => {
    const core = await testCore();
    const plan = await makePlan(core, { name: 'Box', amount: '10.00' });
    const ctx = await context(core);
    await updatePlan(ctx, plan, { archived: true });
    const before = (await send(core, 'GET', `/subscription-plans/${plan}`)).body.data.attributes;
    await setClock(core, '2026-11-22T10:00:00.000Z');
    const again = await updatePlan(await context(core), plan, { archived: true, name: 'Box', amount: 10 });
    expect(again.ok && again.value.unchanged).toBe(true);
    expect((await send(core, 'GET', `/subscription-plans/${plan}`)).body.data.attributes).toEqual(before);

    const other = await createAccount(core.store, core.clock, 'other');
    if (!other.ok) throw new Error('no account');
    const theirs = await updatePlan({ ...ctx, account: other.value.account }, plan, { name: 'Mine' });
    expect(theirs.ok ? 'ok' : theirs.failure.kind).toBe('not_found');
  });
});
