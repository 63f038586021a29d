// The outbox obeys DELIVERY_TRANSITIONS as it is, not a copy of it: with a narrower table (no
// failed -> delivered, nothing after delivered), the writes that table no longer lists are refused
// and change nothing, on the run's engine.
import { describe, expect, it, vi } from 'vitest';
import { recordAttempts, retryDelivery } from '../../src/lib/core/outbox.js';
import type * as Transitions from '../../src/lib/core/transitions.js';
import { context, TestClock } from '../api/support.js';
import { DELIVERY_HOST, deliveryState, seedDelivery } from '../helpers/deliveries.js';
import { testCore } from '../helpers/store.js';

vi.mock('../../src/lib/core/transitions.js', async (importOriginal) => {
  const original = await importOriginal<typeof Transitions>();
  const narrower = { pending: ['delivered', 'failed'], delivered: [], failed: ['pending'] };
  return { ...original, DELIVERY_TRANSITIONS: narrower };
});

describe('webhook delivery statuses under a narrower table', () => {
  it('a success over a failed row is refused (a bug, thrown) and nothing is written', async () => {
    const core = await testCore({ clock: new TestClock() });
    const id = await seedDelivery(core, { status: 'failed', attempts: 10 });
    const a = { id, host: DELIVERY_HOST, tries: 9, dueAt: core.clock.now().toISOString(), status: 200 };
    const recording = async () => {
      await recordAttempts(core.store, [a], { at: core.clock.now(), owner: 'sender-a', realNow: Date.now() });
    };
    await expect(recording).rejects.toThrow('delivery ' + id + ' cannot go from failed to delivered');
    expect(await deliveryState(core, id)).toEqual({ status: 'failed', attempts: 10 });
  });

  it('a retry by hand of a delivered row is Invalid State and changes nothing', async () => {
    const core = await testCore({ clock: new TestClock() });
    const id = await seedDelivery(core, { status: 'delivered', attempts: 1 });
    const result = await retryDelivery(await context(core), id);
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: 'invalid_state',
        detail: `delivery ${id} is delivered: it cannot be sent again`,
        attribute: 'status',
      },
    });
    expect(await deliveryState(core, id)).toEqual({ status: 'delivered', attempts: 1 });
  });
});
