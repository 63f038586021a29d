// Webhook delivery rows written straight into a test store, in any status, and read back.
import { randomUUID } from 'node:crypto';
import type { DeliveryStatus } from '../../src/lib/core/transitions.js';
import { all, run } from '../../src/lib/store/unit.js';
import type { TestCore } from './store.js';

export interface DeliverySeed {
  status: DeliveryStatus;
  attempts?: number;
  /** The sender holding it (for a minute); none by default. */
  claimedBy?: string;
}

export const DELIVERY_HOST = 'hooks.example.com:80';

/** Writes one delivery of the core's account, due now; gives its id. */
export async function seedDelivery(core: TestCore, seed: DeliverySeed): Promise<number> {
  const account = (await core.account()).id;
  const at = core.clock.now().toISOString();
  const held = seed.claimedBy === undefined ? null : new Date(Date.now() + 60_000).toISOString();
  await core.store.write(() =>
    run((q) =>
      q.insertInto('webhook_deliveries').values({
        account_id: account,
        event_uid: randomUUID(),
        delivery_id: randomUUID(),
        event: 'subscription.active',
        url: 'http://hooks.example.com/in',
        host: DELIVERY_HOST,
        allow_private: 0,
        body: '{}',
        status: seed.status,
        attempts: seed.attempts ?? 0,
        next_at: at,
        claimed_by: seed.claimedBy ?? null,
        claimed_until: held,
        created_at: at,
        updated_at: at,
      }),
    ),
  );
  const [last] = await core.store.read(() =>
    all((q) => q.selectFrom('webhook_deliveries').select('id').orderBy('id', 'desc').limit(1)),
  );
  return last.id;
}

/** A delivery's status and attempts as stored. */
export async function deliveryState(core: TestCore, id: number): Promise<{ status: DeliveryStatus; attempts: number }> {
  const [row] = await core.store.read(() =>
    all((q) => q.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('id', '=', id)),
  );
  return row;
}
