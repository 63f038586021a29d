// Sending the webhook outbox: claim due deliveries, POST each signed body, record what happened.
// At least once: a delivery is marked delivered only after a 2xx answer, and a sender that dies
// mid-way lets its claims lapse, so another (or the same after a restart) sends them again with the
// same delivery id.
import { createHmac, randomUUID } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Clock } from '../core/clock.js';
import { claimDeliveries, recordAttempts, type Attempt, type Claimed } from '../core/outbox.js';
import { isPrivateAddress, isPrivateTarget } from '../core/webhooks.js';
import type { Store } from '../store/store.js';

declare const BILLING_VERSION: string;
const VERSION = typeof BILLING_VERSION === 'string' ? BILLING_VERSION : 'dev';

/** How long a receiver has to answer (decisions.md: 10 s). */
export const TIMEOUT_MS = 10_000;

/** The signature header's value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export function signature(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

export interface SenderOptions {
  /** Whether URLs may reach loopback and private addresses (the embedded CLI: yes; billing serve: only when started so). */
  allowPrivate: boolean;
  /** Requests in flight at once; default 16. */
  concurrency?: number;
  /** A receiver's time to answer; default TIMEOUT_MS. */
  timeoutMs?: number;
  /** How long a claim holds (real time); default the timeout and 20 s more. */
  leaseMs?: number;
  /** Deliveries claimed at a time; default 64. */
  batch?: number;
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
  return ((hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => isPrivateAddress(a.address));
      if (refused) return callback(new RefusedAddress(`${hostname} resolves to ${refused.address}, a private address`), '', 0);
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

/** One sender: keep-alive connections per receiver, claims under its own id. */
export class WebhookSender {
  readonly owner = randomUUID();
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly batch: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: SenderOptions,
  ) {
    this.concurrency = options.concurrency ?? 16;
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? this.timeoutMs + 20_000;
    this.batch = options.batch ?? 64;
    const lookup = options.allowPrivate ? undefined : guardedLookup();
    const agent = { keepAlive: true, maxSockets: this.concurrency, ...(lookup ? { lookup } : {}) };
    this.agents = { http: new http.Agent(agent), https: new https.Agent(agent) };
  }

  /** Sends what is due (by the store's clock) until nothing is, or the deadline. */
  async deliver(o: DeliverOptions = {}): Promise<DeliverReport> {
    const report: DeliverReport = { delivered: 0, failed: 0, left: false };
    for (;;) {
      if (o.deadline !== undefined && Date.now() >= o.deadline) return { ...report, left: true };
      const real = Date.now();
      const claimed = await claimDeliveries(this.options.claims ?? this.store, {
        now: this.clock.now().toISOString(),
        realNow: new Date(real).toISOString(),
        until: new Date(real + this.leaseMs).toISOString(),
        owner: this.owner,
        limit: this.batch,
      });
      if (claimed.length === 0) return report;
      const attempts = await this.sendAll(claimed, o.deadline);
      await recordAttempts(this.store, attempts, { at: this.clock.now(), owner: this.owner });
      for (const a of attempts) {
        if (a.abandoned) continue;
        if (a.status !== undefined && a.status >= 200 && a.status < 300) report.delivered++;
        else report.failed++;
      }
      if (claimed.length < this.batch) return { ...report, left: attempts.some((a) => a.abandoned) };
    }
  }

  private async sendAll(claimed: Claimed[], deadline: number | undefined): Promise<Attempt[]> {
    const attempts: Attempt[] = new Array(claimed.length);
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const i = next++;
        attempts[i] = await this.send(claimed[i]!, deadline);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, claimed.length) }, worker));
    return attempts;
  }

  /** One POST. Never throws: no answer is an attempt with its error. */
  send(d: Claimed, deadline?: number): Promise<Attempt> {
    const tried = { id: d.id, tries: d.attempts, dueAt: d.next_at };
    if (!this.options.allowPrivate && isPrivateTarget(d.url)) return Promise.resolve({ ...tried, error: 'refused: the URL names a loopback or private address' });
    let url: URL;
    try {
      url = new URL(d.url);
    } catch {
      return Promise.resolve({ ...tried, error: 'refused: not a URL' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve({ ...tried, error: 'refused: not an http(s) URL' });
    const left = deadline === undefined ? Infinity : deadline - Date.now();
    const cut = left < this.timeoutMs;
    const wait = Math.max(0, Math.min(this.timeoutMs, left));
    const body = Buffer.from(d.body);
    const t = Math.floor(Date.now() / 1000);
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
        agent: url.protocol === 'https:' ? this.agents.https : this.agents.http,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'user-agent': `billing/${VERSION}`,
          'billing-event': d.event,
          'billing-delivery': d.delivery_id,
          'billing-signature': signature(d.secret, d.body, t),
        },
      });
      // A deadline shorter than the receiver's time is the sender stopping, not the receiver failing: the try does not count.
      const timer = setTimeout(() => {
        request.destroy();
        finish(cut ? { ...tried, abandoned: true } : { ...tried, error: `no answer within ${this.timeoutMs / 1000} s` });
      }, wait);
      request.on('response', (response) => {
        response.resume();
        // The status is the answer; the connection is kept for the next delivery once the body is read.
        response.on('end', () => finish({ ...tried, status: response.statusCode ?? 0 }));
        response.on('error', () => finish({ ...tried, status: response.statusCode ?? 0 }));
      });
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish({ ...tried, error: error.name === 'RefusedAddress' ? `refused: ${error.message}` : `no answer: ${error.code ?? error.message}` }),
      );
      request.end(body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
