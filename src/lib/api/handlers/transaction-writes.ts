// POST /transactions, DELETE /transactions/{id}. Loaded only when a request writes.
import { cancelManually, createTransaction } from '../../core/transaction-writes.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { singleDocument, transactionResource } from '../documents.js';
import { failureResponse } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { parseGetQuery } from '../query.js';
import { noContent, respond, unwrap, type RequestContext } from './context.js';
import { readWrite, refused } from './writes.js';

export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'transaction');
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(createTransaction(rc.core, document.attributes), (result) =>
    unwrap(result, document.original, (tx) => {
      const answer = singleDocument(transactionResource(tx, rendering));
      return respond(201, answer, { location: answer.data.links.self });
    }),
  );
}

/** 204 without a body: canceled, while not yet collected. */
export function remove(rc: RequestContext): MaybePromise<ApiResponse> {
  const query = parseGetQuery(rc.query, []);
  if (!query.ok) return failureResponse(query.failure, null);
  return andThen(cancelManually(rc.core, rc.params.uuid), (result) =>
    result.ok ? noContent() : failureResponse(result.failure, null),
  );
}
