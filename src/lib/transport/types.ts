// What a command needs from the service: a request in, a JSON:API document out. Two
// implementations: embedded (the core in process) and http (any server speaking the API).
export interface TransportRequest {
  method: string;
  /** A path (`/customers/1`) or an absolute URL taken from a document's links. */
  path: string;
  /** Query parameters to add; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  /** The request document, sent as JSON. */
  body?: unknown;
  /**
   * Sent as the Idempotency-Key header: a server that honours it carries the request out once
   * however often it is sent. Remote POSTs without one get a fresh key each (one per command).
   */
  idempotencyKey?: string;
  /** More headers for a server (`billing api -H`); the embedded store reads none of them. */
  headers?: Record<string, string>;
  /** A file sent as the body instead of a document (a bank report's XML); opened again for each attempt. */
  upload?: { contentType: string; open(): AsyncIterable<Buffer> | Buffer };
  /** A file may come back instead of a document (a batch's XML): then the answer pipes it, unread. */
  file?: boolean;
  /**
   * Abandons the request when aborted (billing listen on Ctrl-C): a remote one is cut and not
   * retried, and rejects with the signal's reason. The embedded store answers at once anyway.
   */
  signal?: AbortSignal;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON:API document; undefined for an empty body (204) and for a file. */
  body: unknown;
  /** A file answered (with `file` asked): written chunk by chunk to `write`, which may ask it to wait. */
  pipe?: (write: (chunk: string) => void | Promise<void>) => Promise<void>;
}

export interface Transport {
  readonly mode: 'embedded' | 'remote';
  request(request: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

/** Splits a path or absolute URL plus extra query parameters into a path and a raw query string. */
export function target(request: TransportRequest): { path: string; query: string } {
  const url = new URL(request.path, 'http://placeholder');
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  // A link may spell brackets either way: this API's links percent-encode them (page%5Bnumber%5D,
  // as RFC 3986 asks), the hosted service's do not, and URLSearchParams encodes them. Both decode
  // the same; requests go out with raw brackets, the spelling every server of this API reads.
  const query = url.search.slice(1).replace(/%5B/gi, '[').replace(/%5D/gi, ']').replace(/%2C/gi, ',');
  return { path: decodeURIComponent(url.pathname), query };
}

/** The service could not be reached (refused, DNS, timeout): exit code 3. */
export class ServiceUnreachableError extends Error {
  override name = 'ServiceUnreachableError';
}

/** The service answered something that is not the API (a success without JSON): exit code 1. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}
