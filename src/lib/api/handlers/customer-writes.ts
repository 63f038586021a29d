// POST /customers, PATCH /customers/{id}. Loaded only when a request writes (it brings zod).
import { createCustomer, updateCustomer } from '../../core/customer-writes.js';
import { customerResource, singleDocument } from '../documents.js';
import { failureResponse } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { readDocument } from '../body.js';
import { subscriptionIdsBy } from '../../core/subscriptions.js';
import { respond, unwrap, type RequestContext } from './context.js';

const render = (rc: RequestContext, status: number) => (customer: Parameters<typeof customerResource>[0]) => {
  const subscriptions = subscriptionIdsBy(rc.core, 'customer_id', [customer.id]).get(customer.id)!;
  const document = singleDocument(customerResource(customer, subscriptions, { baseUrl: rc.baseUrl, timeZone: rc.core.account.time_zone }));
  return respond(status, document, status === 201 ? { location: document.data.links.self } : {});
};

export function create(rc: RequestContext): ApiResponse {
  const document = readDocument(rc.body, 'customer');
  if (!document.ok) return failureResponse(document.failure, document.original);
  return unwrap(createCustomer(rc.core, document.value.attributes), document.original, render(rc, 201));
}

export function update(rc: RequestContext): ApiResponse {
  const document = readDocument(rc.body, 'customer', rc.params.id);
  if (!document.ok) return failureResponse(document.failure, document.original);
  return unwrap(updateCustomer(rc.core, Number(rc.params.id), document.value.attributes), document.original, render(rc, 200));
}
