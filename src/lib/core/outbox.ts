// The webhook outbox. A status change's event is written with one delivery row per URL it goes to,
// in the change's own transaction; senders (runtime/webhooks.ts) claim due rows, post them, and record
// what happened here, each status through DELIVERY_TRANSITIONS. Every delivery keeps its delivery_id
// across attempts, so receivers can drop duplicates: delivery is at least once, never silently dropped.
import { randomUUID } from './random.js';
import type { EventRow, WebhookDeliveryRow } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { all, prepared, run, writeRows, type Build, type RowsSpec, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import { allowsPrivateWebhooks, nowIso, transact } from './context.js';
import type { Ledger, WebhookUrls } from './ledger.js';
import {
  findPage,
  ID_KEY,
  orderOf,
  type Condition,
  type PageOf,
  type PageRequest,
  type Sort,
  type SortKey,
} from './paging.js';
import { fail, notFound, ok, type Result } from './result.js';
import { canMove, DELIVERY_TRANSITIONS, reaching, TransitionError, type DeliveryStatus } from './transitions.js';
import { hostKey } from './webhooks.js';

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
    account_id: 'integer',
    event_uid: 'text',
    delivery_id: 'text',
    event: 'text',
    url: 'text',
    body: 'text',
    status: 'text',
    attempts: 'integer',
    next_at: 'instant',
    created_at: 'instant',
    updated_at: 'instant',
    host: 'text',
    allow_private: 'flag',
  },
};

/** The JSON body of an event, exactly as the hosted service sends it (ids as strings). */
export function eventBody(event: Pick<EventRow, 'subscription_id' | 'transaction_id' | 'status'>): string {
  return event.transaction_id === null
    ? JSON.stringify({ subscription_id: String(event.subscription_id), status: event.status })
    : JSON.stringify({
        subscription_id: String(event.subscription_id),
        transaction_id: event.transaction_id,
        status: event.status,
      });
}

/** The event's name in a delivery's header: `subscription.active`, `transaction.charged_back`. */
export const eventName = (event: Pick<EventRow, 'transaction_id' | 'status'>): string =>
  `${event.transaction_id === null ? 'subscription' : 'transaction'}.${event.status}`;

/**
 * Reads where the events of these subscriptions (those the ledger has not loaded) go, ahead of
 * writeDeliveries: a bank report's chunk reads them with the rest of what it reads, so that its
 * writes never wait for a read (bank-reports.ts).
 */
export function* loadWebhookUrls(l: Ledger, subscriptionIds: Iterable<number>): Unit<void> {
  const missing = [...new Set(subscriptionIds)].filter((id) => !l.subs.has(id) && !l.webhookUrls.has(id));
  if (missing.length === 0) return;
  for (const row of yield* webhookUrls(missing)) l.webhookUrls.set(row.id, row);
}

const webhookUrls = (ids: number[]) =>
  all((q) =>
    q
      .selectFrom('subscriptions')
      .select(['id', 'subscription_webhook_url', 'transaction_webhook_url'])
      .where('id', 'in', ids),
  );

/**
 * The deliveries of a ledger's events: a subscription's change to its subscription_webhook_url; a
 * transaction's to the subscription's transaction_webhook_url and to the transaction's own
 * webhook_url (once when both are the same URL). The URLs are those of the moment of the change,
 * and the policy on private targets that of the process making it (the ledger's).
 */
export function* writeDeliveries(l: Ledger): Unit<void> {
  if (l.events.length === 0) return;
  const urls = new Map<number, Omit<WebhookUrls, 'id'>>(l.webhookUrls);
  for (const sub of l.subs.values()) urls.set(sub.id, sub);
  const missing = [...new Set(l.events.map((e) => e.subscription_id).filter((id) => !urls.has(id)))];
  if (missing.length > 0) for (const row of yield* webhookUrls(missing)) urls.set(row.id, row);
  const rows: Record<string, unknown>[] = [];
  const allowPrivate = l.allowPrivateWebhooks ? 1 : 0;
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
        account_id: event.account_id,
        event_uid: event.uid,
        delivery_id: randomUUID(),
        event: name,
        url,
        body,
        status: 'pending',
        attempts: 0,
        next_at: event.occurred_at,
        created_at: event.occurred_at,
        updated_at: event.occurred_at,
        host: hostKey(url),
        allow_private: allowPrivate,
      });
    }
  }
  yield* writeRows('insert', DELIVERY_INSERT, rows);
}

// ---- senders: claim, then record ----

/** A claimed delivery, with the secret its signature is made with (the account's, at sending time). */
export type Claimed = Pick<
  Delivery,
  'id' | 'account_id' | 'delivery_id' | 'event' | 'url' | 'host' | 'allow_private' | 'body' | 'attempts' | 'next_at'
> & {
  secret: string;
  /** Whether its host had timed out before (held back until then): an answer now ends the back-off. */
  probe: boolean;
};

export interface ClaimOptions {
  /** The store's clock now: deliveries due by then. */
  now: string;
  /** Real time now, and until when the claim holds (a sender that dies lets its rows go then). */
  realNow: string;
  until: string;
  /** Who claims (a random id per sender). */
  owner: string;
  limit: number;
  /** The most deliveries one host may have claimed at once, by every sender of the store together. */
  perHost: number;
  /**
   * Whether to rank every due row (one scan of them all, for a sender to ask for now and then, not on
   * every claim); otherwise only the oldest and the newest WINDOW x limit, between which a long
   * backlog of one host may hide others' older rows.
   */
  deep?: boolean;
}

/** Due rows a claim ranks at each end of the queue, per row it may take, unless it goes deep. */
export const WINDOW = 2;

/**
 * The ids a claim takes, fairly: each host's candidates ranked oldest first, and a host given no
 * more than `perHost` held at once, counting what every sender holds; each account's candidates
 * ranked again, and the batch taking every account's first before any account's second, and of
 * those every host's first before any host's second. So 200 rows to one host cannot fill a batch,
 * nor one account's many hosts. Hosts held back after a timeout (webhook_hosts) are not candidates.
 */
function fairIds(q: Parameters<Build<unknown>>[0], o: ClaimOptions, window: number | undefined) {
  const candidates = (order: 'asc' | 'desc' | undefined) => {
    const query = q
      .selectFrom('webhook_deliveries as w')
      .select((eb) => [
        'w.id',
        'w.account_id',
        'w.host',
        'w.next_at',
        eb.case().when('w.claimed_until', '>=', o.realNow).then(1).else(0).end().as('held'),
      ])
      .where('w.status', '=', 'pending')
      .where('w.next_at', '<=', o.now)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhook_hosts as h')
              .select('h.host')
              .whereRef('h.host', '=', 'w.host')
              .where('h.retry_at', '>', o.realNow),
          ),
        ),
      );
    return order === undefined || window === undefined
      ? query
      : query.orderBy('w.next_at', order).orderBy('w.id', order).limit(window);
  };
  // The oldest due rows, and the newest (what was just written: another host's, behind a long backlog).
  const due =
    window === undefined
      ? candidates(undefined)
      : q
          .selectFrom(candidates('asc').as('o'))
          .selectAll()
          .union(q.selectFrom(candidates('desc').as('n')).selectAll());
  const byHost = q.selectFrom(due.as('u')).select((eb) => [
    'u.id',
    'u.account_id',
    'u.next_at',
    'u.held',
    eb.fn
      .agg<number>('row_number')
      .over((ob) => ob.partitionBy(['u.host', 'u.held']).orderBy('u.next_at').orderBy('u.id'))
      .as('host_rank'),
    eb.fn
      .sum<number>('u.held')
      .over((ob) => ob.partitionBy('u.host'))
      .as('host_held'),
  ]);
  const byAccount = q
    .selectFrom(byHost.as('r'))
    .select((eb) => [
      'r.id',
      'r.next_at',
      'r.host_rank',
      eb.fn
        .agg<number>('row_number')
        .over((ob) => ob.partitionBy('r.account_id').orderBy('r.host_rank').orderBy('r.next_at').orderBy('r.id'))
        .as('account_rank'),
    ])
    .where('r.held', '=', 0)
    .where((eb) => eb(eb('r.host_rank', '+', eb.ref('r.host_held')), '<=', o.perHost));
  return q
    .selectFrom(byAccount.as('a'))
    .select('a.id')
    .orderBy('a.account_rank')
    .orderBy('a.host_rank')
    .orderBy('a.next_at')
    .orderBy('a.id')
    .limit(o.limit);
}

/**
 * Claims up to `limit` due deliveries not held by another sender, fairly (see fairIds): ranking the
 * oldest and the newest due rows (two reads of WINDOW x limit entries of the partial index of
 * pending rows), or, deep, every due row (one scan and two sorts of them all). On PostgreSQL the rows are then locked,
 * skipping those another claim took meanwhile; the per-host count does not see claims not yet
 * committed, so two senders claiming at the same moment may each take a host's share, and not more.
 */
export function claimDeliveries(store: Store, o: ClaimOptions): Claimed[] | Promise<Claimed[]> {
  return store.work(function* () {
    const rows = yield* all((q, d) =>
      d.locked(
        q
          .selectFrom('webhook_deliveries as w')
          .select((eb) => [
            'w.id',
            'w.account_id',
            'w.delivery_id',
            'w.event',
            'w.url',
            'w.host',
            'w.allow_private',
            'w.body',
            'w.attempts',
            'w.next_at',
            eb.selectFrom('webhook_hosts as h').select('h.timeouts').whereRef('h.host', '=', 'w.host').as('timeouts'),
          ])
          .where('w.id', 'in', fairIds(q, o, o.deep ? undefined : o.limit * WINDOW))
          // Again on the row as locked (PostgreSQL, READ COMMITTED): another claim may have taken it since the
          // ranking read it.
          .where('w.status', '=', 'pending')
          .where((eb) => eb.or([eb('w.claimed_until', 'is', null), eb('w.claimed_until', '<', o.realNow)])),
        true,
      ),
    );
    if (rows.length === 0) return [];
    yield* run((q) =>
      q
        .updateTable('webhook_deliveries')
        .set({ claimed_by: o.owner, claimed_until: o.until })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        ),
    );
    const accounts = [...new Set(rows.map((r) => r.account_id))];
    const secrets = new Map(
      (yield* all((q) => q.selectFrom('accounts').select(['id', 'webhook_secret']).where('id', 'in', accounts))).map(
        (a) => [a.id, a.webhook_secret],
      ),
    );
    return rows.map(({ timeouts, ...r }) => ({ ...r, secret: secrets.get(r.account_id)!, probe: timeouts !== null }));
  });
}

/** What one attempt came to: a 2xx status, another status, or no answer (error says why). */
export interface Attempt {
  id: number;
  /** Its receiver (the delivery's host), and whether that host was being tried again after a back-off. */
  host: string;
  probe?: boolean;
  /** Attempts made before this one, and when it was due (as claimed). */
  tries: number;
  dueAt: string;
  status?: number;
  error?: string;
  /** No answer within the receiver's time: the host is held back (webhook_hosts). */
  timedOut?: boolean;
  /** Cut short by the sender's own deadline, or never started: not a try; the row is let go, due as it was. */
  abandoned?: boolean;
}

export const succeeded = (a: Attempt): boolean => a.status !== undefined && a.status >= 200 && a.status < 300;

/** What a claim takes, so what a row a sender still holds is. */
const CLAIMED: DeliveryStatus = 'pending';
/** A success is written over the row unread: it may be in any status. */
const ANY = Object.keys(DELIVERY_TRANSITIONS) as DeliveryStatus[];

/**
 * The status a delivery is written with, checked against DELIVERY_TRANSITIONS from every status the row
 * may have then (`from`: what the read before the write let through): a change the table does not list
 * is a bug, thrown before anything is written.
 */
function writeStatus(id: number, from: readonly DeliveryStatus[], to: DeliveryStatus): DeliveryStatus {
  for (const status of from) {
    if (status !== to && !canMove(DELIVERY_TRANSITIONS, status, to)) {
      throw new TransitionError(`delivery ${id} cannot go from ${status} to ${to}`);
    }
  }
  return to;
}

const DELIVERY_RECORD: RowsSpec = {
  key: 'webhook_deliveries.record',
  table: 'webhook_deliveries',
  by: 'id',
  columns: {
    id: 'integer',
    status: 'text',
    attempts: 'integer',
    next_at: 'instant',
    last_status: 'integer',
    last_error: 'text',
    delivered_at: 'instant',
    claimed_by: 'text',
    claimed_until: 'instant',
    updated_at: 'instant',
  },
};

/**
 * How long a host that timed out is held back (real time), by its timeouts in a row: 15 s, doubling
 * up to 5 minutes. Its deliveries are not tried meanwhile (no attempt of theirs is spent); then at
 * most its share is tried, and any answer, whatever the status, ends the back-off.
 */
export const HOST_BACKOFF_MS = 15_000;
export const HOST_BACKOFF_MAX_MS = 300_000;

export const hostBackoff = (timeouts: number, firstMs = HOST_BACKOFF_MS): number =>
  Math.min(firstMs * 2 ** Math.min(timeouts - 1, 30), Math.max(firstMs, HOST_BACKOFF_MAX_MS));

export interface RecordOptions {
  /** The store's clock now (next attempts are due by it). */
  at: Date;
  owner: string;
  /** Real time now, ms since the epoch: back-offs run by it. */
  realNow: number;
  /** The first back-off of a host that timed out; default HOST_BACKOFF_MS. */
  backoffMs?: number;
}

/**
 * Records attempts made under a claim, in one statement: delivered; or due again after the next
 * delay; or failed after the last; or let go untried (abandoned). A failure is not recorded over a
 * row this sender no longer holds (its claim lapsed and another sender has it, or delivered it); a
 * success always is: the receiver has it. In the same transaction, hosts that answered end their
 * back-off and hosts that timed out begin one (or the next, longer one).
 */
export function recordAttempts(store: Store, attempts: readonly Attempt[], o: RecordOptions): unknown {
  const now = o.at.toISOString();
  const realNow = new Date(o.realNow).toISOString();
  return store.write(function* () {
    const others = attempts.filter((a) => !succeeded(a)).map((a) => a.id);
    const held = new Set<number>();
    if (others.length > 0) {
      const rows = yield* all((q) =>
        q
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('id', 'in', others)
          .where('status', '=', CLAIMED)
          .where('claimed_by', '=', o.owner),
      );
      for (const row of rows) held.add(row.id);
    }
    const rows: Record<string, unknown>[] = [];
    for (const a of attempts) {
      const base = { id: a.id, claimed_by: null, claimed_until: null, updated_at: now };
      if (succeeded(a)) {
        rows.push({
          ...base,
          status: writeStatus(a.id, ANY, 'delivered'),
          attempts: a.tries + 1,
          next_at: now,
          last_status: a.status,
          last_error: null,
          delivered_at: now,
        });
      } else if (held.has(a.id) && a.abandoned) {
        rows.push({
          ...base,
          status: writeStatus(a.id, [CLAIMED], 'pending'),
          attempts: a.tries,
          next_at: a.dueAt,
          last_status: null,
          last_error: null,
          delivered_at: null,
        });
      } else if (held.has(a.id)) {
        const made = a.tries + 1;
        const last = made >= MAX_ATTEMPTS;
        const next = last ? now : new Date(o.at.getTime() + RETRY_DELAYS_S[made - 1] * 1000).toISOString();
        const error = (a.error ?? `answered ${a.status}`).slice(0, 500);
        rows.push({
          ...base,
          status: writeStatus(a.id, [CLAIMED], last ? 'failed' : 'pending'),
          attempts: made,
          next_at: next,
          last_status: a.status ?? null,
          last_error: error,
          delivered_at: null,
        });
      }
    }
    yield* writeRows('update', DELIVERY_RECORD, rows);
    const recovered = [...new Set(attempts.filter((a) => a.probe && a.status !== undefined).map((a) => a.host))];
    if (recovered.length > 0) yield* run((q) => q.deleteFrom('webhook_hosts').where('host', 'in', recovered));
    const timedOut = [...new Set(attempts.filter((a) => a.timedOut).map((a) => a.host))];
    if (timedOut.length === 0) return;
    const known = new Map(
      (yield* all((q) => q.selectFrom('webhook_hosts').selectAll().where('host', 'in', timedOut))).map((h) => [
        h.host,
        h,
      ]),
    );
    for (const host of timedOut) {
      const before = known.get(host);
      // Requests of one round time out together: the back-off they began is not lengthened by the others.
      if (before && before.retry_at > realNow) continue;
      const timeouts = (before?.timeouts ?? 0) + 1;
      const retryAt = new Date(o.realNow + hostBackoff(timeouts, o.backoffMs)).toISOString();
      yield* run((q) =>
        q
          .insertInto('webhook_hosts')
          .values({ host, timeouts, retry_at: retryAt })
          .onConflict((oc) => oc.column('host').doUpdateSet({ timeouts, retry_at: retryAt })),
      );
    }
  });
}

const earliest = prepared<{ next_at: string }, []>('outbox.next', (q) =>
  q
    .selectFrom('webhook_deliveries')
    .select('next_at')
    .where('status', '=', 'pending')
    .orderBy('next_at')
    .orderBy('id')
    .limit(1),
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
  return findPage('webhook_deliveries', ctx.account.id, page, { where });
}

export function listEvents(
  ctx: CoreContext,
  page: PageRequest,
  find: { subscription_id?: number; sort?: Sort<'id'> } = {},
): Unit<PageOf<Event>> {
  const where: Condition[] = [];
  const { subscription_id } = find;
  if (subscription_id !== undefined) where.push({ where: (eb) => eb('subscription_id', '=', subscription_id) });
  return findPage('events', ctx.account.id, page, { where, order: orderOf(EVENT_SORT_KEYS, find.sort) });
}

const EVENT_SORT_KEYS: ReadonlyMap<'id', SortKey> = new Map([['id', ID_KEY]]);

export function* getDelivery(ctx: CoreContext, id: number): Unit<Result<Delivery>> {
  const [row] = yield* all((q) =>
    q.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id),
  );
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
      return fail<Delivery>({
        kind: 'invalid_state',
        detail: `delivery ${id} is already due to be sent`,
        attribute: 'status',
      });
    }
    const from = found.value.status;
    if (!reaching(DELIVERY_TRANSITIONS, 'pending').includes(from)) {
      const detail = `delivery ${id} is ${from}: it cannot be sent again`;
      return fail<Delivery>({ kind: 'invalid_state', detail, attribute: 'status' });
    }
    const now = nowIso(ctx);
    // Whoever retries may narrow the policy on private targets, never widen it: a delivery a server
    // refused them for is refused them by every sender, however it is retried. Its receiver is
    // worked out again (rows from before hosts were kept have their URL as host).
    const allowPrivate = found.value.allow_private === 1 && allowsPrivateWebhooks(ctx) ? 1 : 0;
    const host = hostKey(found.value.url);
    yield* run((q) =>
      q
        .updateTable('webhook_deliveries')
        .set({
          status: 'pending',
          attempts: 0,
          next_at: now,
          claimed_by: null,
          claimed_until: null,
          updated_at: now,
          host,
          allow_private: allowPrivate,
        })
        .where('id', '=', id),
    );
    return yield* getDelivery(ctx, id);
  });
}
