// Sending the webhook outbox: claim due deliveries, POST each signed body, record what happened.
// At least once: a delivery is marked delivered only after a 2xx answer, and a sender that dies
// mid-way lets its claims lapse, so another (or the same after a restart) sends them again with the
// same delivery id.
//
// Fair to receivers, so that one slow or hanging receiver delays nobody else. A receiver is a host
// (host:port as written, see hostKey). One sender has at most `perHost` requests in flight to a host
// and `concurrency` in all; all senders of the store together hold at most `batch` deliveries of one
// host at once; claims take due rows across hosts and accounts in turn (claimDeliveries); a host that
// timed out is held back by every sender (webhook_hosts). And the sender is a pipeline, not a batch
// at a time: it claims when it has free slots that nothing it holds may use, starts requests as
// slots free, and records what finished in bulk, so a request waiting on one host never holds back
// the claim, the start or the record of the others'.
import { createHmac, randomUUID } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Clock } from '../core/clock.js';
import { claimDeliveries, recordAttempts, succeeded, type Attempt, type Claimed } from '../core/outbox.js';
import { isPrivateAddress, isPrivateTarget } from '../core/webhooks.js';
import type { Store } from '../store/store.js';

declare const BILLING_VERSION: string;
const VERSION = typeof BILLING_VERSION === 'string' ? BILLING_VERSION : 'dev';

/** How long a receiver has to answer (docs/webhooks.md, "Retries and failures": 10 s). */
export const TIMEOUT_MS = 10_000;

/** Requests in flight at once to one host, from one sender. */
export const PER_HOST = 2;

/**
 * How often a sender may rank every due row, when the oldest and newest ones leave its claims short:
 * what a long backlog of one host may hide between them waits at most this long.
 */
const DEEP_EVERY_MS = 5_000;

/** How long finished attempts may wait to be recorded together (a timeout, whose back-off others must see, is not kept waiting). */
const RECORD_EVERY_MS = 1_000;

/** The signature header's value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export function signature(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

/**
 * The headers of a delivery's POST, its length aside (docs/webhooks.md, "What a delivery looks like"):
 * what the sender sends, and what billing listen --forward-to sends a developer's receiver.
 */
export function deliveryHeaders(
  d: { event: string; deliveryId: string; secret: string; body: string },
  unixSeconds: number,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': `billing/${VERSION}`,
    'billing-event': d.event,
    'billing-delivery': d.deliveryId,
    'billing-signature': signature(d.secret, d.body, unixSeconds),
  };
}

export interface SenderOptions {
  /** Requests in flight at once, to all hosts; default 16. */
  concurrency?: number;
  /** Requests in flight at once to one host; default PER_HOST. */
  perHost?: number;
  /** A receiver's time to answer; default TIMEOUT_MS. */
  timeoutMs?: number;
  /** How long a claim holds (real time); default the timeout and 20 s more. */
  leaseMs?: number;
  /** Deliveries claimed at a time, and the most of one host held at once by all senders; default 64. */
  batch?: number;
  /** How long a host that timed out is first held back; default HOST_BACKOFF_MS (core/outbox). */
  backoffMs?: number;
  /**
   * The store claims are made through; default the store. withoutWaiting(store): while another
   * process holds SQLite's write lock the turn is skipped (StoreBusyError, see skippedTurn), where
   * the records of what was sent still wait for the lock (else what was sent would go again).
   */
  claims?: Store;
}

export interface DeliverOptions {
  /** Stop claiming more at this real time (ms since the epoch); in-flight requests are cut there too. */
  deadline?: number;
}

export interface DeliverReport {
  delivered: number;
  /** Attempts that failed (due again later, or failed for good after the last). */
  failed: number;
  /** Whether due deliveries may remain (the deadline came first). */
  left: boolean;
}

class RefusedAddress extends Error {
  override name = 'RefusedAddress';
  code = 'EREFUSED_PRIVATE';
}

/** A DNS lookup that refuses a name resolving to a private address: checked where the connection is made, so a name cannot change in between. */
function guardedLookup(): LookupFunction {
  return (
    hostname: string,
    options: object,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => isPrivateAddress(a.address));
      if (refused)
        return callback(new RefusedAddress(`${hostname} resolves to ${refused.address}, a private address`), '', 0);
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** Wakes a waiting loop; a wake while it is busy is kept for its next wait. */
class Signal {
  private fired = false;
  private resolve: (() => void) | undefined;
  fire(): void {
    this.fired = true;
    this.resolve?.();
  }
  async wait(ms: number): Promise<void> {
    if (!this.fired) {
      await new Promise<void>((resolve) => {
        const timer = Number.isFinite(ms) ? setTimeout(() => this.resolve?.(), Math.max(0, ms)) : undefined;
        this.resolve = () => {
          clearTimeout(timer);
          this.resolve = undefined;
          resolve();
        };
      });
    }
    this.fired = false;
  }
}

/** A claimed delivery waiting for a slot, and the real time by which it must start (or be let go). */
interface Queued {
  d: Claimed;
  startBy: number;
}

/** One sender: keep-alive connections per receiver, claims under its own id. */
export class WebhookSender {
  readonly owner = randomUUID();
  /** Per policy: deliveries whose writer refused private targets connect through a lookup that refuses them too. */
  private readonly agents: Record<'open' | 'guarded', { http: http.Agent; https: https.Agent }>;
  private readonly concurrency: number;
  private readonly perHost: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly batch: number;
  private readonly signal = new Signal();
  private running: Promise<DeliverReport> | undefined;
  private woken = false;
  private stopped = false;
  private lastDeep = -Infinity;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: SenderOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 16;
    this.perHost = Math.min(options.perHost ?? PER_HOST, this.concurrency);
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? this.timeoutMs + 20_000;
    this.batch = options.batch ?? 64;
    const agents = (lookup?: LookupFunction) => {
      const o = { keepAlive: true, maxSockets: this.perHost, ...(lookup ? { lookup } : {}) };
      return { http: new http.Agent(o), https: new https.Agent(o) };
    };
    this.agents = { open: agents(), guarded: agents(guardedLookup()) };
  }

  /**
   * Sends what is due (by the store's clock) until nothing is, or the deadline. Called while a run
   * is under way, it wakes that run (claim again: something may have fallen due) and shares its end.
   */
  deliver(o: DeliverOptions = {}): Promise<DeliverReport> {
    if (this.running) {
      this.wake();
      return this.running;
    }
    this.woken = false;
    this.running = this.run(o).finally(() => {
      this.running = undefined;
      this.stopped = false;
    });
    return this.running;
  }

  /** Something may have fallen due: a run under way claims again as soon as it has room. */
  wake(): void {
    this.woken = true;
    this.signal.fire();
  }

  /** A run under way claims nothing more, lets go of what it has not started, and ends when its requests have. */
  stop(): Promise<DeliverReport | undefined> {
    if (!this.running) return Promise.resolve(undefined);
    this.stopped = true;
    this.signal.fire();
    return this.running;
  }

  private async run(o: DeliverOptions): Promise<DeliverReport> {
    const report: DeliverReport = { delivered: 0, failed: 0, left: false };
    const queues = new Map<string, Queued[]>();
    const flying = new Map<string, number>();
    // Per host, what this sender holds in the store: queued, in flight, or finished but not yet recorded.
    const heldBy = new Map<string, number>();
    const finished: Attempt[] = [];
    let inFlight = 0;
    let queued = 0;
    let held = 0;
    let oldestFinished = 0;
    let timedOut = false;
    // The last claim found less than it asked for: claim again only when woken, or when a host drained.
    let exhausted = false;
    let refill = false;
    // A claim came short from the oldest and newest rows alone: look at every due row when next allowed.
    let deepPending = false;
    let stopping = false;
    let cut = false;
    const maxHeld = this.batch * 4;

    const finish = (a: Attempt) => {
      if (finished.length === 0) oldestFinished = Date.now();
      finished.push(a);
    };
    const letGo = ({ d }: Queued) =>
      finish({ id: d.id, host: d.host, probe: d.probe, tries: d.attempts, dueAt: d.next_at, abandoned: true });
    const release = (host: string) => {
      const queue = queues.get(host);
      if (!queue) return;
      queues.delete(host);
      queued -= queue.length;
      for (const q of queue) letGo(q);
    };
    const start = (q: Queued) => {
      const host = q.d.host;
      inFlight++;
      flying.set(host, (flying.get(host) ?? 0) + 1);
      void this.send(q.d, o.deadline).then((attempt) => {
        inFlight--;
        flying.set(host, flying.get(host)! - 1);
        finish(attempt);
        if (attempt.abandoned) cut = true;
        // It timed out: the rest of its rows wait for its back-off (recorded with this attempt), not for a slot.
        if (attempt.timedOut) {
          timedOut = true;
          release(host);
        }
        this.signal.fire();
      });
    };
    /** Starts what may start, one request per host in turn. */
    const startAll = () => {
      let started = true;
      while (started && inFlight < this.concurrency) {
        started = false;
        for (const [host, queue] of queues) {
          if (inFlight >= this.concurrency) break;
          if ((flying.get(host) ?? 0) >= this.perHost) continue;
          queued--;
          start(queue.shift()!);
          if (queue.length === 0) queues.delete(host);
          started = true;
        }
      }
    };
    const startable = () => {
      for (const host of queues.keys()) if ((flying.get(host) ?? 0) < this.perHost) return true;
      return false;
    };
    const record = async () => {
      const attempts = finished.splice(0);
      timedOut = false;
      await recordAttempts(this.store, attempts, {
        at: this.clock.now(),
        owner: this.owner,
        realNow: Date.now(),
        backoffMs: this.options.backoffMs,
      });
      for (const a of attempts) {
        held--;
        const before = heldBy.get(a.host)!;
        if (before === 1) heldBy.delete(a.host);
        else heldBy.set(a.host, before - 1);
        if (before > this.batch / 2 && before - 1 <= this.batch / 2) refill = true;
        if (a.abandoned) continue;
        if (succeeded(a)) report.delivered++;
        else report.failed++;
      }
    };
    const claim = async () => {
      const real = Date.now();
      const deep = real - this.lastDeep >= DEEP_EVERY_MS;
      if (deep) this.lastDeep = real;
      const limit = Math.min(this.batch, maxHeld - held);
      this.woken = false;
      refill = false;
      const claimed = await claimDeliveries(this.options.claims ?? this.store, {
        now: this.clock.now().toISOString(),
        realNow: new Date(real).toISOString(),
        until: new Date(real + this.leaseMs).toISOString(),
        owner: this.owner,
        limit,
        perHost: this.batch,
        deep,
      });
      exhausted = claimed.length < limit;
      deepPending = exhausted && !deep;
      // A row must start while its claim still covers the request (or half the claim, when the claim is
      // shorter than a request may take).
      const startBy = real + this.leaseMs - Math.min(this.timeoutMs, this.leaseMs / 2);
      for (const d of claimed) {
        const queue = queues.get(d.host);
        if (queue) queue.push({ d, startBy });
        else queues.set(d.host, [{ d, startBy }]);
        heldBy.set(d.host, (heldBy.get(d.host) ?? 0) + 1);
      }
      queued += claimed.length;
      held += claimed.length;
    };

    for (;;) {
      const now = Date.now();
      if (!stopping && (this.stopped || (o.deadline !== undefined && now >= o.deadline))) {
        stopping = true;
        report.left = !exhausted || queued > 0;
      }
      // What can no longer start before its claim lapses (or at all, once stopping) is let go, due as it was.
      for (const [host, queue] of queues) {
        while (queue.length > 0 && (stopping || queue[0].startBy <= now)) {
          queued--;
          letGo(queue.shift()!);
        }
        if (queue.length === 0) queues.delete(host);
      }
      startAll();
      const wantClaim =
        !stopping &&
        inFlight < this.concurrency &&
        held < maxHeld &&
        !startable() &&
        (this.woken || !exhausted || refill || (deepPending && now - this.lastDeep >= DEEP_EVERY_MS));
      const idle = inFlight === 0 && queued === 0;
      if (
        finished.length > 0 &&
        (wantClaim ||
          idle ||
          stopping ||
          timedOut ||
          finished.length >= this.batch / 2 ||
          now - oldestFinished >= RECORD_EVERY_MS)
      ) {
        // Before claiming too: the store then counts this sender's holds per host as they are.
        await record();
        continue;
      }
      if (wantClaim) {
        await claim();
        continue;
      }
      if (idle && finished.length === 0 && (stopping || (exhausted && !this.woken && !refill))) break;
      let wake = o.deadline ?? Infinity;
      for (const queue of queues.values()) wake = Math.min(wake, queue[0].startBy);
      if (finished.length > 0) wake = Math.min(wake, oldestFinished + RECORD_EVERY_MS);
      if (deepPending && !stopping) wake = Math.min(wake, this.lastDeep + DEEP_EVERY_MS);
      await this.signal.wait(wake - Date.now());
    }
    if (cut) report.left = true;
    return report;
  }

  /** One POST. Never throws: no answer is an attempt with its error. */
  private send(d: Claimed, deadline?: number): Promise<Attempt> {
    const tried = { id: d.id, host: d.host, probe: d.probe, tries: d.attempts, dueAt: d.next_at };
    const guarded = d.allow_private !== 1;
    if (guarded && isPrivateTarget(d.url))
      return Promise.resolve({ ...tried, error: 'refused: the URL names a loopback or private address' });
    let url: URL;
    try {
      url = new URL(d.url);
    } catch {
      return Promise.resolve({ ...tried, error: 'refused: not a URL' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return Promise.resolve({ ...tried, error: 'refused: not an http(s) URL' });
    const left = deadline === undefined ? Infinity : deadline - Date.now();
    const cut = left < this.timeoutMs;
    const wait = Math.max(0, Math.min(this.timeoutMs, left));
    const body = Buffer.from(d.body);
    const t = Math.floor(Date.now() / 1000);
    const agents = this.agents[guarded ? 'guarded' : 'open'];
    return new Promise<Attempt>((resolve) => {
      let done = false;
      const finish = (attempt: Attempt) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(attempt);
      };
      const request = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'POST',
        agent: url.protocol === 'https:' ? agents.https : agents.http,
        headers: {
          ...deliveryHeaders({ event: d.event, deliveryId: d.delivery_id, secret: d.secret, body: d.body }, t),
          'content-length': body.length,
        },
      });
      // A deadline shorter than the receiver's time is the sender stopping, not the receiver failing: the try does not count.
      const timer = setTimeout(() => {
        request.destroy();
        finish(
          cut
            ? { ...tried, abandoned: true }
            : { ...tried, error: `no answer within ${this.timeoutMs / 1000} s`, timedOut: true },
        );
      }, wait);
      request.on('response', (response) => {
        response.resume();
        // The status is the answer; the connection is kept for the next delivery once the body is read.
        response.on('end', () => finish({ ...tried, status: response.statusCode ?? 0 }));
        response.on('error', () => finish({ ...tried, status: response.statusCode ?? 0 }));
      });
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish({
          ...tried,
          error:
            error.name === 'RefusedAddress' ? `refused: ${error.message}` : `no answer: ${error.code ?? error.message}`,
        }),
      );
      request.end(body);
    });
  }

  close(): void {
    for (const agents of Object.values(this.agents)) {
      agents.http.destroy();
      agents.https.destroy();
    }
  }
}
