// The one place that runs the core, under both doors. A runtime opens the store and its clock,
// resolves the account a command acts as, does the work that fell due (once at open, then on a
// timer or when asked), owns the senders of what the store keeps to send (webhooks, emails) and
// their budget at exit, and closes everything in order. The embedded transport hands requests to
// its router; `billing serve` (./serve.ts) puts its HTTP listener, pages and dispatcher on top.
import { defaultAccount, findAccount } from '../core/accounts.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { Account } from '../core/context.js';
import type { DueReport } from '../core/due.js';
import { nextDelivery } from '../core/outbox.js';
import { catchUp, StoreClock } from '../core/store-clock.js';
import { createRouter, type Router } from '../api/router.js';
import { openStore, skippedTurn, withoutWaiting, type Create, type SqliteStore, type Store } from '../store/store.js';
import type { WebhookSender } from './webhooks.js';

export interface RuntimeOptions {
  /** A SQLite file path or a postgres:// URL. */
  location: string;
  /** PostgreSQL: the most connections the pool opens. */
  poolSize?: number;
  /** What opening may make (see Create): 'nothing' for a command that only reads. Default 'folders'. */
  create?: Create;
  /** Account name to act as; the store's default account when absent. */
  account?: string;
  /** Base of the links in documents; the default is where `billing serve` listens by default. */
  baseUrl?: string;
  /** The time under the store's clock: real time, or a test's own. */
  clock?: Clock;
  /** Told of an exception inside the core (the request itself answers 500). */
  onError?: (error: unknown) => void;
  /**
   * Whether webhooks may go to loopback and private addresses, recorded on the deliveries this
   * process writes (its requests and its due work). Default true: the CLI runs on its owner's machine.
   */
  allowPrivateWebhooks?: boolean;
  /** SQLite: the longest a write waits for another process's write lock, in ms (BILLING_BUSY_MS); default 5 s. */
  busyMs?: number;
  /**
   * billing serve: the store yields when busy (yieldWhenBusy) and the catch-up on opening is
   * skipped while another process holds the lock (the server's timer does it a second later).
   */
  serving?: boolean;
}

/** Links in documents made without a server point where `billing serve` listens by default. */
export const DEFAULT_EMBEDDED_BASE_URL = 'http://127.0.0.1:8080';

/** How long a command may spend sending what it caused (webhooks, and as much again emails) before it exits. */
export const SEND_BUDGET_MS = 2_000;

export class UnknownAccountError extends Error {
  override name = 'UnknownAccountError';
}

/** Where emails go (BILLING_SMTP_URL), decided when a command is about to send them. */
export interface MailSettings {
  smtpUrl: string;
  from?: string;
}

export interface SendOptions {
  /** The SMTP server for customers' emails; none are sent without it. */
  mail?: () => Promise<MailSettings | undefined>;
  /** Told why sending stopped (the command's own work is committed whatever receivers do). */
  onError?: (error: unknown) => void;
}

export interface Runtime {
  readonly store: Store;
  readonly clock: StoreClock;
  readonly router: Router;
  /** The policy recorded on the deliveries this process writes (see RuntimeOptions). */
  readonly allowPrivateWebhooks: boolean;
  /** The account this runtime acts as (embedded commands; billing serve acts as each request's key's). */
  account(): Promise<Account>;
  /** Whether this process may have changed the store: then what it caused is sent before it closes. */
  changed: boolean;
  /**
   * Reads the store's test time and does the work due by it now. `waiting: false` (work with a next
   * turn): while another process holds SQLite's write lock it fails at once (see skippedTurn).
   */
  catchUp(options?: { baseUrl?: string; waiting?: boolean }): Promise<DueReport | undefined>;
  /** Sends the webhooks (then emails) due now, for at most SEND_BUDGET_MS each; what is left stays due. Never throws. */
  sendDue(options?: SendOptions): Promise<void>;
  /** Sends what this process caused (when it changed anything), then closes the store. Safe to call more than once. */
  close(options?: SendOptions): Promise<void>;
}

/** Opens the store at a location and the runtime over it, having done what fell due while no process ran. */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { poolSize, create, busyMs, serving } = options;
  const store = await openStore(options.location, { poolSize, create, busyMs });
  if (serving && store.engine === 'sqlite') (store as SqliteStore).yieldWhenBusy();
  const runtime = runtimeOver(store, options);
  try {
    // Nobody sees a stale state: what fell due while no process ran is done before anything else.
    const caughtUp = await runtime.catchUp({ waiting: !serving });
    runtime.changed = caughtUp !== undefined && caughtUp.done > 0;
  } catch (error) {
    if (!(serving && skippedTurn(error))) {
      await store.close();
      throw error;
    }
  }
  return runtime;
}

/** A runtime over a store already open (billing serve's tests, tools that open stores themselves). */
export function runtimeOver(
  store: Store,
  options: Omit<RuntimeOptions, 'location' | 'poolSize' | 'create' | 'busyMs' | 'serving'> = {},
): Runtime {
  // The store's clock (its test time, when one is set) over real time, or over a test's own clock.
  const clock = options.clock instanceof StoreClock ? options.clock : new StoreClock(options.clock ?? systemClock);
  const baseUrl = options.baseUrl ?? DEFAULT_EMBEDDED_BASE_URL;
  const allowPrivateWebhooks = options.allowPrivateWebhooks ?? true;
  let account: Account | undefined;
  let closed: Promise<void> | undefined;
  const runtime: Runtime = {
    store,
    clock,
    changed: false,
    allowPrivateWebhooks,
    // In process, a store another process keeps locked is the command's error (exit 1), not a 503.
    router: createRouter({
      store,
      clock,
      baseUrl,
      onError: options.onError,
      allowPrivateWebhooks,
      throwWhenLocked: true,
    }),
    async account() {
      if (account) return account;
      const fallback = await defaultAccount(store, clock);
      if (options.account === undefined) return (account = fallback);
      const found = await store.read(() => findAccount(options.account!));
      if (!found)
        throw new UnknownAccountError(
          `no account named "${options.account}" in ${store.location} (see: billing accounts list)`,
        );
      return (account = found);
    },
    catchUp: (o = {}) =>
      catchUp(o.waiting === false ? withoutWaiting(store) : store, clock, {
        baseUrl: o.baseUrl ?? baseUrl,
        allowPrivateWebhooks,
      }),
    async sendDue(o = {}) {
      if (store.writeRefusal !== undefined) return;
      let sender: WebhookSender | undefined;
      try {
        // One indexed read when nothing is due (most commands): the sender and node:http are not even loaded.
        const due = await store.read(() => nextDelivery(), 'outbox.next');
        if (due !== undefined && due <= clock.now().toISOString()) {
          const { WebhookSender } = await import('./webhooks.js');
          // Each delivery carries the policy of whoever wrote it: one billing serve refused private targets for is refused here too.
          // Claimed without waiting: while another process holds the lock, they stay due for later.
          sender = new WebhookSender(store, clock, { claims: withoutWaiting(store) });
          await sender.deliver({ deadline: Date.now() + SEND_BUDGET_MS });
        }
        const mail = await o.mail?.();
        if (mail) {
          const { sendDueMail } = await import('./mail.js');
          const claims = withoutWaiting(store);
          await sendDueMail(store, clock, { smtpUrl: mail.smtpUrl, from: mail.from, budgetMs: SEND_BUDGET_MS, claims });
        }
      } catch (error) {
        o.onError?.(error);
      } finally {
        sender?.close();
      }
    },
    close(o) {
      closed ??= (async () => {
        if (runtime.changed) {
          runtime.changed = false;
          await runtime.sendDue(o);
        }
        await store.close();
      })();
      return closed;
    },
  };
  return runtime;
}
