// GET /subscription-plans, /subscription-plans/{id}, /subscription-plans/{id}/subscriptions.
import { getPlan, listPlans } from '../../core/plans.js';
import { subscriptionIdsBy, subscriptionsOf } from '../../core/subscriptions.js';
import { collectionDocument, planResource, singleDocument, subscriptionResource } from '../documents.js';
import type { ApiResponse } from '../http.js';
import { includedSubscriptions } from './subscriptions.js';
import { idParam, respond, unwrap, withQuery, type RequestContext } from './context.js';

export function list(rc: RequestContext): ApiResponse {
  return withQuery(rc, ['subscriptions'], (query, r) => {
    const { rows, total } = listPlans(rc.core, query.page);
    const subscriptions = subscriptionIdsBy(rc.core, 'subscription_plan_id', rows.map((p) => p.id));
    const data = rows.map((p) => planResource(p, subscriptions.get(p.id)!, r));
    return respond(200, collectionDocument(r, '/subscription-plans', query, total, data, includedSubscriptions(rc, query.include, subscriptions.values(), r)));
  });
}

export function get(rc: RequestContext): ApiResponse {
  return withQuery(rc, [], (_query, r) =>
    unwrap(getPlan(rc.core, idParam(rc)), null, (plan) => {
      const subscriptions = subscriptionIdsBy(rc.core, 'subscription_plan_id', [plan.id]).get(plan.id)!;
      return respond(200, singleDocument(planResource(plan, subscriptions, r)));
    }),
  );
}

export function subscriptions(rc: RequestContext): ApiResponse {
  return withQuery(rc, [], (query, r) =>
    unwrap(getPlan(rc.core, idParam(rc)), null, (plan) => {
      const { rows, total } = subscriptionsOf(rc.core, 'subscription_plan_id', plan.id, query.page);
      return respond(200, collectionDocument(r, `/subscription-plans/${plan.id}/subscriptions`, query, total, rows.map((s) => subscriptionResource(s, r))));
    }),
  );
}
