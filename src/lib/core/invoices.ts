// Reading invoices and their lines. Writes live in invoice-writes.ts and line-writes.ts.
import { sql } from 'kysely';
import type { InvoiceSortField, InvoiceStatus } from '../schemas/vocabulary.js';
import type { InvoiceLineRow, InvoiceRow } from '../store/schema.js';
import { all, get, prepared, type Unit } from '../store/unit.js';
import type { Account, CoreContext } from './context.js';
import { codeOrCustomer, type Customer } from './customers.js';
import {
  findPage,
  ID_KEY,
  orderOf,
  pageOf,
  type AnyExpressionBuilder,
  type Condition,
  type PageOf,
  type PageRequest,
  type Sort,
  type SortKey,
} from './paging.js';

export type Invoice = Omit<InvoiceRow, 'id'> & { id: number };
export type InvoiceLine = Omit<InvoiceLineRow, 'id'> & { id: number };

/** Which invoices, in which order (filter[...] and sort of GET /invoices). */
export interface InvoiceFind {
  status?: InvoiceStatus;
  customer_id?: number;
  subscription_id?: number;
  /** Text inside the reference of a finalised invoice, case aside (A-Z), or words of its customer (a draft has no reference). */
  search?: string;
  /** Credit invoices owed to the customer and not yet marked refunded (true), or the others (false). */
  refund_due?: boolean;
  sort?: Sort<InvoiceSortField>;
}

const SORT_KEYS: ReadonlyMap<InvoiceSortField, SortKey> = new Map<InvoiceSortField, SortKey>([
  ['id', ID_KEY],
  ['created_at', { column: 'created_at', as: 'value' }], // invoices_created
  ['invoice_date', { column: 'invoice_date', as: 'value' }], // invoices_date
]);

export function listInvoices(ctx: CoreContext, page: PageRequest, find: InvoiceFind = {}): Unit<PageOf<Invoice>> {
  const where: Condition[] = [];
  const { status, customer_id, subscription_id, search } = find;
  if (status !== undefined) where.push({ where: (eb) => eb('status', '=', status) }); // invoices_status
  if (customer_id !== undefined) where.push({ selective: true, where: (eb) => eb('customer_id', '=', customer_id) }); // invoices_customer
  if (subscription_id !== undefined)
    where.push({ selective: true, where: (eb) => eb('subscription_id', '=', subscription_id) }); // invoices_subscription
  if (search !== undefined) where.push(codeOrCustomer(ctx.account.id, 'reference', search));
  if (find.refund_due !== undefined) {
    const due = find.refund_due;
    where.push({ where: (eb) => (due ? refundDueWhere(eb) : eb.not(refundDueWhere(eb))) });
  }
  return findPage('invoices', ctx.account.id, page, { where, order: orderOf(SORT_KEYS, find.sort) });
}

/**
 * A refund is due on a credit invoice (one naming an original) that is finalised below zero and not
 * yet marked refunded, while its original was collected: paid, or open with its transaction
 * collected. A credit of an invoice never collected (cancelled, charged back, open and not yet
 * collected) owes the customer nothing: it cancels a debt instead. Read on the row, not stored: the
 * original's collection may still fail, and then nothing is owed.
 */
const refundDueWhere = (eb: AnyExpressionBuilder) =>
  eb.and([
    eb('status', '=', 'completed'),
    eb('refunded_on', 'is', null),
    eb(sql`amount_excl_cents + tax_amount_cents`, '<', 0),
    eb.exists(
      eb
        .selectFrom('invoices as o')
        .leftJoin('transactions as t', 't.id', 'o.transaction_id')
        .select(sql`1`.as('one'))
        .whereRef('o.id', '=', 'invoices.original_invoice_id')
        .where((w) =>
          w.or([
            w('o.status', '=', 'paid'),
            w.and([w('o.status', '=', 'open'), w('t.status', 'in', ['succeeded', 'fulfilled'])]),
          ]),
        ),
    ),
  ]);

/** Whether a refund is due on the invoice (as refundDueWhere, for one row). */
export function* refundDue(ctx: CoreContext, invoice: Invoice): Unit<boolean> {
  const row = yield* get((q) =>
    q
      .selectFrom('invoices')
      .select('id')
      .where('id', '=', invoice.id)
      .where('account_id', '=', ctx.account.id)
      .where((eb) => refundDueWhere(eb as unknown as AnyExpressionBuilder)),
  );
  return row !== undefined;
}

const byId = prepared<Invoice, [number, number]>('invoices.find', (q, p) =>
  q.selectFrom('invoices').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)),
);

export function findInvoice(ctx: CoreContext, id: number): Unit<Invoice | undefined> {
  return byId.get(id, ctx.account.id);
}

/** Line ids per invoice (the invoice-lines relationship), in one query for a page of invoices. */
export function* lineIdsBy(invoiceIds: number[]): Unit<Map<number, number[]>> {
  const byInvoice = new Map<number, number[]>(invoiceIds.map((id) => [id, []]));
  if (invoiceIds.length === 0) return byInvoice;
  for (const row of yield* all((q) =>
    q
      .selectFrom('invoice_lines')
      .select(['id', 'invoice_id'])
      .where('invoice_id', 'in', invoiceIds)
      .orderBy('invoice_id')
      .orderBy('id'),
  )) {
    byInvoice.get(row.invoice_id)?.push(row.id);
  }
  return byInvoice;
}

/** An invoice with the ids of its lines (the GET of one invoice, and the answer to a write). */
export function* findInvoiceWithLines(
  ctx: CoreContext,
  id: number,
): Unit<{ invoice: Invoice; lineIds: number[] } | undefined> {
  const invoice = yield* byId.get(id, ctx.account.id);
  if (!invoice) return undefined;
  return { invoice, lineIds: (yield* lineIdsBy([id])).get(id)! };
}

export function linesOf(ctx: CoreContext, invoiceId: number, page: PageRequest): Unit<PageOf<InvoiceLine>> {
  return pageOf('invoice_lines', ctx.account.id, page, { column: 'invoice_id', value: invoiceId });
}

const lineById = prepared<InvoiceLine, [number, number]>('invoice-lines.find', (q, p) =>
  q.selectFrom('invoice_lines').selectAll().where('id', '=', p(0)).where('account_id', '=', p(1)),
);

export function findLine(ctx: CoreContext, id: number): Unit<InvoiceLine | undefined> {
  return lineById.get(id, ctx.account.id);
}

/** The printable page of a finalised invoice (billing serve serves it): the token is the secret, so the id is not in it. */
export const hostedInvoiceUrl = (baseUrl: string, invoice: Pick<Invoice, 'hosted_token'>): string | null =>
  invoice.hosted_token === null ? null : `${baseUrl}/invoice/${invoice.hosted_token}`;

/** What an invoice's hosted page shows, read in one snapshot. */
export interface HostedInvoice {
  invoice: Invoice;
  lines: InvoiceLine[];
  customer: Customer;
  account: Account;
  /** The reference of the invoice a credit note credits. */
  originalReference: string | null;
}

// The token is unique (an index): one indexed lookup; a finalised invoice never changes, so the
// page's rows are read in one snapshot and need no lock.
const byToken = prepared<Invoice, [string]>('pages.invoice', (q, p) =>
  q.selectFrom('invoices').selectAll().where('hosted_token', '=', p(0)),
);
const customerById = prepared<Customer, [number]>('pages.invoice.customer', (q, p) =>
  q.selectFrom('customers').selectAll().where('id', '=', p(0)),
);
const accountById = prepared<Account, [number]>('pages.invoice.account', (q, p) =>
  q.selectFrom('accounts').selectAll().where('id', '=', p(0)),
);
const referenceById = prepared<{ reference: string | null }, [number]>('pages.invoice.original', (q, p) =>
  q.selectFrom('invoices').select('reference').where('id', '=', p(0)),
);

export function* findHostedInvoice(token: string): Unit<HostedInvoice | undefined> {
  const invoice = yield* byToken.get(token);
  // Only a finalised invoice has a page (a draft has no token; this guards the rule).
  if (!invoice || invoice.status === 'draft') return undefined;
  const lines = (yield* all((q) =>
    q.selectFrom('invoice_lines').selectAll().where('invoice_id', '=', invoice.id).orderBy('id'),
  )) as InvoiceLine[];
  const customer = yield* customerById.get(invoice.customer_id);
  const account = yield* accountById.get(invoice.account_id);
  if (!customer || !account) return undefined;
  const originalReference =
    invoice.original_invoice_id === null
      ? null
      : ((yield* referenceById.get(invoice.original_invoice_id))?.reference ?? null);
  return { invoice, lines, customer, account, originalReference };
}
