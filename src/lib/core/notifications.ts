// Customer notifications: kept in the store as messages in the customer's language, listable by an
// operator. Sending them (SMTP) is optional configuration, not a condition of recording them.
import type { NotificationRow } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { all, get, run, type MaybePromise, type Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import type { Customer } from './customers.js';
import type { Recipient } from './invoice-rules.js';
import type { Inv, Sub, Txn } from './ledger.js';
import { formatAmount } from '../schemas/money.js';
import { findPage, type Condition, type PageOf, type PageRequest } from './paging.js';
import type { Plan } from './plans.js';

export type Notification = Omit<NotificationRow, 'id'> & { id: number };

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** The path of the page where the customer accepts the mandate (billing serve's): the token is the credential. */
export const confirmationPath = (id: number, token: string): string => `/mandate/accept/${id}/${token}`;
export const confirmationPage = (baseUrl: string, id: number, token: string): string =>
  baseUrl + confirmationPath(id, token);

/** A new message's sending state: one with an email address is due to be sent (when SMTP is set up). */
const unsent = (email: string | null, now: string) => ({
  sent_at: null,
  send_attempts: 0,
  send_error: null,
  next_send_at: email ? now : null,
  claimed_until: null,
});

type Words = { subject: string; body: (name: string, plan: string, url: string) => string };

const MANDATE_CONFIRMATION: Record<string, Words> = {
  nl: {
    subject: 'Bevestig je machtiging',
    body: (n, p, u) => `Beste ${n},\n\nBevestig de machtiging voor ${p} op ${u}\n`,
  },
  'nl-be': {
    subject: 'Bevestig uw domiciliëring',
    body: (n, p, u) => `Beste ${n},\n\nBevestig de domiciliëring voor ${p} op ${u}\n`,
  },
  en: {
    subject: 'Please confirm your mandate',
    body: (n, p, u) => `Dear ${n},\n\nPlease confirm the direct debit mandate for ${p} at ${u}\n`,
  },
  de: {
    subject: 'Bitte bestätigen Sie Ihr Mandat',
    body: (n, p, u) => `Guten Tag ${n},\n\nbitte bestätigen Sie das Lastschriftmandat für ${p} unter ${u}\n`,
  },
  fr: {
    subject: 'Veuillez confirmer votre mandat',
    body: (n, p, u) => `Bonjour ${n},\n\nVeuillez confirmer le mandat de prélèvement pour ${p} sur ${u}\n`,
  },
};

/** The mandate confirmation of a new subscription: by the plan's channel, in the customer's language. */
export function mandateConfirmation(
  ctx: CoreContext,
  customer: Customer,
  plan: Plan,
  sub: Sub,
  now: string,
): Omit<NotificationRow, 'id'> {
  const words = MANDATE_CONFIRMATION[customer.language] ?? MANDATE_CONFIRMATION.nl;
  const name = [customer.first_name, customer.middle_name, customer.last_name].filter(Boolean).join(' ');
  const channel = plan.mandate_authentication_method;
  const url = confirmationPage(ctx.baseUrl ?? DEFAULT_BASE_URL, sub.id, sub.confirmation_token);
  return {
    account_id: ctx.account.id,
    customer_id: customer.id,
    subscription_id: sub.id,
    kind: 'mandate_confirmation',
    channel,
    language: customer.language,
    // A text goes to the telephone; every other channel starts with an email.
    recipient: channel === 'sms' ? (customer.telephone ?? null) : customer.email,
    subject: words.subject,
    body: words.body(name, plan.name, url),
    created_at: now,
    ...unsent(channel === 'sms' ? null : customer.email, now),
  };
}

type InvoiceWords = {
  subject: (reference: string) => string;
  body: (name: string, reference: string, total: string, url: string) => string;
};

const INVOICE: Record<string, InvoiceWords> = {
  nl: {
    subject: (r) => `Factuur ${r}`,
    body: (n, r, t, u) => `Beste ${n},\n\nHierbij factuur ${r} over € ${t}. Bekijk en print hem op ${u}\n`,
  },
  'nl-be': {
    subject: (r) => `Factuur ${r}`,
    body: (n, r, t, u) =>
      `Beste ${n},\n\nHierbij factuur ${r} ten bedrage van € ${t}. U kunt ze bekijken en afdrukken op ${u}\n`,
  },
  en: {
    subject: (r) => `Invoice ${r}`,
    body: (n, r, t, u) => `Dear ${n},\n\nPlease find invoice ${r} for € ${t}. View and print it at ${u}\n`,
  },
  de: {
    subject: (r) => `Rechnung ${r}`,
    body: (n, r, t, u) => `Guten Tag ${n},\n\nanbei Rechnung ${r} über € ${t}. Ansehen und drucken unter ${u}\n`,
  },
  fr: {
    subject: (r) => `Facture ${r}`,
    body: (n, r, t, u) =>
      `Bonjour ${n},\n\nVoici la facture ${r} d'un montant de € ${t}. Consultez-la et imprimez-la sur ${u}\n`,
  },
};

/** The email of a finalised invoice, in the customer's language, with the link to its printable page. */
export function invoiceEmail(invoice: Inv, customer: Recipient, url: string, now: string): Omit<NotificationRow, 'id'> {
  const words = INVOICE[customer.language] ?? INVOICE.nl;
  const name = [customer.first_name, customer.middle_name, customer.last_name].filter(Boolean).join(' ');
  const reference = invoice.reference!;
  return {
    account_id: invoice.account_id,
    customer_id: invoice.customer_id,
    subscription_id: invoice.subscription_id,
    kind: 'invoice',
    channel: 'email',
    language: customer.language,
    recipient: customer.email,
    subject: words.subject(reference),
    body: words.body(name, reference, formatAmount(invoice.amount_excl_cents + invoice.tax_amount_cents), url),
    created_at: now,
    ...unsent(customer.email, now),
  };
}

type NoticeWords = {
  subject: string;
  body: (name: string, amount: string, date: string, description: string, mandate: string, creditor: string) => string;
  date: (day: string) => string;
};

const [dmy, dotted, slashed] = [
  (d: string) => `${d.slice(8)}-${d.slice(5, 7)}-${d.slice(0, 4)}`,
  (d: string) => `${d.slice(8)}.${d.slice(5, 7)}.${d.slice(0, 4)}`,
  (d: string) => `${d.slice(8)}/${d.slice(5, 7)}/${d.slice(0, 4)}`,
];

const PRENOTIFICATION: Record<string, NoticeWords> = {
  nl: {
    subject: 'Aankondiging incasso',
    date: dmy,
    body: (n, a, d, t, m, c) =>
      `Beste ${n},\n\nOp ${d} schrijven wij € ${a} van je rekening af voor ${t} (machtiging ${m}${c}).\n`,
  },
  'nl-be': {
    subject: 'Aankondiging domiciliëring',
    date: dmy,
    body: (n, a, d, t, m, c) =>
      `Beste ${n},\n\nOp ${d} innen wij € ${a} via domiciliëring voor ${t} (mandaat ${m}${c}).\n`,
  },
  en: {
    subject: 'Your direct debit is coming',
    date: (d) => d,
    body: (n, a, d, t, m, c) =>
      `Dear ${n},\n\nOn ${d} we will collect € ${a} by direct debit for ${t} (mandate ${m}${c}).\n`,
  },
  de: {
    subject: 'Vorabankündigung Ihrer Lastschrift',
    date: dotted,
    body: (n, a, d, t, m, c) =>
      `Guten Tag ${n},\n\nam ${d} buchen wir € ${a} per Lastschrift für ${t} ab (Mandat ${m}${c}).\n`,
  },
  fr: {
    subject: 'Pré-notification de prélèvement',
    date: slashed,
    body: (n, a, d, t, m, c) => `Bonjour ${n},\n\nLe ${d}, nous prélèverons € ${a} pour ${t} (mandat ${m}${c}).\n`,
  },
};

/** Who is notified of a collection, and through what: the customer, the mandate, the plan's channel and the creditor. */
export interface NoticeFor {
  customer: Recipient & { telephone: string | null };
  mandateCode: string;
  channel: string;
  creditorName: string | null;
  creditorId: string | null;
}

/**
 * The pre-notification of a SEPA collection: its amount, date and text, the mandate and the
 * creditor, in the customer's language, by the channel of the mandate confirmation.
 */
export function preNotification(
  tx: Pick<Txn, 'account_id' | 'subscription_id' | 'amount_cents' | 'description'>,
  day: string,
  o: NoticeFor,
  now: string,
): Omit<NotificationRow, 'id'> {
  const { customer, channel } = o;
  const words = PRENOTIFICATION[customer.language] ?? PRENOTIFICATION.nl;
  const name = [customer.first_name, customer.middle_name, customer.last_name].filter(Boolean).join(' ');
  const creditor = o.creditorId ? `; ${[o.creditorName, o.creditorId].filter(Boolean).join(' ')}` : '';
  const email = channel === 'sms' ? null : customer.email;
  return {
    account_id: tx.account_id,
    customer_id: customer.id,
    subscription_id: tx.subscription_id,
    kind: 'prenotification',
    channel,
    language: customer.language,
    recipient: channel === 'sms' ? customer.telephone : customer.email,
    subject: words.subject,
    body: words.body(
      name,
      formatAmount(tx.amount_cents),
      words.date(day),
      tx.description ?? '',
      o.mandateCode,
      creditor,
    ),
    created_at: now,
    ...unsent(email, now),
  };
}

export interface NotificationFind {
  customer_id?: number;
  subscription_id?: number;
}

export function listNotifications(
  ctx: CoreContext,
  page: PageRequest,
  find: NotificationFind = {},
): Unit<PageOf<Notification>> {
  const where: Condition[] = [];
  const { customer_id, subscription_id } = find;
  if (customer_id !== undefined) where.push({ where: (eb) => eb('customer_id', '=', customer_id) });
  if (subscription_id !== undefined) where.push({ where: (eb) => eb('subscription_id', '=', subscription_id) });
  return findPage('notifications', ctx.account.id, page, { where });
}

// ---- sending by email: claim, then record (as the webhook outbox does, see outbox.ts) ----

/**
 * Seconds to wait after each failed attempt. The attempt after the last wait is the last one: when
 * it fails too, the message is given up (next_send_at null, its send_error kept).
 */
export const SEND_DELAYS_S = [60, 300, 1_800, 7_200, 21_600] as const;
export const MAX_SEND_ATTEMPTS = SEND_DELAYS_S.length + 1;

/**
 * Messages first due longer ago than this are not sent: a store that kept messages for months
 * before SMTP was configured must not mail them all at once. Retries of a message that was tried
 * in time are due within it anyway (the delays add up to less).
 */
export const SEND_WINDOW_MS = 86_400_000;

/** A claimed message: what goes into the email, and what identifies it across retries. */
export type ClaimedMail = Pick<
  Notification,
  'id' | 'subject' | 'body' | 'language' | 'created_at' | 'send_attempts'
> & { recipient: string };

export interface MailClaim {
  /** The store's clock now: messages due by then. */
  now: string;
  /** Real time now, and until when the claim holds (a sender that dies lets its messages go then). */
  realNow: string;
  /** Also the claim's token: only the sender whose claim it still is records a failure. */
  until: string;
  limit: number;
}

const windowStart = (now: string): string => new Date(Date.parse(now) - SEND_WINDOW_MS).toISOString();

/**
 * Claims up to `limit` messages due to be sent by email and not held by another sender. On
 * PostgreSQL several instances claim at once without waiting for each other (SKIP LOCKED), each
 * message to one of them. The range on next_send_at keeps the claim on the partial index however
 * many old messages were never sent.
 */
export function claimMail(store: Store, o: MailClaim): MaybePromise<ClaimedMail[]> {
  const from = windowStart(o.now);
  return store.work(function* () {
    const rows = yield* all((q, d) =>
      d.locked(
        q
          .selectFrom('notifications')
          .select(['id', 'recipient', 'subject', 'body', 'language', 'created_at', 'send_attempts'])
          .where('next_send_at', '<=', o.now)
          .where('next_send_at', '>=', from)
          .where('recipient', 'is not', null)
          .where((eb) => eb.or([eb('created_at', '>=', from), eb('send_attempts', '>', 0)]))
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', o.realNow)]))
          .orderBy('next_send_at')
          .orderBy('id')
          .limit(o.limit),
        true,
      ),
    );
    if (rows.length === 0) return [];
    yield* run((q) =>
      q
        .updateTable('notifications')
        .set({ claimed_until: o.until })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        ),
    );
    return rows as ClaimedMail[];
  });
}

/** What sending one claimed message came to. */
export type MailOutcome =
  | { id: number; sent: true }
  /** permanent: the server refused this message for good (a 5xx reply): no retry. */
  | { id: number; sent: false; error: string; permanent?: boolean }
  /** Not tried (the run stopped first): the claim is let go, the message stays due. */
  | { id: number; skipped: true };

/**
 * Records what became of messages sent under a claim: sent; due again after the next delay; given
 * up after the last attempt or a permanent refusal; or let go untried. A message sent is recorded
 * as sent even when this sender outlived its claim (the recipient has it); anything else only while
 * the claim is still this sender's.
 */
export function recordMail(
  store: Store,
  outcomes: readonly MailOutcome[],
  o: { now: string; until: string },
): MaybePromise<unknown> {
  return store.write(function* () {
    for (const outcome of outcomes) {
      if ('skipped' in outcome) {
        yield* run((q) =>
          q
            .updateTable('notifications')
            .set({ claimed_until: null })
            .where('id', '=', outcome.id)
            .where('claimed_until', '=', o.until),
        );
        continue;
      }
      if (outcome.sent) {
        yield* run((q) =>
          q
            .updateTable('notifications')
            .set((eb) => ({
              sent_at: o.now,
              send_attempts: eb('send_attempts', '+', 1),
              send_error: null,
              next_send_at: null,
              claimed_until: null,
            }))
            .where('id', '=', outcome.id)
            .where('sent_at', 'is', null),
        );
        continue;
      }
      const row = yield* get((q) =>
        q
          .selectFrom('notifications')
          .select(['send_attempts', 'claimed_until', 'sent_at'])
          .where('id', '=', outcome.id),
      );
      if (!row || row.sent_at !== null || row.claimed_until !== o.until) continue;
      const made = row.send_attempts + 1;
      const last = outcome.permanent || made >= MAX_SEND_ATTEMPTS;
      const next = last ? null : new Date(Date.parse(o.now) + SEND_DELAYS_S[made - 1] * 1000).toISOString();
      yield* run((q) =>
        q
          .updateTable('notifications')
          .set({
            send_attempts: made,
            send_error: outcome.error.slice(0, 500),
            next_send_at: next,
            claimed_until: null,
          })
          .where('id', '=', outcome.id),
      );
    }
  });
}

/** The earliest time a message not held by a sender is due to be sent (by the store's clock), for a sender deciding how long to sleep. */
export function* nextMailDue(now: string, realNow: string): Unit<string | undefined> {
  const from = windowStart(now);
  const [row] = yield* all((q) =>
    q
      .selectFrom('notifications')
      .select('next_send_at')
      .where('next_send_at', '>=', from)
      .where('recipient', 'is not', null)
      .where((eb) => eb.or([eb('created_at', '>=', from), eb('send_attempts', '>', 0)]))
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', realNow)]))
      .orderBy('next_send_at')
      .orderBy('id')
      .limit(1),
  );
  return row?.next_send_at ?? undefined;
}
