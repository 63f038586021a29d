// POST /subscriptions, PATCH /subscriptions/{id}. Loaded only when a request writes.
import { createSubscription, updateSubscription, type SubscriptionWithTransactions } from '../../core/subscription-writes.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { singleDocument, subscriptionResource, type Rendering } from '../documents.js';
import type { ApiResponse } from '../http.js';
import { respond, unwrap, type RequestContext } from './context.js';
import { readWrite, refused } from './writes.js';

const render = (r: Rendering, status: number) => ({ subscription, transactionIds }: SubscriptionWithTransactions) => {
  const document = singleDocument(subscriptionResource(subscription, transactionIds, r));
  return respond(status, document, status === 201 ? { location: document.data.links.self } : {});
};

export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'subscription');
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(createSubscription(rc.core, document.attributes), (result) => unwrap(result, document.original, render(rendering, 201)));
}

export function update(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'subscription', rc.params.id);
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(updateSubscription(rc.core, Number(rc.params.id), document.attributes), (result) => unwrap(result, document.original, render(rendering, 200)));
}
