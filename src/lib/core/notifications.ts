// Customer notifications: kept in the store as messages in the customer's language, listable by an
// operator. Sending them (SMTP) is optional configuration, not a condition of recording them.
import type { NotificationRow } from '../store/schema.js';
import type { Unit } from '../store/unit.js';
import type { CoreContext } from './context.js';
import type { Customer } from './customers.js';
import type { Inv, Sub } from './lifecycle.js';
import type { Recipient } from './invoicing.js';
import { formatAmount } from '../schemas/money.js';
import { findPage, type Condition, type PageOf, type PageRequest } from './paging.js';
import type { Plan } from './plans.js';

export type Notification = Omit<NotificationRow, 'id'> & { id: number };

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** The page where the customer accepts the mandate (served by billing serve). */
export const confirmationPage = (baseUrl: string, id: number, mandateCode: string): string => `${baseUrl}/mandate/accept/${id}/${encodeURIComponent(mandateCode)}`;

/** A new message's sending state: one with an email address is due to be sent (when SMTP is set up). */
const unsent = (email: string | null, now: string) => ({ sent_at: null, send_attempts: 0, send_error: null, next_send_at: email ? now : null, claimed_until: null });

type Words = { subject: string; body: (name: string, plan: string, url: string) => string };

const MANDATE_CONFIRMATION: Record<string, Words> = {
  nl: { subject: 'Bevestig je machtiging', body: (n, p, u) => `Beste ${n},\n\nBevestig de machtiging voor ${p} op ${u}\n` },
  'nl-be': { subject: 'Bevestig uw domiciliëring', body: (n, p, u) => `Beste ${n},\n\nBevestig de domiciliëring voor ${p} op ${u}\n` },
  en: { subject: 'Please confirm your mandate', body: (n, p, u) => `Dear ${n},\n\nPlease confirm the direct debit mandate for ${p} at ${u}\n` },
  de: { subject: 'Bitte bestätigen Sie Ihr Mandat', body: (n, p, u) => `Guten Tag ${n},\n\nbitte bestätigen Sie das Lastschriftmandat für ${p} unter ${u}\n` },
  fr: { subject: 'Veuillez confirmer votre mandat', body: (n, p, u) => `Bonjour ${n},\n\nVeuillez confirmer le mandat de prélèvement pour ${p} sur ${u}\n` },
};

/** The mandate confirmation of a new subscription: by the plan's channel, in the customer's language. */
export function mandateConfirmation(ctx: CoreContext, customer: Customer, plan: Plan, sub: Sub, now: string): Omit<NotificationRow, 'id'> {
  const words = MANDATE_CONFIRMATION[customer.language] ?? MANDATE_CONFIRMATION.nl;
  const name = [customer.first_name, customer.middle_name, customer.last_name].filter(Boolean).join(' ');
  const channel = plan.mandate_authentication_method;
  const url = confirmationPage(ctx.baseUrl ?? DEFAULT_BASE_URL, sub.id, sub.mandate_code);
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

type InvoiceWords = { subject: (reference: string) => string; body: (name: string, reference: string, total: string, url: string) => string };

const INVOICE: Record<string, InvoiceWords> = {
  nl: { subject: (r) => `Factuur ${r}`, body: (n, r, t, u) => `Beste ${n},\n\nHierbij factuur ${r} over € ${t}. Bekijk en print hem op ${u}\n` },
  'nl-be': { subject: (r) => `Factuur ${r}`, body: (n, r, t, u) => `Beste ${n},\n\nHierbij factuur ${r} ten bedrage van € ${t}. U kunt ze bekijken en afdrukken op ${u}\n` },
  en: { subject: (r) => `Invoice ${r}`, body: (n, r, t, u) => `Dear ${n},\n\nPlease find invoice ${r} for € ${t}. View and print it at ${u}\n` },
  de: { subject: (r) => `Rechnung ${r}`, body: (n, r, t, u) => `Guten Tag ${n},\n\nanbei Rechnung ${r} über € ${t}. Ansehen und drucken unter ${u}\n` },
  fr: { subject: (r) => `Facture ${r}`, body: (n, r, t, u) => `Bonjour ${n},\n\nVoici la facture ${r} d'un montant de € ${t}. Consultez-la et imprimez-la sur ${u}\n` },
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

export interface NotificationFind {
  customer_id?: number;
  subscription_id?: number;
}

export function listNotifications(ctx: CoreContext, page: PageRequest, find: NotificationFind = {}): Unit<PageOf<Notification>> {
  const where: Condition[] = [];
  const { customer_id, subscription_id } = find;
  if (customer_id !== undefined) where.push({ where: (eb) => eb('customer_id', '=', customer_id) });
  if (subscription_id !== undefined) where.push({ where: (eb) => eb('subscription_id', '=', subscription_id) });
  return findPage('notifications', ctx.account.id, page, { where });
}
