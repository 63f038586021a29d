// What every write handler does first: the document, then the query. A write takes fields[TYPE]
// for its answer (and page[...], which means nothing here); include, filter, sort and any unknown
// parameter are refused like on a GET. Loaded only by writes (readDocument is not on the GET path).
import type { Result } from '../../core/result.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { readDocument, type RequestDocument } from '../body.js';
import { failureResponse } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { parseGetQuery, type GetQuery } from '../query.js';
import type { Rendering } from '../documents.js';
import { unwrap, type RequestContext } from './context.js';

export interface WriteRequest {
  document: RequestDocument;
  query: GetQuery;
  /** How the answer's resource is written: fields[TYPE] of the query applied. */
  rendering: Rendering;
}

export function readWrite(
  rc: RequestContext,
  type: string,
  id?: string,
  idOptional = false,
): WriteRequest | ApiResponse {
  const document = readDocument(rc.body, type, id, idOptional);
  if (!document.ok) return failureResponse(document.failure, document.original);
  const query = parseGetQuery(rc.query, []);
  if (!query.ok) return failureResponse(query.failure, document.original);
  return {
    document: document.value,
    query: query.value,
    rendering: { baseUrl: rc.baseUrl, timeZone: rc.core.account.time_zone, fields: query.value.fields },
  };
}

export const refused = (request: WriteRequest | ApiResponse): request is ApiResponse => 'status' in request;

/** A write without a document (credit, pay, delete, finalise without a body): only fields[...] may be asked for its answer. */
export function bodiless<T>(
  rc: RequestContext,
  write: () => MaybePromise<Result<T>>,
  answer: (r: Rendering) => (value: T) => ApiResponse,
): MaybePromise<ApiResponse> {
  const query = parseGetQuery(rc.query, []);
  if (!query.ok) return failureResponse(query.failure, null);
  const r: Rendering = { baseUrl: rc.baseUrl, timeZone: rc.core.account.time_zone, fields: query.value.fields };
  return andThen(write(), (result) => unwrap(result, null, answer(r)));
}
