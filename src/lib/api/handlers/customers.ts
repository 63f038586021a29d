// GET /customers, /customers/{id}, /customers/{id}/subscriptions.
import { findCustomer, findCustomerWithSubscriptionIds, listCustomers } from '../../core/customers.js';
import { subscriptionIdsBy, subscriptionsOf } from '../../core/subscriptions.js';
import type { Unit } from '../../store/unit.js';
import { collectionDocument, customerResource, singleDocument, type Rendering } from '../documents.js';
import { simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { BOOLEAN_FILTER, collectionQuery, filtersOf, sortOf, TEXT_FILTER, type GetQuery } from '../query.js';
import { CUSTOMER_SORT_FIELDS } from '../../schemas/vocabulary.js';
import { includedSubscriptions, listedSubscriptionResources } from './subscriptions.js';
import { idParam, respond, withQuery, type RequestContext } from './context.js';

const INCLUDES = ['subscriptions'] as const;

/** GET /customers: filter[email] (exact, case aside), filter[search] (every word, ranked: core/customers.ts), filter[archived], sort. */
const LIST = collectionQuery({
  include: INCLUDES,
  filter: { email: TEXT_FILTER, search: TEXT_FILTER, archived: BOOLEAN_FILTER },
  sort: CUSTOMER_SORT_FIELDS,
});

export const list = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, LIST, listing);
export const get = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, INCLUDES, one);
export const subscriptions = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, [], subscriptionsOfOne);

function* listing(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const page = yield* listCustomers(rc.core, query.page, { ...filtersOf(query, LIST), sort: sortOf(query, LIST) });
  const { rows } = page;
  const subscriptions = yield* subscriptionIdsBy(
    rc.core,
    'customer_id',
    rows.map((c) => c.id),
  );
  const data = rows.map((c) => customerResource(c, subscriptions.get(c.id)!, r));
  return respond(
    200,
    collectionDocument(
      r,
      '/customers',
      query,
      page,
      data,
      yield* includedSubscriptions(rc, query.include, subscriptions.values(), r),
    ),
  );
}

// The hottest read of all: written flat, every level of generators costs each query a pass through it.
function* one(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  const found = yield* findCustomerWithSubscriptionIds(rc.core, id);
  if (!found) return simpleError(404, `no customer with id ${id}`);
  const included =
    query.include.length === 0
      ? undefined
      : yield* includedSubscriptions(rc, query.include, [found.subscriptionIds], r);
  return respond(200, singleDocument(customerResource(found.customer, found.subscriptionIds, r), included));
}

function* subscriptionsOfOne(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  if (!(yield* findCustomer(rc.core, id))) return simpleError(404, `no customer with id ${id}`);
  const page = yield* subscriptionsOf(rc.core, 'customer_id', id, query.page);
  return respond(
    200,
    collectionDocument(
      r,
      `/customers/${id}/subscriptions`,
      query,
      page,
      yield* listedSubscriptionResources(rc, page.rows, r),
    ),
  );
}
