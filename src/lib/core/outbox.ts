// The webhook outbox. A status change's event is written with one delivery row per URL it goes to,
// in the change's own transaction; senders (lib/outbox) claim due rows, post them, and record what
// happened here. Every delivery keeps its delivery_id across attempts, so receivers can drop
// duplicates: delivery is at least once, never silently dropped.
import { randomUUID } from 'node:crypto';
import type { EventRow, WebhookDeliveryRow } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { all, prepared, run, writeRows, type RowsSpec, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import { nowIso, transact } from './context.js';
import type { Ledger } from './lifecycle.js';
import { findPage, type Condition, type PageOf, type PageRequest } from './paging.js';
import { fail, notFound, ok, type Result } from './result.js';

export type Delivery = Omit<WebhookDeliveryRow, 'id'> & { id: number };
export type Event = Omit<EventRow, 'id'> & { id: number };

/**
 * Seconds to wait after each failed attempt: 1 min growing to 8 h, about 24 hours in all. The
 * attempt after the last wait is the last one; when it fails the delivery is marked failed.
 */
export const RETRY_DELAYS_S = [60, 300, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

const DELIVERY_INSERT: RowsSpec = {
  key: 'webhook_deliveries.insert',
  table: 'webhook_deliveries',
  columns: {
    account_id: 'integer', event_uid: 'text', delivery_id: 'text', event: 'text', url: 'text', body: 'text', status: 'text', attempts: 'integer',
    next_at: 'instant', created_at: 'instant', updated_at: 'instant',
  },
};

/** The JSON body of an event, exactly as the hosted service sends it (ids as strings). */
export function eventBody(event: Pick<EventRow, 'subscription_id' | 'transaction_id' | 'status'>): string {
  return event.transaction_id === null
    ? JSON.stringify({ subscription_id: String(event.subscription_id), status: event.status })
    : JSON.stringify({ subscription_id: String(event.subscription_id), transaction_id: event.transaction_id, status: event.status });
}

/** The event's name in a delivery's header: `subscription.active`, `transaction.charged_back`. */
export const eventName = (event: Pick<EventRow, 'transaction_id' | 'status'>): string => `${event.transaction_id === null ? 'subscription' : 'transaction'}.${event.status}`;

/**
 * The deliveries of a ledger's events: a subscription's change to its subscription_webhook_url; a
 * transaction's to the subscription's transaction_webhook_url and to the transaction's own
 * webhook_url (once when both are the same URL). The URLs are those of the moment of the change.
 */
export function* writeDeliveries(l: Ledger): Unit<void> {
  if (l.events.length === 0) return;
  const missing = [...new Set(l.events.map((e) => e.subscription_id).filter((id) => !l.subs.has(id)))];
  const urls = new Map<number, { subscription_webhook_url: string | null; transaction_webhook_url: string | null }>();
  for (const sub of l.subs.values()) urls.set(sub.id, sub);
  if (missing.length > 0) {
    const rows = yield* all((q) => q.selectFrom('subscriptions').select(['id', 'subscription_webhook_url', 'transaction_webhook_url']).where('id', 'in', missing));
    for (const row of rows) urls.set(row.id, row);
  }
  const rows: Record<string, unknown>[] = [];
  for (const event of l.events) {
    const sub = urls.get(event.subscription_id);
    const targets =
      event.transaction_id === null
        ? [sub?.subscription_webhook_url]
        : [sub?.transaction_webhook_url, l.txns.get(event.transaction_id)?.webhook_url];
    const body = eventBody(event);
    const name = eventName(event);
    for (const url of new Set(targets.filter((u): u is string => !!u))) {
      rows.push({
        account_id: event.account_id, event_uid: event.uid, delivery_id: randomUUID(), event: name, url, body, status: 'pending', attempts: 0,
        next_at: event.occurred_at, created_at: event.occurred_at, updated_at: event.occurred_at,
      });
    }
  }
  yield* writeRows('insert', DELIVERY_INSERT, rows);
}

// ---- senders: claim, then record ----

/** A claimed delivery, with the secret its signature is made with (the account's, at sending time). */
export type Claimed = Pick<Delivery, 'id' | 'account_id' | 'delivery_id' | 'event' | 'url' | 'body' | 'attempts' | 'next_at'> & { secret: string };

export interface ClaimOptions {
  /** The store's clock now: deliveries due by then. */
  now: string;
  /** Real time now, and until when the claim holds (a sender that dies lets its rows go then). */
  realNow: string;
  until: string;
  /** Who claims (a random id per sender). */
  owner: string;
  limit: number;
}

/**
 * Claims up to `limit` due deliveries not held by another sender. On PostgreSQL several instances
 * claim at once without waiting for each other (SKIP LOCKED), each row to one of them.
 */
export function claimDeliveries(store: Store, o: ClaimOptions): Claimed[] | Promise<Claimed[]> {
  return store.work(function* () {
    const rows = yield* all((q, d) => {
      const query = q
        .selectFrom('webhook_deliveries')
        .select(['id', 'account_id', 'delivery_id', 'event', 'url', 'body', 'attempts', 'next_at'])
        .where('status', '=', 'pending')
        .where('next_at', '<=', o.now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', o.realNow)]));
      return d.locked(query.orderBy('next_at').orderBy('id').limit(o.limit), true);
    });
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    yield* run((q) => q.updateTable('webhook_deliveries').set({ claimed_by: o.owner, claimed_until: o.until }).where('id', 'in', ids));
    const accounts = [...new Set(rows.map((r) => r.account_id))];
    const secrets = new Map((yield* all((q) => q.selectFrom('accounts').select(['id', 'webhook_secret']).where('id', 'in', accounts))).map((a) => [a.id, a.webhook_secret]));
    return rows.map((r) => ({ ...r, secret: secrets.get(r.account_id)! }));
  });
}

/** What one attempt came to: a 2xx status, another status, or no answer (error says why). */
export interface Attempt {
  id: number;
  /** Attempts made before this one, and when it was due (as claimed). */
  tries: number;
  dueAt: string;
  status?: number;
  error?: string;
  /** Cut short by the sender's own deadline: not a try; the row is let go, due as it was. */
  abandoned?: boolean;
}

export const succeeded = (a: Attempt): boolean => a.status !== undefined && a.status >= 200 && a.status < 300;

const DELIVERY_RECORD: RowsSpec = {
  key: 'webhook_deliveries.record',
  table: 'webhook_deliveries',
  by: 'id',
  columns: {
    id: 'integer', status: 'text', attempts: 'integer', next_at: 'instant', last_status: 'integer', last_error: 'text', delivered_at: 'instant',
    claimed_by: 'text', claimed_until: 'instant', updated_at: 'instant',
  },
};

/**
 * Records attempts made under a claim, in one statement: delivered; or due again after the next
 * delay; or failed after the last; or let go untried (abandoned). A failure is not recorded over a
 * row this sender no longer holds (its claim lapsed and another sender has it, or delivered it); a
 * success always is: the receiver has it.
 */
export function recordAttempts(store: Store, attempts: readonly Attempt[], o: { at: Date; owner: string }): unknown {
  const now = o.at.toISOString();
  return store.write(function* () {
    const others = attempts.filter((a) => !succeeded(a)).map((a) => a.id);
    const held = new Set<number>();
    if (others.length > 0) {
      const rows = yield* all((q) => q.selectFrom('webhook_deliveries').select('id').where('id', 'in', others).where('status', '=', 'pending').where('claimed_by', '=', o.owner));
      for (const row of rows) held.add(row.id);
    }
    const rows: Record<string, unknown>[] = [];
    for (const a of attempts) {
      const base = { id: a.id, claimed_by: null, claimed_until: null, updated_at: now };
      if (succeeded(a)) {
        rows.push({ ...base, status: 'delivered', attempts: a.tries + 1, next_at: now, last_status: a.status, last_error: null, delivered_at: now });
      } else if (held.has(a.id) && a.abandoned) {
        rows.push({ ...base, status: 'pending', attempts: a.tries, next_at: a.dueAt, last_status: null, last_error: null, delivered_at: null });
      } else if (held.has(a.id)) {
        const made = a.tries + 1;
        const last = made >= MAX_ATTEMPTS;
        const next = last ? now : new Date(o.at.getTime() + RETRY_DELAYS_S[made - 1]! * 1000).toISOString();
        const error = (a.error ?? `answered ${a.status}`).slice(0, 500);
        rows.push({ ...base, status: last ? 'failed' : 'pending', attempts: made, next_at: next, last_status: a.status ?? null, last_error: error, delivered_at: null });
      }
    }
    yield* writeRows('update', DELIVERY_RECORD, rows);
  });
}

const earliest = prepared<{ next_at: string }, []>('outbox.next', (q) =>
  q.selectFrom('webhook_deliveries').select('next_at').where('status', '=', 'pending').orderBy('next_at').orderBy('id').limit(1),
);

/** The earliest pending delivery's due time (one read of the partial index), for a sender deciding whether to start. */
export function* nextDelivery(): Unit<string | undefined> {
  return (yield* earliest.get())?.next_at;
}

// ---- operators: events list, webhooks list|retry ----

export interface DeliveryFind {
  status?: WebhookDeliveryRow['status'];
}

export function listDeliveries(ctx: CoreContext, page: PageRequest, find: DeliveryFind = {}): Unit<PageOf<Delivery>> {
  const where: Condition[] = [];
  const { status } = find;
  if (status !== undefined) where.push({ where: (eb) => eb('status', '=', status) });
  return findPage('webhook_deliveries', ctx.account.id, page, { where }) as Unit<PageOf<Delivery>>;
}

export function listEvents(ctx: CoreContext, page: PageRequest, find: { subscription_id?: number } = {}): Unit<PageOf<Event>> {
  const where: Condition[] = [];
  const { subscription_id } = find;
  if (subscription_id !== undefined) where.push({ where: (eb) => eb('subscription_id', '=', subscription_id) });
  return findPage('events', ctx.account.id, page, { where }) as Unit<PageOf<Event>>;
}

export function* getDelivery(ctx: CoreContext, id: number): Unit<Result<Delivery>> {
  const [row] = yield* all((q) => q.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id));
  return row ? ok(row as Delivery) : notFound(`no webhook delivery with id ${id}`);
}

/**
 * Sends a delivery again by hand: a failed or delivered one is pending again, due now, with its
 * attempts counted from zero (a day of retries again) and its delivery id kept.
 */
export function retryDelivery(ctx: CoreContext, id: number): Result<Delivery> | Promise<Result<Delivery>> {
  return transact(ctx.store, function* () {
    const found = yield* getDelivery(ctx, id);
    if (!found.ok) return found;
    if (found.value.status === 'pending' && found.value.attempts === 0) {
      return fail<Delivery>({ kind: 'invalid_state', detail: `delivery ${id} is already due to be sent`, attribute: 'status' });
    }
    const now = nowIso(ctx);
    yield* run((q) =>
      q.updateTable('webhook_deliveries').set({ status: 'pending', attempts: 0, next_at: now, claimed_by: null, claimed_until: null, updated_at: now }).where('id', '=', id),
    );
    return yield* getDelivery(ctx, id);
  });
}
