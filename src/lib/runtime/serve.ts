// `billing serve` on a runtime: the HTTP listener (server/) on top, and beside it the runtime's
// due work on a timer and its dispatcher of webhooks and emails, prompted by every write. The
// embedded CLI does the same work through the same runtime, once, before it exits.
import type { Clock } from '../core/clock.js';
import { skippedTurn, withoutWaiting, type Store } from '../store/store.js';
import { listen, type Background, type ListenOptions, type RunningServer } from '../server/serve.js';
import { startDispatcher } from './dispatcher.js';
import type { SenderOptions } from './webhooks.js';
import { runtimeOver, type Runtime } from './runtime.js';

export type { RunningServer };

/** Sends the emails due on a store (billing serve: by SMTP, with the webhooks), claimed through `claims`. */
export type MailSender = (store: Store, clock: Clock, claims: Store) => Promise<unknown>;

export interface BackgroundOptions {
  /** How often due work runs (and the store's test time is read again), in ms; 0 never. Default 1 s. */
  dueEveryMs?: number;
  /** How often the webhook outbox is looked at without a write to prompt it, in ms; 0 only when prompted. Default 1 s. */
  deliverEveryMs?: number;
  /** Options of the webhook sender (tests: a shorter timeout, a shorter claim, a shorter back-off). */
  sender?: SenderOptions;
  /** Sends the customers' emails (BILLING_SMTP_URL) with the webhooks; none when absent. */
  mail?: MailSender;
}

export interface ServeOptions extends Omit<ListenOptions, 'background'>, BackgroundOptions {}

/** A running server with the runtime's work beside it. */
export interface Serving extends RunningServer {
  /** Reads the store's clock and does the work due by it now (what the timer does every dueEveryMs). */
  catchUp(): Promise<void>;
}

/**
 * The due work and the senders of a runtime, for a long-running process: due work on a timer, one
 * run at a time (several instances on one PostgreSQL database each claim their own rows); the
 * dispatcher sending when poked and on its own timer. A failure is logged and tried again at the next tick.
 */
export function startBackground(
  runtime: Runtime,
  o: BackgroundOptions & { log: (line: string) => void },
): Background & { catchUp(): Promise<void> } {
  const { store, clock } = runtime;
  // Work that has a next turn does not wait for a lock another process holds: the turn is skipped.
  const claims = withoutWaiting(store);
  const outbox = startDispatcher({
    store,
    clock,
    everyMs: o.deliverEveryMs,
    ...o.sender,
    claims,
    also: o.mail ? () => o.mail!(store, clock, claims) : undefined,
    log: o.log,
  });
  let baseUrl: string | undefined;
  let running: Promise<void> | undefined;
  let ticker: NodeJS.Timeout | undefined;
  const catchUp = (): Promise<void> =>
    (running ??= (async () => {
      try {
        const report = await runtime.catchUp({ baseUrl, waiting: false });
        if (report && Object.keys(report.changes).length > 0) outbox.poke();
      } catch (error) {
        if (skippedTurn(error)) return;
        o.log(
          `billing serve: due work failed (tried again in a moment): ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        running = undefined;
      }
    })());
  return {
    poke: () => outbox.poke(),
    catchUp,
    start(listeningAt) {
      baseUrl = listeningAt;
      const every = o.dueEveryMs ?? 1_000;
      ticker = every > 0 ? setInterval(() => void catchUp(), every) : undefined;
      ticker?.unref();
    },
    async close() {
      if (ticker) clearInterval(ticker);
      await running;
      await outbox.close();
    },
  };
}

/** Serves a runtime's store: the listener, with the runtime's due work and senders beside it. */
export async function serveRuntime(
  runtime: Runtime,
  options: Omit<ServeOptions, 'store' | 'clock' | 'allowPrivateWebhooks'>,
): Promise<Serving> {
  // The runtime's policy is recorded on every delivery its requests, pages and due work write; the
  // sender obeys each delivery's own (so does any other process's).
  const { allowPrivateWebhooks } = runtime;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const background = startBackground(runtime, { ...options, log });
  try {
    const server = await listen({
      ...options,
      store: runtime.store,
      clock: runtime.clock,
      log,
      allowPrivateWebhooks,
      background,
    });
    return { ...server, catchUp: () => background.catchUp() };
  } catch (error) {
    await background.close();
    throw error;
  }
}

/** Serves a store already open (tests and benchmarks): a runtime over it, then serveRuntime. */
export function startServer(options: ServeOptions): Promise<Serving> {
  const { store, clock, ...rest } = options;
  return serveRuntime(runtimeOver(store, { clock, allowPrivateWebhooks: options.allowPrivateWebhooks ?? false }), rest);
}

// What the serve command checks its flags against, and writes its log with.
export {
  connectionsWithin,
  DEFAULT_HEADERS_TIMEOUT_S,
  DEFAULT_KEEP_ALIVE_TIMEOUT_S,
  DEFAULT_REQUEST_TIMEOUT_S,
  defaultMaxConnections,
  FALLBACK_MAX_CONNECTIONS,
  MAX_DEFAULT_CONNECTIONS,
  openFilesLimit,
  RESERVED_FDS,
} from '../server/limits.js';
export { lineBuffer } from '../server/line-buffer.js';

/** Descriptors the store holds open: a PostgreSQL pool one per connection. */
export async function storeDescriptors(runtime: Runtime, poolSize: number | undefined): Promise<number> {
  if (runtime.store.engine !== 'postgres') return 0;
  return poolSize ?? (await import('../store/postgres.js')).DEFAULT_POOL_SIZE;
}
