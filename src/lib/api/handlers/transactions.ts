// GET /transactions/{id} and GET /notifications (reads; the writes are in transaction-writes.ts).
import { listNotifications } from '../../core/notifications.js';
import { findTransaction } from '../../core/transactions.js';
import type { Unit } from '../../store/unit.js';
import {
  collectionDocument,
  notificationResource,
  singleDocument,
  transactionResource,
  type Rendering,
} from '../documents.js';
import { simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { collectionQuery, filtersOf, ID_FILTER, type GetQuery } from '../query.js';
import { respond, withQuery, type RequestContext } from './context.js';

export const get = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, [], one);

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

export const notifications = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, NOTIFICATIONS, listing);

function* listing(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
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
