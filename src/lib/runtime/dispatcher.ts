// billing serve's sender: delivers promptly after a change (a write pokes it) and on a timer (the
// retries falling due, hosts whose back-off ended, and what other instances on the same PostgreSQL
// database wrote). Webhooks and emails each have their own run, one at a time: a poke during a
// webhook run wakes it (it claims again at once, beside the requests it is waiting on), so nothing
// waits for a slow receiver's answer, nor for the mail server. Instances share the outbox through
// claims, so none sends a delivery another holds.
import type { Clock } from '../core/clock.js';
import { skippedTurn, type Store } from '../store/store.js';
import { WebhookSender, type SenderOptions } from './webhooks.js';

export interface DispatcherOptions extends SenderOptions {
  store: Store;
  clock: Clock;
  /** How often to look for due deliveries without a poke, in ms; default 1 s; 0 only when poked. */
  everyMs?: number;
  /** More to send on each poke and tick (customer emails by SMTP), in a run of its own. */
  also?: () => Promise<unknown>;
  log(line: string): void;
}

export interface Dispatcher {
  /** Something changed: send what is due now. */
  poke(): void;
  /** Stops the timer and waits for the runs under way; in-flight requests finish or time out. */
  close(): Promise<void>;
}

/** Runs `work` one at a time: asked again while it runs, it runs once more after. */
function serial(
  work: () => Promise<unknown>,
  failed: (error: unknown) => void,
  closed: () => boolean,
): { run(): void; done(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await work();
        } catch (error) {
          // Another process held the store's lock at the claim: nothing was sent, the next turn tries again.
          if (skippedTurn(error)) break;
          failed(error);
        }
      } while (again && !closed());
    })().finally(() => {
      running = undefined;
    });
  };
  return { run, done: async () => void (await running) };
}

export function startDispatcher(o: DispatcherOptions): Dispatcher {
  const sender = new WebhookSender(o.store, o.clock, o);
  let closed = false;
  const failed = (what: string) => (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    o.log(`billing serve: sending ${what} failed (tried again in a moment): ${reason}`);
  };
  const webhooks = serial(
    () => sender.deliver(),
    failed('webhooks'),
    () => closed,
  );
  const mail = o.also ? serial(o.also, failed('emails'), () => closed) : undefined;
  const run = () => {
    if (closed) return;
    // A run under way claims again at once; the serial run after it catches what its end missed.
    sender.wake();
    webhooks.run();
    mail?.run();
  };
  const every = o.everyMs ?? 1_000;
  const timer = every > 0 ? setInterval(run, every) : undefined;
  timer?.unref();
  return {
    poke: run,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await sender.stop();
      await Promise.all([webhooks.done(), mail?.done()]);
      sender.close();
    },
  };
}
