// The store's clock moves with the work due on the way: stopped half-way (Ctrl-C, a crash), it is
// where the work is, so nothing due by the time it shows is left undone and the rest is a clock
// set away.
import { describe, expect, it } from 'vitest';
import { setClock, showClock } from '../../src/lib/core/store-clock.js';
import { all } from '../../src/lib/store/unit.js';
import { createCustomer, createSubscription, makePlan, minimalCustomer } from '../api/support.js';
import { testCore } from '../helpers/store.js';

describe('clock set|advance stopped half-way', () => {
  it('leaves the clock where the work done reached, with nothing due by then undone; set again, it goes on', async () => {
    const core = await testCore();
    const plan = await makePlan(core, { name: 'Weekly', amount: '5.00', frequency: 'weekly' });
    for (let n = 0; n < 3; n++) {
      const customer = await createCustomer(core, minimalCustomer(n));
      await createSubscription(core, {
        customer_id: customer,
        subscription_plan_id: plan,
        status: 'active',
        mandate_accepted: true,
        mandate_accepted_date: '2026-11-20',
      });
    }
    const { store } = core;
    // The third batch of work fails (the process stopped): what the two before did stays.
    const work = store.work.bind(store);
    let batches = 0;
    store.work = ((unit: Parameters<typeof work>[0]) => {
      if (++batches === 3) return Promise.reject(new Error('stopped'));
      return work(unit);
    }) as typeof store.work;
    await expect(setClock(core, '2027-03-01T00:00:00Z')).rejects.toThrow('stopped');
    store.work = work;

    const { now, test } = await showClock(core);
    expect(test).toBe(true);
    expect(now > '2026-11-21T10:00:00.000Z' && now < '2027-03-01T00:00:00.000Z', now).toBe(true);
    const undone = await store.read(() =>
      all((q) => q.selectFrom('due_work').select(['kind', 'due_at']).where('due_at', '<=', now)),
    );
    expect(undone).toEqual([]);

    expect((await setClock(core, '2027-03-01T00:00:00Z')).ok).toBe(true);
    expect((await showClock(core)).now).toBe('2027-03-01T00:00:00.000Z');
    const transactions = await store.read(() =>
      all((q) => q.selectFrom('transactions').select('status').where('status', '=', 'scheduled')),
    );
    // Each subscription's next collection after 1 March waits, one each; the weeks before were collected.
    expect(transactions).toHaveLength(3);
  });
});
