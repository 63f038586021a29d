// POST /customers, PATCH /customers/{id}. Loaded only when a request writes (it brings zod).
import { createCustomer, updateCustomer, type CustomerWithSubscriptions } from '../../core/customer-writes.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { readDocument, type RequestDocument } from '../body.js';
import { customerResource, singleDocument } from '../documents.js';
import { failureResponse } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { parseGetQuery, type GetQuery } from '../query.js';
import { respond, unwrap, type RequestContext } from './context.js';

const render = (rc: RequestContext, query: GetQuery, status: number) => ({ customer, subscriptionIds }: CustomerWithSubscriptions) => {
  const document = singleDocument(customerResource(customer, subscriptionIds, { baseUrl: rc.baseUrl, timeZone: rc.core.account.time_zone, fields: query.fields }));
  return respond(status, document, status === 201 ? { location: document.data.links.self } : {});
};

/**
 * The document, then the query: a write takes fields[TYPE] for its answer (and page[...], which
 * means nothing here); include, filter, sort and any unknown parameter are refused like on a GET.
 */
function read(rc: RequestContext, id?: string): { document: RequestDocument; query: GetQuery } | ApiResponse {
  const document = readDocument(rc.body, 'customer', id);
  if (!document.ok) return failureResponse(document.failure, document.original);
  const query = parseGetQuery(rc.query, []);
  if (!query.ok) return failureResponse(query.failure, document.original);
  return { document: document.value, query: query.value };
}

export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = read(rc);
  if ('status' in request) return request;
  const { document, query } = request;
  return andThen(createCustomer(rc.core, document.attributes), (result) => unwrap(result, document.original, render(rc, query, 201)));
}

export function update(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = read(rc, rc.params.id);
  if ('status' in request) return request;
  const { document, query } = request;
  return andThen(updateCustomer(rc.core, Number(rc.params.id), document.attributes), (result) => unwrap(result, document.original, render(rc, query, 200)));
}
