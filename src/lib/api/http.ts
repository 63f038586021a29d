// The shapes that pass through the router: what the HTTP API receives and answers.
export const JSONAPI = 'application/vnd.api+json';

export interface ApiRequest {
  method: string;
  /** Path without query, e.g. `/customers/1`. */
  path: string;
  /** Raw query string without `?`, e.g. `page[number]=2&include=subscriptions`. */
  query?: string;
  /** Raw request body, exactly as it would arrive over HTTP. */
  body?: string;
  /** The Idempotency-Key header: a POST with one is carried out once (api/idempotency.ts). */
  idempotencyKey?: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** The JSON:API document; absent for 204. */
  body?: unknown;
}
