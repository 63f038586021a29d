// billing serve's sender: delivers promptly after a change (a write pokes it) and on a timer (the
// retries falling due, and what other instances on the same PostgreSQL database wrote). One run at a
// time per instance; instances share the outbox through claims, so none sends a delivery another holds.
import type { Clock } from '../core/clock.js';
import { skippedTurn, type Store } from '../store/store.js';
import { WebhookSender, type SenderOptions } from './webhooks.js';

export interface DispatcherOptions extends SenderOptions {
  store: Store;
  clock: Clock;
  /** How often to look for due deliveries without a poke, in ms; default 1 s; 0 only when poked. */
  everyMs?: number;
  /** More to send on each run (customer emails by SMTP), after the webhooks. */
  also?: () => Promise<unknown>;
  log(line: string): void;
}

export interface Dispatcher {
  /** Something changed: send what is due now (a run already under way runs once more). */
  poke(): void;
  /** Stops the timer and waits for the run under way; in-flight requests finish or time out. */
  close(): Promise<void>;
}

export function startDispatcher(o: DispatcherOptions): Dispatcher {
  const sender = new WebhookSender(o.store, o.clock, o);
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await sender.deliver();
          if (o.also) await o.also();
        } catch (error) {
          // Another process held the store's lock at the claim: nothing was sent, the next turn tries again.
          if (skippedTurn(error)) break;
          o.log(`billing serve: sending webhooks failed (tried again in a moment): ${error instanceof Error ? error.message : String(error)}`);
        }
      } while (again && !closed);
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const every = o.everyMs ?? 1_000;
  const timer = every > 0 ? setInterval(() => void run(), every) : undefined;
  timer?.unref();
  return {
    poke: () => {
      if (!closed) void run();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await running;
      sender.close();
    },
  };
}
