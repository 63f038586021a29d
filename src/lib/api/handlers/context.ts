import type { CoreContext } from '../../core/context.js';
import type { Result } from '../../core/result.js';
import { failureResponse } from '../errors.js';
import { JSONAPI, type ApiResponse, type Upload } from '../http.js';
import { parseGetQuery, type CollectionQuery, type GetQuery } from '../query.js';
import type { Unit } from '../../store/unit.js';
import type { Rendering } from '../documents.js';

/** One request as a handler sees it: the core it acts on, path parameters, query and raw body. */
export interface RequestContext {
  core: CoreContext;
  params: Record<string, string>;
  path: string;
  query?: string;
  body?: string;
  /** A file sent as the body instead of a document (POST /bank-reports). */
  upload?: Upload;
  baseUrl: string;
}

export const respond = (status: number, body: unknown, headers?: Record<string, string>): ApiResponse => ({
  status,
  headers: headers ? { 'content-type': JSONAPI, ...headers } : { 'content-type': JSONAPI },
  body,
});

export const idParam = (rc: RequestContext): number => Number(rc.params.id);

/** 204 No Content: no body, and the media type every answer names, alike through every door. */
export const noContent = (): ApiResponse => ({ status: 204, headers: { 'content-type': JSONAPI } });

/**
 * Parses the GET query and gives the rendering for it, or the 400 answer. Not a generator itself:
 * it hands back the read's own unit, one level less for every query to pass through. `then` is a
 * generator function defined once at module level: a generator closure made per request kept its
 * objects past the next scavenge in billing serve (about 250 KB promoted per scavenge).
 */
export function withQuery(
  rc: RequestContext,
  includes: readonly string[] | CollectionQuery,
  then: (rc: RequestContext, query: GetQuery, r: Rendering) => Unit<ApiResponse>,
): Unit<ApiResponse> {
  const parsed = parseGetQuery(rc.query, includes);
  if (!parsed.ok) return answered(failureResponse(parsed.failure, null));
  return then(rc, parsed.value, {
    baseUrl: rc.baseUrl,
    timeZone: rc.core.account.time_zone,
    fields: parsed.value.fields,
  });
}

/** A read that is answered without a query. */
// eslint-disable-next-line require-yield -- a unit needing no query returns at once
export function* answered(response: ApiResponse): Unit<ApiResponse> {
  return response;
}

export function unwrap<T>(result: Result<T>, original: unknown, then: (value: T) => ApiResponse): ApiResponse {
  return result.ok ? then(result.value) : failureResponse(result.failure, original);
}
