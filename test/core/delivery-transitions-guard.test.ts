// The outbox obeys DELIVERY_TRANSITIONS as it is, not a copy of it: with a narrower table (no
// failed -> delivered, nothing after delivered), the writes that table no longer lists are refused
// and change nothing, on the run's engine.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { recordAttempts, retryDelivery } from '../../src/lib/core/outbox.js';
import type * as Transitions from '../../src/lib/core/transitions.js';
import { all, run } from '../../src/lib/store/unit.js';
import { context, TestClock } from '../api/support.js';
import { testCore, type TestCore } from '../helpers/store.js';

vi.mock('../../src/lib/core/transitions.js', async (importOriginal) => {
  const original = await importOriginal<typeof Transitions>();
  const narrower = { pending: ['delivered', 'failed'], delivered: [], failed: ['pending'] };
  return { ...original, DELIVERY_TRANSITIONS: narrower };
});

async function seed(core: TestCore, status: 'failed' | 'delivered', attempts: number): Promise<number> {
  const account = (await core.account()).id;
  const at = core.clock.now().toISOString();
  const row = {
    account_id: account,
    event_uid: randomUUID(),
    delivery_id: randomUUID(),
    event: 'subscription.active',
    url: 'http://hooks.example.com/in',
    host: 'hooks.example.com:80',
    allow_private: 0,
    body: '{}',
    status,
    attempts,
    next_at: at,
    created_at: at,
    updated_at: at,
  };
  await core.store.write(() => run((q) => q.insertInto('webhook_deliveries').values(row)));
  const [last] = await core.store.read(() =>
    all((q) => q.selectFrom('webhook_deliveries').select('id').orderBy('id', 'desc').limit(1)),
  );
  return last.id;
}

const rowOf = async (core: TestCore, id: number) =>
  (
    await core.store.read(() =>
      all((q) => q.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('id', '=', id)),
    )
  )[0];

describe('webhook delivery statuses under a narrower table', () => {
  it('a success over a failed row is refused (a bug, thrown) and nothing is written', async () => {
    const core = await testCore({ clock: new TestClock() });
    const id = await seed(core, 'failed', 10);
    const a = { id, host: 'hooks.example.com:80', tries: 9, dueAt: core.clock.now().toISOString(), status: 200 };
    const recording = async () => {
      await recordAttempts(core.store, [a], { at: core.clock.now(), owner: 'sender-a', realNow: Date.now() });
    };
    await expect(recording).rejects.toThrow('delivery ' + id + ' cannot go from failed to delivered');
    expect(await rowOf(core, id)).toEqual({ status: 'failed', attempts: 10 });
  });

  it('a retry by hand of a delivered row is Invalid State and changes nothing', async () => {
    const core = await testCore({ clock: new TestClock() });
    const id = await seed(core, 'delivered', 1);
    const result = await retryDelivery(await context(core), id);
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: 'invalid_state',
        detail: `delivery ${id} is delivered: it cannot be sent again`,
        attribute: 'status',
      },
    });
    expect(await rowOf(core, id)).toEqual({ status: 'delivered', attempts: 1 });
  });
});
