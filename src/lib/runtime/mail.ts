// Customer notifications out by SMTP. Messages are claimed in the store (so several billing serve
// instances on one database never send one twice), sent with nodemailer over one pooled connection,
// and what happened is recorded with them. Delivery is at least once: a sender that dies after the
// server took a message but before recording it lets its claim lapse, and the message goes again,
// with the same Message-ID (receivers and operators can tell it is the same message).
import { hostname } from 'node:os';
import type { Transporter } from 'nodemailer';
import type { Clock } from '../core/clock.js';
import { claimMail, nextMailDue, recordMail, type ClaimedMail, type MailOutcome } from '../core/notifications.js';
import type { Store } from '../store/store.js';

/** The longest one message may take to send (connecting included); then it counts as failed. */
export const SEND_TIMEOUT_MS = 10_000;

/** The header naming the notification a message is. */
export const NOTIFICATION_HEADER = 'X-Billing-Notification';

const DEFAULT_BUDGET_MS = 20_000;
const DEFAULT_LIMIT = 10;

export interface SendMailOptions {
  /** smtp://user:password@host:port or smtps://… (see smtpUrlFromEnv). */
  smtpUrl: string;
  /** The sender address; default BILLING_SMTP_FROM, else the URL's user name when it is an address, else billing@<this host>. */
  from?: string;
  /** How long this call may go on claiming and sending (a send under way may overrun it by at most SEND_TIMEOUT_MS). */
  budgetMs?: number;
  /** Messages claimed at a time. */
  limit?: number;
  /** The store claims are made through (see SenderOptions.claims in webhooks.ts); default the store. */
  claims?: Store;
  log?: (line: string) => void;
}

export interface MailReport {
  sent: number;
  failed: number;
  /**
   * Whether messages were still due when the time budget ran out (call again soon). False when
   * nothing more is due, and after the SMTP server could not be reached or refused the login:
   * the messages wait for the next turn rather than a tight loop against a server that is down.
   */
  left: boolean;
}

/** BILLING_SMTP_URL, checked: undefined when unset; an Error (without the password) when it is not an SMTP URL. */
export function smtpUrlFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.BILLING_SMTP_URL?.trim();
  if (!value) return undefined;
  const example =
    'smtp://user:password@mail.example.com:587 (STARTTLS when offered) or smtps://user:password@mail.example.com:465 (TLS)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not echoed: an unparsable value may still hold a password.
    throw new Error(`BILLING_SMTP_URL is not a URL: give ${example}`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new Error(`BILLING_SMTP_URL must start with smtp:// or smtps://, not ${url.protocol}//: give ${example}`);
  if (!url.hostname) throw new Error(`BILLING_SMTP_URL names no server: give ${example}`);
  return value;
}

/** The URL as it may be printed: its password as ***. */
export function describeSmtpUrl(smtpUrl: string): string {
  try {
    const url = new URL(smtpUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'an invalid SMTP URL';
  }
}

/** Any text with the URL's password (as written, and decoded) taken out. */
function scrubber(smtpUrl: string): (text: string) => string {
  let secrets: string[] = [];
  try {
    const raw = new URL(smtpUrl).password;
    secrets = [...new Set([raw, safeDecode(raw)])].filter((s) => s.length > 0);
  } catch {
    // smtpUrlFromEnv refuses such URLs; nothing to take out.
  }
  return (text) => secrets.reduce((t, secret) => t.split(secret).join('***'), text);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function defaultFrom(smtpUrl: string, env: NodeJS.ProcessEnv): string {
  if (env.BILLING_SMTP_FROM?.trim()) return env.BILLING_SMTP_FROM.trim();
  try {
    const user = safeDecode(new URL(smtpUrl).username);
    if (/^[^@\s]+@[^@\s]+$/.test(user)) return user;
  } catch {
    // fall through
  }
  return `billing@${hostname() || 'localhost'}`;
}

/** The domain of an address ("Name <a@b.example>" or "a@b.example"), for Message-IDs. */
const domainOf = (from: string): string => /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';

/**
 * Stable across retries (made from the row, not the attempt), and unlike another store's message
 * of the same id (created_at is in it).
 */
export const messageId = (mail: Pick<ClaimedMail, 'id' | 'created_at'>, from: string): string =>
  `<notification.${mail.id}.${Date.parse(mail.created_at).toString(36)}@${domainOf(from)}>`;

type Failure = Error & { code?: string; responseCode?: number; response?: string };

/** The server could not be reached or would not take anyone's mail: not this message's fault. */
const isServerFailure = (e: Failure): boolean =>
  e.responseCode === 421 ||
  ['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'ETLS', 'EAUTH', 'ENOAUTH', 'EPROXY', 'EABORT', 'ECONFIG'].includes(
    e.code ?? '',
  );

/** RFC 5321: a 5yz reply refuses for good (503 only means the session was out of step). */
const isPermanent = (e: Failure): boolean =>
  e.responseCode !== undefined && e.responseCode >= 500 && e.responseCode < 600 && e.responseCode !== 503;

/**
 * Sends the notifications due by the store's clock, a batch at a time, until none is due or the
 * budget is spent. Each message is claimed first (a lease long enough for its batch), then its
 * outcome recorded: sent, due again after a growing delay, or given up.
 */
export async function sendDueMail(store: Store, clock: Clock, o: SendMailOptions): Promise<MailReport> {
  const log = o.log ?? (() => {});
  const budgetMs = o.budgetMs ?? DEFAULT_BUDGET_MS;
  const limit = Math.max(1, o.limit ?? DEFAULT_LIMIT);
  const from = o.from ?? defaultFrom(o.smtpUrl, process.env);
  const scrub = scrubber(o.smtpUrl);
  const started = Date.now();
  const spent = () => Date.now() - started >= budgetMs;
  // Long enough for every message of a batch to take its whole timeout, with time to record them.
  const leaseMs = limit * SEND_TIMEOUT_MS + 60_000;
  const report: MailReport = { sent: 0, failed: 0, left: false };
  let transport: Transporter | undefined;
  const close = () => {
    transport?.close();
    transport = undefined;
  };
  // One indexed read, not a write transaction, when nothing is due (billing serve asks every second).
  const due = async () => {
    const next = await store.read(() => nextMailDue(clock.now().toISOString(), new Date().toISOString()), 'mail.due');
    return next !== undefined && next <= clock.now().toISOString();
  };
  // A store this process may not write (a read-only SQLite file) cannot record what it sent: send nothing.
  if (store.writeRefusal !== undefined || !(await due())) return report;
  try {
    for (;;) {
      if (spent()) {
        report.left = await due();
        return report;
      }
      const realNow = Date.now();
      const until = new Date(realNow + leaseMs).toISOString();
      const batch = await claimMail(o.claims ?? store, {
        now: clock.now().toISOString(),
        realNow: new Date(realNow).toISOString(),
        until,
        limit,
      });
      if (batch.length === 0) return report;
      const { createTransport } = await import('nodemailer');
      const outcomes: MailOutcome[] = [];
      let stop = false;
      for (const mail of batch) {
        // Not started once the budget is spent, or the server is out: let go, still due.
        if (stop || spent()) {
          outcomes.push({ id: mail.id, skipped: true });
          continue;
        }
        transport ??= createTransport({
          url: o.smtpUrl,
          // One connection for the whole call, reused from message to message.
          pool: true,
          maxConnections: 1,
          connectionTimeout: SEND_TIMEOUT_MS,
          greetingTimeout: SEND_TIMEOUT_MS,
          socketTimeout: SEND_TIMEOUT_MS,
        });
        try {
          await transport.sendMail({
            from,
            to: mail.recipient,
            subject: mail.subject,
            text: mail.body,
            messageId: messageId(mail, from),
            headers: { [NOTIFICATION_HEADER]: String(mail.id), 'Content-Language': mail.language },
            signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
          });
          outcomes.push({ id: mail.id, sent: true });
          report.sent += 1;
          log(`mail: sent notification ${mail.id} to ${mail.recipient}`);
        } catch (e) {
          const failure = e as Failure;
          const error = scrub(failure.message || String(e));
          const server = isServerFailure(failure);
          outcomes.push({ id: mail.id, sent: false, error, permanent: !server && isPermanent(failure) });
          report.failed += 1;
          log(
            `mail: notification ${mail.id} to ${mail.recipient} not sent (attempt ${mail.send_attempts + 1}): ${error}`,
          );
          if (server) {
            // A broken or stuck connection is not used again; the rest of the batch waits for the next turn.
            log(`mail: stopping: the SMTP server ${describeSmtpUrl(o.smtpUrl)} failed`);
            close();
            stop = true;
          }
        }
      }
      await recordMail(store, outcomes, { now: clock.now().toISOString(), until });
      if (stop) return report;
      // A short batch took all that was due when it was claimed (unless the budget cut it short: see the top).
      if (batch.length < limit && !outcomes.some((x) => 'skipped' in x)) return report;
    }
  } finally {
    close();
  }
}
