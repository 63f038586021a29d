// The embedded door: requests go to the router in process, on the store (a SQLite file or a PostgreSQL database).
import { defaultAccount, findAccount } from '../core/accounts.js';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { nextDue } from '../core/outbox.js';
import { catchUp, StoreClock } from '../core/store-clock.js';
import type { Account } from '../core/context.js';
import { createRouter, type Router } from '../api/router.js';
import { openStore, StoreReadOnlyError, type Create, type Store } from '../store/store.js';
import { target, type Transport, type TransportRequest, type TransportResponse } from './types.js';

export interface EmbeddedOptions {
  /** A SQLite file path or a postgres:// URL. */
  dbPath: string;
  /** PostgreSQL: the most connections the pool opens. */
  poolSize?: number;
  /** What opening may make (see Create): 'nothing' for a command that only reads. Default 'folders'. */
  create?: Create;
  /** Account name to act as; the store's default account when absent. */
  account?: string;
  /** Base of the links in documents; the default is where `billing serve` listens by default. */
  baseUrl?: string;
  clock?: Clock;
  /** Told of an exception inside the core (the request itself answers 500). */
  onError?: (error: unknown) => void;
}

export const DEFAULT_EMBEDDED_BASE_URL = 'http://127.0.0.1:8080';

export class UnknownAccountError extends Error {
  override name = 'UnknownAccountError';
}

/** The core opened on a store: what embedded-only commands (accounts, plans create) work with. */
export interface EmbeddedCore {
  store: Store;
  clock: Clock;
  account(): Promise<Account>;
  router: Router;
  /** Whether this process may have changed the store (a write, due work done): then its webhooks go out before it exits. */
  changed: boolean;
}

export async function openCore(options: EmbeddedOptions): Promise<EmbeddedCore> {
  const store = await openStore(options.dbPath, { poolSize: options.poolSize, create: options.create });
  // The store's clock (its test time, when one is set) over real time, or over a test's own clock.
  const clock = new StoreClock(options.clock ?? systemClock);
  let caughtUp;
  try {
    // Nobody sees a stale state: what fell due while no process ran is done before anything else.
    caughtUp = await catchUp(store, clock);
  } catch (error) {
    await store.close();
    throw error;
  }
  let account: Account | undefined;
  return {
    store,
    clock,
    changed: caughtUp !== undefined && caughtUp.done > 0,
    router: createRouter({ store, clock, baseUrl: options.baseUrl ?? DEFAULT_EMBEDDED_BASE_URL, onError: options.onError }),
    async account() {
      if (account) return account;
      const fallback = await defaultAccount(store, clock);
      if (options.account === undefined) return (account = fallback);
      const found = await store.read(() => findAccount(options.account!));
      if (!found) throw new UnknownAccountError(`no account named "${options.account}" in ${store.location} (see: billing accounts list)`);
      return (account = found);
    },
  };
}

export function embeddedTransport(core: EmbeddedCore): Transport {
  return {
    mode: 'embedded',
    async request(request: TransportRequest): Promise<TransportResponse> {
      // A store opened for reading that cannot be written: a change is refused here, plainly, not
      // as the 500 the router would make of the store's refusal.
      if (request.method.toUpperCase() !== 'GET') {
        if (core.store.writeRefusal !== undefined) throw new StoreReadOnlyError(core.store.writeRefusal);
        core.changed = true;
      }
      const { path, query } = target(request);
      // The body crosses as text, exactly as it would over HTTP, so both doors behave the same.
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const upload = request.upload && { contentType: request.upload.contentType, body: request.upload.open() };
      const response = await core.router.handle({ method: request.method, path, query, body, idempotencyKey: request.idempotencyKey, upload }, await core.account());
      // A copy, so a caller can never alias the router's objects.
      return { status: response.status, headers: response.headers, body: response.body === undefined ? undefined : structuredClone(response.body), ...(response.pipe ? { pipe: response.pipe } : {}) };
    },
    async close() {
      await settle(core);
      await core.store.close();
    },
  };
}

/** How long an embedded command may spend sending the webhooks it caused (and, as much again, the emails) before it exits. */
export const SETTLE_MS = 2_000;

/**
 * Sends the webhooks that are due before the process exits, for at most SETTLE_MS, and then the
 * customers' emails when SMTP is set up (`smtpUrl`): what is left (a receiver or a mail server
 * down or slow) stays due, for the next command or billing serve. Never fails the command: its own
 * work is committed whatever the receivers do.
 */
export async function settle(core: EmbeddedCore, o: { smtpUrl?: string; from?: string; onError?: (error: unknown) => void } = {}): Promise<void> {
  if (!core.changed || core.store.writeRefusal !== undefined) return;
  core.changed = false;
  let sender: import('../outbox/webhooks.js').WebhookSender | undefined;
  try {
    // One indexed read when nothing is due (most commands): the sender and node:http are not even loaded.
    const due = await core.store.read(() => nextDue(), 'outbox.next');
    if (due !== undefined && due <= core.clock.now().toISOString()) {
      const { WebhookSender } = await import('../outbox/webhooks.js');
      sender = new WebhookSender(core.store, core.clock, { allowPrivate: true });
      await sender.deliver({ deadline: Date.now() + SETTLE_MS });
    }
    if (o.smtpUrl) {
      const { sendDueMail } = await import('../outbox/mail.js');
      await sendDueMail(core.store, core.clock, { smtpUrl: o.smtpUrl, from: o.from, budgetMs: SETTLE_MS });
    }
  } catch (error) {
    o.onError?.(error);
  } finally {
    sender?.close();
  }
}
