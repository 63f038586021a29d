// POST /customers, PATCH /customers/{id}. Loaded only when a request writes (it brings zod).
import { createCustomer, updateCustomer, type CustomerWithSubscriptions } from '../../core/customer-writes.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { customerResource, singleDocument, type Rendering } from '../documents.js';
import type { ApiResponse } from '../http.js';
import { respond, unwrap, type RequestContext } from './context.js';
import { readWrite, refused } from './writes.js';

const render =
  (r: Rendering, status: number) =>
  ({ customer, subscriptionIds }: CustomerWithSubscriptions) => {
    const document = singleDocument(customerResource(customer, subscriptionIds, r));
    return respond(status, document, status === 201 ? { location: document.data.links.self } : {});
  };

export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'customer');
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(createCustomer(rc.core, document.attributes), (result) =>
    unwrap(result, document.original, render(rendering, 201)),
  );
}

export function update(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'customer', rc.params.id);
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(updateCustomer(rc.core, Number(rc.params.id), document.attributes), (result) =>
    unwrap(result, document.original, render(rendering, 200)),
  );
}
