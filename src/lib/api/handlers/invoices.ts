// GET /invoices, /invoices/{id} and its lines, subscription and customer, and /invoice-lines/{id}
// (reads; the writes are in invoice-writes.ts).
import { customerNames, findCustomerWithSubscriptionIds } from '../../core/customers.js';
import { findInvoice, findInvoiceWithLines, findLine, lineIdsBy, linesOf, listInvoices } from '../../core/invoices.js';
import { findSubscriptionWithTransactions, subscriptionsByIds } from '../../core/subscriptions.js';
import { INVOICE_SORT_FIELDS, INVOICE_STATUSES } from '../../schemas/vocabulary.js';
import type { Unit } from '../../store/unit.js';
import {
  collectionDocument,
  customerResource,
  invoiceResource,
  lineResource,
  listedInvoice,
  singleDocument,
  subscriptionResource,
  type Rendering,
} from '../documents.js';
import { simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import {
  BOOLEAN_FILTER,
  collectionQuery,
  filtersOf,
  ID_FILTER,
  oneOf,
  sortOf,
  TEXT_FILTER,
  type GetQuery,
} from '../query.js';
import { idParam, respond, withQuery, type RequestContext } from './context.js';
import { includedCustomers, subscriptionResources } from './subscriptions.js';

/**
 * GET /invoices: filter[status|customer_id|subscription_id|search] (in the reference, or the
 * customer's words), filter[refund_due] (credit invoices owed to the customer), sort,
 * include=subscriptions and customer.
 */
const LIST = collectionQuery({
  include: ['subscriptions', 'subscription', 'customer'],
  filter: {
    status: oneOf(INVOICE_STATUSES),
    customer_id: ID_FILTER,
    subscription_id: ID_FILTER,
    search: TEXT_FILTER,
    refund_due: BOOLEAN_FILTER,
  },
  sort: INVOICE_SORT_FIELDS,
});
const LINES = collectionQuery({ include: [], filter: {}, sort: [] });

export const list = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, LIST, listing);
export const get = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, ['subscription', 'subscriptions'], one);
export const lines = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, LINES, linesOfOne);
export const subscription = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, [], subscriptionOfOne);
export const customer = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, [], customerOfOne);
export const line = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, [], oneLine);

const includesSubscriptions = (query: GetQuery) =>
  query.include.includes('subscriptions') || query.include.includes('subscription');

function* listing(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const page = yield* listInvoices(rc.core, query.page, { ...filtersOf(query, LIST), sort: sortOf(query, LIST) });
  const { rows } = page;
  const lineIds = yield* lineIdsBy(rows.map((i) => i.id));
  // Whose each invoice is, by name in its meta (an extension): one more query for the page.
  const names = yield* customerNames(
    rc.core,
    rows.map((i) => i.customer_id),
  );
  const data = rows.map((i) =>
    listedInvoice(invoiceResource(i, lineIds.get(i.id)!, r), i.customer_id, names.get(i.customer_id)),
  );
  const subscriptions = includesSubscriptions(query)
    ? yield* subscriptionResources(
        yield* subscriptionsByIds(rc.core, [...new Set(rows.map((i) => i.subscription_id))]),
        r,
      )
    : [];
  // Whose each invoice is: a draft has no reference to tell it by.
  const customers = query.include.includes('customer')
    ? yield* includedCustomers(
        rc,
        rows.map((i) => i.customer_id),
        r,
      )
    : [];
  const included = query.include.length ? [...subscriptions, ...customers] : undefined;
  return respond(200, collectionDocument(r, '/invoices', query, page, data, included));
}

function* one(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  const found = yield* findInvoiceWithLines(rc.core, id);
  if (!found) return simpleError(404, `no invoice with id ${id}`);
  const included = includesSubscriptions(query)
    ? yield* subscriptionResources(yield* subscriptionsByIds(rc.core, [found.invoice.subscription_id]), r)
    : undefined;
  return respond(200, singleDocument(invoiceResource(found.invoice, found.lineIds, r), included));
}

function* linesOfOne(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  if (!(yield* findInvoice(rc.core, id))) return simpleError(404, `no invoice with id ${id}`);
  const page = yield* linesOf(rc.core, id, query.page);
  return respond(
    200,
    collectionDocument(
      r,
      `/invoices/${id}/lines`,
      query,
      page,
      page.rows.map((l) => lineResource(l, r)),
    ),
  );
}

function* subscriptionOfOne(rc: RequestContext, _query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  const invoice = yield* findInvoice(rc.core, id);
  if (!invoice) return simpleError(404, `no invoice with id ${id}`);
  const found = (yield* findSubscriptionWithTransactions(rc.core, invoice.subscription_id))!;
  return respond(200, singleDocument(subscriptionResource(found.subscription, found.transactionIds, r)));
}

function* customerOfOne(rc: RequestContext, _query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  const invoice = yield* findInvoice(rc.core, id);
  if (!invoice) return simpleError(404, `no invoice with id ${id}`);
  const found = (yield* findCustomerWithSubscriptionIds(rc.core, invoice.customer_id))!;
  return respond(200, singleDocument(customerResource(found.customer, found.subscriptionIds, r)));
}

function* oneLine(rc: RequestContext, _query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  const found = yield* findLine(rc.core, id);
  if (!found) return simpleError(404, `no invoice line with id ${id}`);
  return respond(200, singleDocument(lineResource(found, r)));
}
