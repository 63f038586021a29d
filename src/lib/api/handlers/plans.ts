// GET /subscription-plans, /subscription-plans/{id}, /subscription-plans/{id}/subscriptions.
import { getPlan, listPlans } from '../../core/plans.js';
import { subscriptionIdsBy, subscriptionsOf } from '../../core/subscriptions.js';
import type { Unit } from '../../store/unit.js';
import { collectionDocument, planResource, singleDocument, type Rendering } from '../documents.js';
import { failureResponse } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { BOOLEAN_FILTER, collectionQuery, filtersOf, oneOf, sortOf, TEXT_FILTER, type GetQuery } from '../query.js';
import { PLAN_SORT_FIELDS, PLAN_STATUSES } from '../../schemas/vocabulary.js';
import { includedSubscriptions, listedSubscriptionResources } from './subscriptions.js';
import { idParam, respond, withQuery, type RequestContext } from './context.js';

/** GET /subscription-plans: filter[status] (active or inactive), filter[archived], filter[search] (in the name), sort. */
const LIST = collectionQuery({
  include: ['subscriptions'],
  filter: { status: oneOf(PLAN_STATUSES), archived: BOOLEAN_FILTER, search: TEXT_FILTER },
  sort: PLAN_SORT_FIELDS,
});

export const list = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, LIST, listing);
export const get = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, [], one);
export const subscriptions = (rc: RequestContext): Unit<ApiResponse> => withQuery(rc, [], subscriptionsOfOne);

function* listing(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const page = yield* listPlans(rc.core, query.page, { ...filtersOf(query, LIST), sort: sortOf(query, LIST) });
  const { rows } = page;
  const subscriptions = yield* subscriptionIdsBy(
    rc.core,
    'subscription_plan_id',
    rows.map((p) => p.id),
  );
  const data = rows.map((p) => planResource(p, subscriptions.get(p.id)!, r));
  return respond(
    200,
    collectionDocument(
      r,
      '/subscription-plans',
      query,
      page,
      data,
      yield* includedSubscriptions(rc, query.include, subscriptions.values(), r),
    ),
  );
}

function* one(rc: RequestContext, _query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const found = yield* getPlan(rc.core, idParam(rc));
  if (!found.ok) return failureResponse(found.failure, null);
  const subscriptions = (yield* subscriptionIdsBy(rc.core, 'subscription_plan_id', [found.value.id])).get(
    found.value.id,
  )!;
  return respond(200, singleDocument(planResource(found.value, subscriptions, r)));
}

function* subscriptionsOfOne(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const found = yield* getPlan(rc.core, idParam(rc));
  if (!found.ok) return failureResponse(found.failure, null);
  const plan = found.value;
  const page = yield* subscriptionsOf(rc.core, 'subscription_plan_id', plan.id, query.page);
  return respond(
    200,
    collectionDocument(
      r,
      `/subscription-plans/${plan.id}/subscriptions`,
      query,
      page,
      yield* listedSubscriptionResources(rc, page.rows, r),
    ),
  );
}
