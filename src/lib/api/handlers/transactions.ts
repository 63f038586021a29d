// GET /transactions, /transactions/{id} and GET /notifications (reads; the writes are in transaction-writes.ts).
import { listNotifications } from '../../core/notifications.js';
import { findTransaction, listTransactions } from '../../core/transactions.js';
import { TRANSACTION_SORT_FIELDS, TRANSACTION_STATUSES } from '../../schemas/vocabulary.js';
import type { Unit } from '../../store/unit.js';
import {
  collectionDocument,
  listedTransactionResource,
  notificationResource,
  singleDocument,
  transactionResource,
  type Rendering,
} from '../documents.js';
import { simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import {
  anyOf,
  collectionQuery,
  DAY_FILTER,
  filtersOf,
  ID_FILTER,
  ID_PREFIX_FILTER,
  sortOf,
  type FilterKind,
  type GetQuery,
} from '../query.js';
import { respond, withQuery, type RequestContext } from './context.js';

export const get = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, [], one);

/** A SEPA reason code: four letters and digits, in either case (the bank's may be any, known or not). */
const REASON_CODE_FILTER: FilterKind<string> = {
  expects: 'a SEPA reason code: 4 letters and digits, e.g. AM04',
  parse: (raw) => (/^[A-Za-z0-9]{4}$/.test(raw.trim()) ? raw.trim().toUpperCase() : undefined),
};

/**
 * GET /transactions (an extension: the hosted service lists transactions per subscription only):
 * the account's, newest due date first. Not in id order (ids are UUIDs, the order is by due date),
 * so paged by number, as a subscription's transactions are: page[after] is refused.
 */
const LIST = collectionQuery({
  include: [],
  filter: {
    status: anyOf(TRANSACTION_STATUSES),
    reason_code: REASON_CODE_FILTER,
    due_from: DAY_FILTER,
    due_to: DAY_FILTER,
    customer_id: ID_FILTER,
    subscription_id: ID_FILTER,
    id_prefix: ID_PREFIX_FILTER,
  },
  sort: TRANSACTION_SORT_FIELDS,
  keyset: false,
});

export const list = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, LIST, listing);

function* listing(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const page = yield* listTransactions(rc.core, query.page, { ...filtersOf(query, LIST), sort: sortOf(query, LIST) });
  const data = page.rows.map((t) => listedTransactionResource(t, r));
  return respond(200, collectionDocument(r, '/transactions', query, page, data));
}

function* one(rc: RequestContext, _query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = rc.params.uuid;
  const found = yield* findTransaction(rc.core, id);
  if (!found) return simpleError(404, `no transaction with id ${id}`);
  return respond(200, singleDocument(transactionResource(found, r)));
}

/** GET /notifications (an extension of this implementation): the messages recorded for customers. */
const NOTIFICATIONS = collectionQuery({
  include: [],
  filter: { customer_id: ID_FILTER, subscription_id: ID_FILTER },
  sort: [],
});

export const notifications = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, NOTIFICATIONS, notificationList);

function* notificationList(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const page = yield* listNotifications(rc.core, query.page, filtersOf(query, NOTIFICATIONS));
  return respond(
    200,
    collectionDocument(
      r,
      '/notifications',
      query,
      page,
      page.rows.map((n) => notificationResource(n, r)),
    ),
  );
}
