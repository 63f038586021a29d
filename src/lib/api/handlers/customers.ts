// GET /customers, /customers/{id}, /customers/{id}/subscriptions.
import { findCustomer, getCustomer, listCustomers } from '../../core/customers.js';
import { subscriptionIdsBy, subscriptionsOf } from '../../core/subscriptions.js';
import { collectionDocument, customerResource, singleDocument, subscriptionResource } from '../documents.js';
import { simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { includedSubscriptions } from './subscriptions.js';
import { idParam, respond, unwrap, withQuery, type RequestContext } from './context.js';

const INCLUDES = ['subscriptions'] as const;

export function list(rc: RequestContext): ApiResponse {
  return withQuery(rc, INCLUDES, (query, r) => {
    const { rows, total } = listCustomers(rc.core, query.page);
    const subscriptions = subscriptionIdsBy(rc.core, 'customer_id', rows.map((c) => c.id));
    const data = rows.map((c) => customerResource(c, subscriptions.get(c.id)!, r));
    return respond(200, collectionDocument(r, '/customers', query, total, data, includedSubscriptions(rc, query.include, subscriptions.values(), r)));
  });
}

export function get(rc: RequestContext): ApiResponse {
  return withQuery(rc, INCLUDES, (query, r) =>
    unwrap(getCustomer(rc.core, idParam(rc)), null, ({ customer, subscriptionIds }) =>
      respond(200, singleDocument(customerResource(customer, subscriptionIds, r), includedSubscriptions(rc, query.include, [subscriptionIds], r))),
    ),
  );
}

export function subscriptions(rc: RequestContext): ApiResponse {
  return withQuery(rc, [], (query, r) => {
    const id = idParam(rc);
    if (!findCustomer(rc.core, id)) return simpleError(404, `no customer with id ${id}`);
    const { rows, total } = subscriptionsOf(rc.core, 'customer_id', id, query.page);
    return respond(200, collectionDocument(r, `/customers/${id}/subscriptions`, query, total, rows.map((s) => subscriptionResource(s, r))));
  });
}
