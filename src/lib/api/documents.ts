// JSON:API documents: resource objects for each type, and the single and collection documents.
import { amountNumber, formatAmount } from '../schemas/money.js';
import { hostedInvoiceUrl } from '../core/invoices.js';
import { confirmationPage } from '../core/notifications.js';
import { formatInstant, formatNullableInstant } from '../core/time.js';
import { eventName } from '../core/outbox.js';
import type { CollectionView } from '../core/collections.js';
import { midnight } from '../core/schedule.js';
import { reasonText } from '../sepa/reasons.js';
import type { Report, Row as ReportRow } from '../core/reports/index.js';
import { formatShare, REPORTS, type ColumnKind } from '../schemas/reports.js';
import type {
  BankReportRow,
  EventRow,
  WebhookDeliveryRow,
  CustomerRow,
  InvoiceLineRow,
  InvoiceRow,
  NotificationRow,
  PlanRow,
  SubscriptionRow,
  TransactionRow,
} from '../store/schema.js';
import { afterUrl, pageUrl, type GetQuery } from './query.js';
import type { PageOf } from '../core/paging.js';
import type { ListedTransaction } from '../core/transactions.js';
import type { CustomerName } from '../core/customers.js';
import type { SubscriptionNames } from '../core/subscriptions.js';
import type { ResourceType } from '../schemas/vocabulary.js';

type Row<T> = Omit<T, 'id'> & { id: number };

export interface Identifier {
  type: string;
  id: string;
}

export interface ResourceObject extends Identifier {
  links: { self: string };
  attributes: Record<string, unknown>;
  relationships?: Record<string, { links?: { related: string }; data?: Identifier | Identifier[] | null }>;
  /** What this implementation adds to a resource of the hosted service (a mandate needing attention). */
  meta?: Record<string, unknown>;
}

/** How resources are written for one request: the public base URL, the account's zone, sparse fields. */
export interface Rendering {
  baseUrl: string;
  timeZone: string;
  fields?: GetQuery['fields'];
}

const PATHS: Record<ResourceType, string> = {
  customer: 'customers',
  subscription: 'subscriptions',
  'subscription-plan': 'subscription-plans',
  transaction: 'transactions',
  notification: 'notifications',
  invoice: 'invoices',
  'invoice-line': 'invoice-lines',
  event: 'events',
  'webhook-delivery': 'webhook-deliveries',
  collection: 'collections',
  'bank-report': 'bank-reports',
};

function resource(
  type: ResourceType,
  id: number | string,
  attributes: Record<string, unknown>,
  r: Rendering,
  relationships?: ResourceObject['relationships'],
): ResourceObject {
  const wanted = r.fields?.[type];
  const self = `${r.baseUrl}/${PATHS[type]}/${id}`;
  const object: ResourceObject = { type, id: String(id), links: { self }, attributes };
  if (!wanted) {
    if (relationships) object.relationships = relationships;
    return object;
  }
  // A sparse fieldset names attributes and relationships alike; a resource left without any
  // relationship has no relationships member.
  for (const name of Object.keys(attributes)) if (!wanted.has(name)) delete attributes[name];
  if (relationships) {
    for (const name of Object.keys(relationships)) if (!wanted.has(name)) delete relationships[name];
    if (Object.keys(relationships).length) object.relationships = relationships;
  }
  return object;
}

const ids = (type: ResourceType, list: number[]): Identifier[] => list.map((id) => ({ type, id: String(id) }));

export function customerResource(row: Row<CustomerRow>, subscriptionIds: number[], r: Rendering): ResourceObject {
  const { timeZone: tz } = r;
  return resource(
    'customer',
    row.id,
    {
      gender: row.gender,
      first_name: row.first_name,
      middle_name: row.middle_name,
      last_name: row.last_name,
      company_name: row.company_name,
      vat_number: row.vat_number,
      bank_holder: row.bank_holder,
      iban: row.iban,
      payment_method: row.payment_method,
      bank_verification_method: row.bank_verification_method,
      card_holder: row.card_holder,
      card_number: row.card_number,
      postalcode: row.postalcode,
      house_number: row.house_number,
      house_number_add: row.house_number_add,
      street: row.street,
      city: row.city,
      country_iso2: row.country_iso2,
      language: row.language,
      email: row.email,
      telephone: row.telephone,
      archived: row.archived === 1,
      created_at: formatInstant(row.created_at, tz),
      updated_at: formatInstant(row.updated_at, tz),
    },
    r,
    {
      subscriptions: {
        links: { related: `${r.baseUrl}/customers/${row.id}/subscriptions` },
        data: ids('subscription', subscriptionIds),
      },
    },
  );
}

export function planResource(row: Row<PlanRow>, subscriptionIds: number[], r: Rendering): ResourceObject {
  const { timeZone: tz } = r;
  return resource(
    'subscription-plan',
    row.id,
    {
      name: row.name,
      description: row.description,
      start_date: formatInstant(row.start_date, tz),
      status: row.status,
      mandate_authentication_method: row.mandate_authentication_method,
      send_invoice: row.send_invoice === 1,
      storno_retries: row.storno_retries,
      terms: row.terms,
      archived: row.archived === 1,
      amount: formatAmount(row.amount_cents),
      frequency: row.frequency,
      created_at: formatInstant(row.created_at, tz),
      updated_at: formatInstant(row.updated_at, tz),
    },
    r,
    {
      subscriptions: {
        links: { related: `${r.baseUrl}/subscription-plans/${row.id}/subscriptions` },
        data: ids('subscription', subscriptionIds),
      },
    },
  );
}

export function subscriptionResource(
  row: Row<SubscriptionRow>,
  transactionIds: readonly string[],
  r: Rendering,
): ResourceObject {
  const { timeZone: tz } = r;
  const object = resource(
    'subscription',
    row.id,
    {
      mandate_code: row.mandate_code,
      mandate_accepted: row.mandate_accepted === 1,
      mandate_accepted_date: formatNullableInstant(row.mandate_accepted_date, tz),
      start_date: formatInstant(row.start_date, tz),
      status: row.status,
      cancel_date: formatNullableInstant(row.cancel_date, tz),
      resume_date: formatNullableInstant(row.resume_date, tz),
      confirmation_page: confirmationPage(r.baseUrl, row.id, row.confirmation_token),
      confirmation_sent: row.confirmation_sent === 1,
      subscription_webhook_url: row.subscription_webhook_url,
      transaction_webhook_url: row.transaction_webhook_url,
      success_redirect_url: row.success_redirect_url,
      metadata: row.metadata === null ? null : JSON.parse(row.metadata),
      archived: row.archived === 1,
      created_at: formatInstant(row.created_at, tz),
      updated_at: formatInstant(row.updated_at, tz),
    },
    r,
    {
      'subscription-plan': {
        links: { related: `${r.baseUrl}/subscription-plans/${row.subscription_plan_id}` },
        data: { type: 'subscription-plan', id: String(row.subscription_plan_id) },
      },
      customer: {
        links: { related: `${r.baseUrl}/customers/${row.customer_id}` },
        data: { type: 'customer', id: String(row.customer_id) },
      },
      transactions: {
        links: { related: `${r.baseUrl}/subscriptions/${row.id}/transactions` },
        data: transactionIds.map((id) => ({ type: 'transaction', id })),
      },
    },
  );
  // An extension: the bank refused a collection for a reason no retry cures (SEPA).
  if (row.mandate_attention) {
    object.meta = {
      mandate_attention: {
        reason_code: row.mandate_attention,
        reason: reasonText(row.mandate_attention) ?? null,
        flagged_at: formatNullableInstant(row.mandate_attention_on, tz),
      },
    };
  }
  return object;
}

interface StoredHistoryItem {
  attempt: number;
  reason: string | null;
  reason_code: string | null;
  recorded_on: string;
  status: string;
  new_due_date: string | null;
}

/** A transaction: no relationships (the hosted service shows none); amount a number of euro, as it sends it. */
export function transactionResource(row: Omit<TransactionRow, 'seq'>, r: Rendering): ResourceObject {
  const { timeZone: tz } = r;
  const history = (JSON.parse(row.history) as StoredHistoryItem[]).map((item) => ({
    attempt: item.attempt,
    reason: item.reason,
    reason_code: item.reason_code,
    recorded_on: formatInstant(item.recorded_on, tz),
    status: item.status,
    new_due_date: formatNullableInstant(item.new_due_date, tz),
  }));
  return resource(
    'transaction',
    row.id,
    {
      status: row.status,
      scheduled_on: formatNullableInstant(row.scheduled_on, tz),
      due_date: formatInstant(row.due_date, tz),
      amount: amountNumber(row.amount_cents),
      canceled_on: formatNullableInstant(row.canceled_on, tz),
      webhook_url: row.webhook_url,
      payment_method: row.payment_method,
      description: row.description,
      history,
    },
    r,
  );
}

/** A customer's name as the lists show it: "Jan van der Geer". */
const personName = (name: CustomerName): string =>
  [name.first_name, name.middle_name, name.last_name].filter(Boolean).join(' ');

const named = (id: number, name: string) => ({ id: String(id), name });

/**
 * A subscription of a list (GET /subscriptions, a customer's or a plan's), and in its meta (an
 * extension) whose it is and on which plan, by name: a list of ids tells a person nothing.
 */
export function listedSubscription(object: ResourceObject, names: SubscriptionNames | undefined): ResourceObject {
  if (names)
    object.meta = {
      ...object.meta,
      customer: named(names.customer_id, personName(names)),
      plan: named(names.plan_id, names.plan_name),
    };
  return object;
}

/** An invoice of a list (GET /invoices), and in its meta (an extension) its customer by name. */
export function listedInvoice(
  object: ResourceObject,
  customerId: number,
  name: CustomerName | undefined,
): ResourceObject {
  if (name) object.meta = { ...object.meta, customer: named(customerId, personName(name)) };
  return object;
}

/**
 * A transaction of the account's list (GET /transactions, an extension): the hosted service's
 * attributes unchanged, and in meta what a list of failed collections needs beside them: the
 * customer (its id and name) and the last SEPA reason code of the history, with its text.
 */
export function listedTransactionResource(row: ListedTransaction, r: Rendering): ResourceObject {
  const object = transactionResource(row, r);
  object.meta = {
    customer: named(row.customer_id, personName(row)),
    reason_code: row.reason_code,
    reason: row.reason_code === null ? null : (reasonText(row.reason_code) ?? null),
  };
  return object;
}

/** A status change as it was recorded (GET /events, an extension of this implementation). */
export function eventResource(row: Row<EventRow>, r: Rendering): ResourceObject {
  return resource(
    'event',
    row.id,
    {
      event: eventName(row),
      subscription_id: String(row.subscription_id),
      transaction_id: row.transaction_id,
      status: row.status,
      occurred_at: formatInstant(row.occurred_at, r.timeZone),
      uid: row.uid,
    },
    r,
  );
}

/** One event's delivery to one URL (GET /webhook-deliveries): its state, tries and the last answer. */
export function deliveryResource(row: Row<WebhookDeliveryRow>, r: Rendering): ResourceObject {
  return resource(
    'webhook-delivery',
    row.id,
    {
      event: row.event,
      event_uid: row.event_uid,
      delivery_id: row.delivery_id,
      url: row.url,
      body: row.body,
      status: row.status,
      attempts: row.attempts,
      next_attempt_at: row.status === 'pending' ? formatInstant(row.next_at, r.timeZone) : null,
      last_status: row.last_status,
      last_error: row.last_error,
      delivered_at: formatNullableInstant(row.delivered_at, r.timeZone),
      created_at: formatInstant(row.created_at, r.timeZone),
      updated_at: formatInstant(row.updated_at, r.timeZone),
    },
    r,
  );
}

export function notificationResource(row: Row<NotificationRow>, r: Rendering): ResourceObject {
  return resource(
    'notification',
    row.id,
    {
      kind: row.kind,
      channel: row.channel,
      language: row.language,
      recipient: row.recipient,
      subject: row.subject,
      body: row.body,
      created_at: formatInstant(row.created_at, r.timeZone),
      // By email, when SMTP is configured: when it went, how many tries, the last failure's reason.
      sent_at: formatNullableInstant(row.sent_at, r.timeZone),
      send_attempts: row.send_attempts,
      send_error: row.send_error,
    },
    r,
    {
      customer: {
        links: { related: `${r.baseUrl}/customers/${row.customer_id}` },
        data: { type: 'customer', id: String(row.customer_id) },
      },
      subscription: {
        links: { related: `${r.baseUrl}/subscriptions/${row.subscription_id}` },
        data: { type: 'subscription', id: String(row.subscription_id) },
      },
    },
  );
}

/** An invoice as the hosted service shows it: money as decimal strings, DRAFT until finalised, related links for subscription, customer and lines. */
export function invoiceResource(row: Row<InvoiceRow>, lineIds: readonly number[], r: Rendering): ResourceObject {
  const { timeZone: tz } = r;
  const self = `${r.baseUrl}/invoices/${row.id}`;
  return resource(
    'invoice',
    row.id,
    {
      status: row.status,
      reference: row.reference ?? 'DRAFT',
      amount_excl: formatAmount(row.amount_excl_cents),
      amount_incl: formatAmount(row.amount_excl_cents + row.tax_amount_cents),
      tax_rates: (JSON.parse(row.tax_rates) as [number, number][]).map(([rate, cents]) => ({
        amount: formatAmount(cents),
        rate: formatAmount(rate),
      })),
      tax_amount: formatAmount(row.tax_amount_cents),
      invoice_date: formatNullableInstant(row.invoice_date, tz),
      transaction_date: formatNullableInstant(row.transaction_date, tz),
      hosted_invoice_url: hostedInvoiceUrl(r.baseUrl, row),
      send_email: row.send_email === 1,
      refunded_on: formatNullableInstant(row.refunded_on, tz),
      created_at: formatInstant(row.created_at, tz),
      updated_at: formatInstant(row.updated_at, tz),
    },
    r,
    {
      subscription: {
        links: { related: `${self}/subscription` },
        data: { type: 'subscription', id: String(row.subscription_id) },
      },
      customer: { links: { related: `${self}/customer` }, data: { type: 'customer', id: String(row.customer_id) } },
      'invoice-lines': { links: { related: `${self}/lines` }, data: ids('invoice-line', lineIds as number[]) },
      transaction: { data: row.transaction_id === null ? null : { type: 'transaction', id: row.transaction_id } },
      'original-invoice': {
        data: row.original_invoice_id === null ? null : { type: 'invoice', id: String(row.original_invoice_id) },
      },
    },
  );
}

/** An invoice line: unit amounts and the rate as decimal strings; no relationships (the hosted service shows none). */
export function lineResource(row: Row<InvoiceLineRow>, r: Rendering): ResourceObject {
  const { timeZone: tz } = r;
  return resource(
    'invoice-line',
    row.id,
    {
      description: row.description,
      amount_excl: formatAmount(row.unit_excl_cents),
      amount_incl: formatAmount(row.unit_excl_cents + row.unit_tax_cents),
      tax_rate: formatAmount(row.tax_rate),
      tax_amount: formatAmount(row.unit_tax_cents),
      tax_included: row.tax_included === 1,
      quantity: row.quantity,
      created_at: formatInstant(row.created_at, tz),
      updated_at: formatInstant(row.updated_at, tz),
    },
    r,
  );
}

/** A collection batch (an extension: SEPA): its file's totals and blocks, and what the bank said of its items. */
export function collectionResource({ batch, blocks, outcomes }: CollectionView, r: Rendering): ResourceObject {
  const { timeZone: tz } = r;
  const day = (d: string) => formatInstant(midnight(d, tz), tz);
  return resource(
    'collection',
    batch.id,
    {
      status: batch.status,
      message_id: batch.message_id,
      due_until: day(batch.due_until),
      transactions: batch.transaction_count,
      control_sum: formatAmount(batch.control_sum_cents),
      blocks: blocks.map((b) => ({
        collection_date: day(b.collection_date),
        sequence_type: b.sequence_type,
        transactions: b.count,
        control_sum: formatAmount(b.control_sum_cents),
      })),
      outcomes: { ...outcomes },
      creditor:
        batch.creditor_id === null
          ? null
          : { id: batch.creditor_id, name: batch.creditor_name, iban: batch.creditor_iban, bic: batch.creditor_bic },
      exported_at: formatNullableInstant(batch.exported_at, tz),
      cancelled_at: formatNullableInstant(batch.cancelled_at, tz),
      created_at: formatInstant(batch.created_at, tz),
      updated_at: formatInstant(batch.updated_at, tz),
    },
    r,
  );
}

/** A bank report applied (an extension: SEPA): what its entries came to, and those that matched no collection. */
export function bankReportResource(row: Row<BankReportRow>, r: Rendering): ResourceObject {
  return resource(
    'bank-report',
    row.id,
    {
      format: row.format,
      message_id: row.message_id,
      entries: row.entries,
      booked: row.booked,
      rejected: row.rejected,
      returned: row.returned,
      unchanged: row.unchanged,
      unmatched: row.unmatched,
      unmatched_entries: JSON.parse(row.unmatched_entries),
      created_at: formatInstant(row.created_at, r.timeZone),
    },
    r,
  );
}

export interface SingleDocument {
  links: { self: string };
  data: ResourceObject;
  included?: ResourceObject[];
}

export function singleDocument(data: ResourceObject, included?: ResourceObject[]): SingleDocument {
  const document: SingleDocument = { links: { self: data.links.self }, data };
  if (included) document.included = included;
  return document;
}

export interface CollectionDocument {
  /** Left out of a keyset page, which counts nothing (see PageOf.total). */
  meta?: { total: number };
  links: { self: string; first: string; last: string | null; prev: string | null; next: string | null };
  data: ResourceObject[];
  included?: ResourceObject[];
}

export function collectionDocument(
  r: Rendering,
  path: string,
  query: GetQuery,
  page: Pick<PageOf<unknown>, 'total' | 'more'>,
  data: ResourceObject[],
  included?: ResourceObject[],
): CollectionDocument {
  const { number, after } = query.page;
  if (after !== undefined) {
    // A keyset page: next is the page after its last id; it goes forward only (prev null) and,
    // uncounted, does not know its last page (null).
    const url = (id: number | string) => afterUrl(r.baseUrl, path, query, id);
    const keyset: CollectionDocument = {
      links: {
        self: url(after),
        first: url(0),
        last: null,
        prev: null,
        next: page.more && data.length ? url(data[data.length - 1].id) : null,
      },
      data,
    };
    if (included) keyset.included = included;
    return keyset;
  }
  const total = page.total!;
  const last = Math.max(1, Math.ceil(total / query.page.size));
  const url = (n: number) => pageUrl(r.baseUrl, path, query, n);
  const document: CollectionDocument = {
    meta: { total },
    links: {
      self: url(number),
      first: url(1),
      last: url(last),
      prev: number > 1 ? url(Math.min(number - 1, last)) : null,
      next: number < last ? url(number + 1) : null,
    },
    data,
  };
  if (included) document.included = included;
  return document;
}

const writeValue: Record<ColumnKind, (value: number | string) => unknown> = {
  text: (value) => value,
  money: (value) => formatAmount(value as number),
  count: (value) => value,
  days: (value) => value,
  rate: (value) => formatShare(value as number),
  percent: (value) => formatAmount(value as number),
};

export interface ReportDocument {
  links: { self: string };
  /** The report's figures: they are no resources (no identity, nothing to fetch alone), so they are meta. */
  meta: Record<string, unknown>;
}

/**
 * GET /reports/{name}: the report's range and its rows in meta (rows: the main table, and beside
 * it reasons or customers where the report has them), each value written as its column's kind says.
 */
export function reportDocument(report: Report, self: string, r: Rendering): ReportDocument {
  const meta: Record<string, unknown> = {
    report: report.name,
    from: report.from,
    to: report.to,
    by: report.by,
    time_zone: r.timeZone,
    as_of: formatInstant(report.asOf, r.timeZone),
  };
  for (const table of REPORTS[report.name].tables) {
    const rows: ReportRow[] = report.rows[table.name] ?? [];
    const written = (kind: ColumnKind, value: ReportRow[string] | undefined) =>
      value === null || value === undefined ? null : writeValue[kind](value);
    meta[table.name === 'data' ? 'rows' : table.name] = rows.map((row) =>
      Object.fromEntries(table.columns.map((c) => [c.name, written(c.kind, row[c.name])])),
    );
  }
  return { links: { self }, meta };
}
