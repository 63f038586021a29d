// GET /events, GET /webhook-deliveries[/{id}], POST /webhook-deliveries/{id}/retry: extensions of
// this implementation, for operators following what went out to the webhooks.
import { getDelivery, listDeliveries, listEvents, retryDelivery } from '../../core/outbox.js';
import { DELIVERY_STATUSES } from '../../schemas/vocabulary.js';
import type { Unit } from '../../store/unit.js';
import { collectionDocument, deliveryResource, eventResource, singleDocument, type Rendering } from '../documents.js';
import { simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { collectionQuery, filtersOf, ID_FILTER, oneOf, sortOf, type GetQuery } from '../query.js';
import { idParam, respond, withQuery, type RequestContext } from './context.js';
import { bodiless } from './writes.js';

// sort=-id lists newest first (billing events list does by default); page[after] pages in ascending id, as polling does.
const EVENTS = collectionQuery({ include: [], filter: { subscription_id: ID_FILTER }, sort: ['id'] });
const DELIVERIES = collectionQuery({ include: [], filter: { status: oneOf(DELIVERY_STATUSES) }, sort: [] });

export const events = (rc: RequestContext): Unit<ApiResponse> =>
  withQuery(rc, EVENTS, function* (rc: RequestContext, query: GetQuery, r: Rendering) {
    const page = yield* listEvents(rc.core, query.page, { ...filtersOf(query, EVENTS), sort: sortOf(query, EVENTS) });
    return respond(
      200,
      collectionDocument(
        r,
        '/events',
        query,
        page,
        page.rows.map((e) => eventResource(e, r)),
      ),
    );
  });

export const deliveries = (rc: RequestContext): Unit<ApiResponse> =>
  withQuery(rc, DELIVERIES, function* (rc: RequestContext, query: GetQuery, r: Rendering) {
    const page = yield* listDeliveries(rc.core, query.page, filtersOf(query, DELIVERIES));
    return respond(
      200,
      collectionDocument(
        r,
        '/webhook-deliveries',
        query,
        page,
        page.rows.map((d) => deliveryResource(d, r)),
      ),
    );
  });

export const delivery = (rc: RequestContext): Unit<ApiResponse> =>
  withQuery(rc, [], function* (rc: RequestContext, _query: GetQuery, r: Rendering) {
    const found = yield* getDelivery(rc.core, idParam(rc));
    return found.ok
      ? respond(200, singleDocument(deliveryResource(found.value, r)))
      : simpleError(404, `no webhook delivery with id ${idParam(rc)}`);
  });

export const retry = async (rc: RequestContext): Promise<ApiResponse> =>
  bodiless(
    rc,
    () => retryDelivery(rc.core, idParam(rc)),
    (r) => (d) => respond(200, singleDocument(deliveryResource(d, r))),
  );
