// GET /subscription-plans, /subscription-plans/{id}, /subscription-plans/{id}/subscriptions.
import { getPlan, listPlans } from '../../core/plans.js';
import { subscriptionIdsBy, subscriptionsOf } from '../../core/subscriptions.js';
import type { Unit } from '../../store/unit.js';
import { collectionDocument, planResource, singleDocument, subscriptionResource } from '../documents.js';
import type { ApiResponse } from '../http.js';
import { includedSubscriptions } from './subscriptions.js';
import { idParam, respond, unwrapUnit, withQuery, type RequestContext } from './context.js';

export function list(rc: RequestContext): Unit<ApiResponse> {
  return withQuery(rc, ['subscriptions'], function* (query, r) {
    const { rows, total } = yield* listPlans(rc.core, query.page);
    const subscriptions = yield* subscriptionIdsBy(rc.core, 'subscription_plan_id', rows.map((p) => p.id));
    const data = rows.map((p) => planResource(p, subscriptions.get(p.id)!, r));
    return respond(200, collectionDocument(r, '/subscription-plans', query, total, data, yield* includedSubscriptions(rc, query.include, subscriptions.values(), r)));
  });
}

export function get(rc: RequestContext): Unit<ApiResponse> {
  return withQuery(rc, [], function* (_query, r) {
    return yield* unwrapUnit(yield* getPlan(rc.core, idParam(rc)), null, function* (plan) {
      const subscriptions = (yield* subscriptionIdsBy(rc.core, 'subscription_plan_id', [plan.id])).get(plan.id)!;
      return respond(200, singleDocument(planResource(plan, subscriptions, r)));
    });
  });
}

export function subscriptions(rc: RequestContext): Unit<ApiResponse> {
  return withQuery(rc, [], function* (query, r) {
    return yield* unwrapUnit(yield* getPlan(rc.core, idParam(rc)), null, function* (plan) {
      const { rows, total } = yield* subscriptionsOf(rc.core, 'subscription_plan_id', plan.id, query.page);
      return respond(200, collectionDocument(r, `/subscription-plans/${plan.id}/subscriptions`, query, total, rows.map((s) => subscriptionResource(s, r))));
    });
  });
}
