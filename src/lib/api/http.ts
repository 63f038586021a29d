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
  /**
   * A body that is a file, not a JSON:API document (a bank report's XML), as it arrives: only the
   * routes that take one (takesUpload) see it; its size is bounded by the door.
   */
  upload?: Upload;
}

export interface Upload {
  /** The media type it was sent as, e.g. `application/xml`. */
  contentType: string;
  body: AsyncIterable<Buffer> | Buffer;
}

/** Media types of the files a route may take instead of a JSON:API document. */
export const XML_TYPES: ReadonlySet<string> = new Set(['application/xml', 'text/xml']);

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** The JSON:API document; absent for 204 and for a file. */
  body?: unknown;
  /**
   * A file answered instead of a document (a batch's XML): written chunk by chunk to `write`, which
   * may ask it to wait (a promise) while the reader is full. Its media type is in the headers.
   */
  pipe?: (write: (chunk: string) => void | Promise<void>) => Promise<void>;
}
