// GET /subscriptions, /subscriptions/{id}, /subscriptions/{id}/transactions, and the shared pieces
// of the subscription lists of customers and plans.
import { findCustomer } from '../../core/customers.js';
import type { Subscription } from '../../core/customers.js';
import { nowIso, type CoreContext } from '../../core/context.js';
import { getPlan } from '../../core/plans.js';
import { dayAt, midnight } from '../../core/schedule.js';
import { formatInstant } from '../../core/time.js';
import {
  findSubscription,
  findSubscriptionWithTransactions,
  listSubscriptions,
  subscriptionIdsBy,
  subscriptionNames,
  subscriptionsByIds,
  transactionIdsBy,
} from '../../core/subscriptions.js';
import { transactionsOf } from '../../core/transactions.js';
import {
  SUBSCRIPTION_SORT_FIELDS,
  SUBSCRIPTION_STATUSES,
  TRANSACTION_SORT_FIELDS,
  TRANSACTION_STATUSES,
} from '../../schemas/vocabulary.js';
import type { Unit } from '../../store/unit.js';
import {
  collectionDocument,
  customerResource,
  listedSubscription,
  planResource,
  singleDocument,
  subscriptionResource,
  transactionResource,
  type Rendering,
  type ResourceObject,
} from '../documents.js';
import { simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { anyOf, collectionQuery, filtersOf, ID_FILTER, oneOf, sortOf, TEXT_FILTER, type GetQuery } from '../query.js';
import { idParam, respond, withQuery, type RequestContext } from './context.js';

/** GET /subscriptions: filter[status], filter[customer_id], filter[subscription_plan_id], filter[search] (in the mandate code), sort. */
const LIST = collectionQuery({
  include: ['customer'],
  filter: {
    status: oneOf(SUBSCRIPTION_STATUSES),
    customer_id: ID_FILTER,
    subscription_plan_id: ID_FILTER,
    search: TEXT_FILTER,
  },
  sort: SUBSCRIPTION_SORT_FIELDS,
});
// Newest due date first, ids are UUIDs: no keyset (page[after]) here; a subscription has a few dozen.
const TRANSACTIONS = collectionQuery({
  include: [],
  filter: { status: anyOf(TRANSACTION_STATUSES) },
  sort: TRANSACTION_SORT_FIELDS,
  keyset: false,
});

export const list = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, LIST, listing);
export const get = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, ['customer', 'subscription-plan'], one);
export const transactions = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, TRANSACTIONS, transactionsOfOne);

/** Subscription resources with their transaction ids (one query for the page). */
export function* subscriptionResources(rows: Subscription[], r: Rendering): Unit<ResourceObject[]> {
  const ids = yield* transactionIdsBy(rows.map((s) => s.id));
  return rows.map((s) => subscriptionResource(s, ids.get(s.id)!, r));
}

/** The subscriptions of a list, each with its customer's and plan's names in meta (one more query for the page). */
export function* listedSubscriptionResources(
  rc: RequestContext,
  rows: Subscription[],
  r: Rendering,
): Unit<ResourceObject[]> {
  const names = yield* subscriptionNames(
    rc.core,
    rows.map((s) => s.id),
  );
  const data = yield* subscriptionResources(rows, r);
  return data.map((object, i) => listedSubscription(object, names.get(rows[i].id)));
}

function* listing(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const page = yield* listSubscriptions(rc.core, query.page, { ...filtersOf(query, LIST), sort: sortOf(query, LIST) });
  const { rows } = page;
  const data = yield* listedSubscriptionResources(rc, rows, r);
  const included = query.include.includes('customer')
    ? yield* includedCustomers(
        rc,
        rows.map((s) => s.customer_id),
        r,
      )
    : undefined;
  return respond(200, collectionDocument(r, '/subscriptions', query, page, data, included));
}

function* one(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  const found = yield* findSubscriptionWithTransactions(rc.core, id);
  if (!found) return simpleError(404, `no subscription with id ${id}`);
  const { subscription } = found;
  let included: ResourceObject[] | undefined;
  if (query.include.length) {
    included = [];
    if (query.include.includes('customer'))
      included.push(...(yield* includedCustomers(rc, [subscription.customer_id], r)));
    if (query.include.includes('subscription-plan')) {
      const plan = yield* getPlan(rc.core, subscription.subscription_plan_id);
      const ids = yield* subscriptionIdsBy(rc.core, 'subscription_plan_id', [subscription.subscription_plan_id]);
      if (plan.ok) included.push(planResource(plan.value, ids.get(plan.value.id)!, r));
    }
  }
  return respond(200, singleDocument(subscriptionResource(subscription, found.transactionIds, r), included), {
    [TODAY_HEADER]: today(rc.core),
  });
}

/**
 * An extension: the GET of one subscription names the first instant of the account's day by the
 * store's clock (a test time too), so a client can refuse a cancel_date before today without
 * sending it (billing subscriptions cancel --on does, before it asks).
 */
const TODAY_HEADER = 'billing-today';

const today = (ctx: CoreContext): string => {
  const zone = ctx.account.time_zone;
  return formatInstant(midnight(dayAt(nowIso(ctx), zone), zone), zone);
};

/** The customers of a page, each once, with their subscription ids (include=customer). */
export function* includedCustomers(rc: RequestContext, ids: number[], r: Rendering): Unit<ResourceObject[]> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  const subscriptionIds = yield* subscriptionIdsBy(rc.core, 'customer_id', unique);
  const found: ResourceObject[] = [];
  for (const id of unique) {
    const customer = yield* findCustomer(rc.core, id);
    if (customer) found.push(customerResource(customer, subscriptionIds.get(id)!, r));
  }
  return found;
}

function* transactionsOfOne(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const id = idParam(rc);
  if (!(yield* findSubscription(rc.core, id))) return simpleError(404, `no subscription with id ${id}`);
  const page = yield* transactionsOf(id, query.page, {
    ...filtersOf(query, TRANSACTIONS),
    sort: sortOf(query, TRANSACTIONS),
  });
  return respond(
    200,
    collectionDocument(
      r,
      `/subscriptions/${id}/transactions`,
      query,
      page,
      page.rows.map((t) => transactionResource(t, r)),
    ),
  );
}

/** The `included` array for `include=subscriptions` on customers or plans, or undefined. */
export function* includedSubscriptions(
  rc: RequestContext,
  include: string[],
  idLists: Iterable<number[]>,
  r: Rendering,
): Unit<ResourceObject[] | undefined> {
  if (!include.includes('subscriptions')) return undefined;
  return yield* subscriptionResources(yield* subscriptionsByIds(rc.core, [...idLists].flat()), r);
}
