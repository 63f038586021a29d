// POST /customers, PATCH /customers/{id}. Loaded only when a request writes (it brings zod).
import { createCustomer, updateCustomer, type CustomerWithSubscriptions } from '../../core/customer-writes.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { readDocument } from '../body.js';
import { customerResource, singleDocument } from '../documents.js';
import { failureResponse } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { respond, unwrap, type RequestContext } from './context.js';

const render = (rc: RequestContext, status: number) => ({ customer, subscriptionIds }: CustomerWithSubscriptions) => {
  const document = singleDocument(customerResource(customer, subscriptionIds, { baseUrl: rc.baseUrl, timeZone: rc.core.account.time_zone }));
  return respond(status, document, status === 201 ? { location: document.data.links.self } : {});
};

export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const document = readDocument(rc.body, 'customer');
  if (!document.ok) return failureResponse(document.failure, document.original);
  return andThen(createCustomer(rc.core, document.value.attributes), (result) => unwrap(result, document.original, render(rc, 201)));
}

export function update(rc: RequestContext): MaybePromise<ApiResponse> {
  const document = readDocument(rc.body, 'customer', rc.params.id);
  if (!document.ok) return failureResponse(document.failure, document.original);
  return andThen(updateCustomer(rc.core, Number(rc.params.id), document.value.attributes), (result) => unwrap(result, document.original, render(rc, 200)));
}
