// The remote door: any server speaking the API, over HTTP.
//
// Requests go through Node's built-in fetch, which is undici, loaded by Node only on first use (so
// only in remote mode). The undici package's own request() opens sockets that nock cannot see
// (nock#2183); the built-in fetch is what the fault and replay tests can intercept.
import { randomUUID } from 'node:crypto';
import { isSendableKey, unsendableKey } from './keys.js';
import {
  ProtocolError,
  target,
  ServiceUnreachableError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './types.js';

export interface HttpOptions {
  baseUrl: string;
  apiKey?: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Retries of GET and DELETE after connection errors, 429 and 5xx. */
  retries?: number;
  /** First backoff delay; doubles each retry, with jitter. */
  backoffMs?: number;
  /** Longest Retry-After this client waits; a longer one ends the retries. */
  maxRetryAfterMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const JSONAPI = 'application/vnd.api+json';
const IDEMPOTENT = new Set(['GET', 'DELETE']);

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** Seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code;
  if (code && NETWORK_CODES[code]) return NETWORK_CODES[code];
  return cause?.message ?? (error as Error).message ?? String(error);
}

/** A key that no HTTP header can carry as it is (exit 2); the message never quotes it. */
export class UnsendableKeyError extends Error {
  override name = 'UnsendableKeyError';
}

export function httpTransport(options: HttpOptions): Transport {
  // Checked before any request: fetch would otherwise refuse it with a message that quotes the key.
  if (options.apiKey !== undefined && options.apiKey !== '' && !isSendableKey(options.apiKey))
    throw new UnsendableKeyError(unsendableKey('given'));
  const base = new URL(`${options.baseUrl.replace(/\/+$/, '')}/`);
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 250;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;

  function urlFor(request: TransportRequest): URL {
    if (/^https?:\/\//i.test(request.path)) {
      const url = new URL(request.path);
      // A link to another host would carry the API key there: refuse it.
      if (url.origin !== base.origin)
        throw new ProtocolError(`refusing to follow a link to ${url.origin}: it is not ${base.origin}`);
      const { path, query } = target({ ...request, path: `${url.pathname}${url.search}` });
      return new URL(`${path}${query ? `?${query}` : ''}`, url.origin);
    }
    const { path, query } = target(request);
    // Paths are relative to the base URL, which may have a path of its own (e.g. /v1).
    return new URL(`${base.pathname.replace(/\/$/, '')}${path}${query ? `?${query}` : ''}`, base.origin);
  }

  /** Whether this server has shown that it honours Idempotency-Key (an answer named the key). */
  let honoursKeys = false;
  const learn = (response: Response, key: string | undefined) => {
    if (key !== undefined && response.headers.get('idempotency-key') === key) honoursKeys = true;
  };

  /**
   * After a POST whose answer was lost: whether the server honours keys, asked with a GET of the
   * same path carrying a key (a server that does names it in any answer). A GET changes nothing.
   */
  async function probe(url: URL): Promise<boolean> {
    if (honoursKeys) return true;
    const key = `probe-${randomUUID()}`;
    try {
      const response = await attempt(new URL(`${url.pathname}?page[size]=1`, url.origin), {
        method: 'GET',
        path: url.pathname,
        idempotencyKey: key,
      });
      await response.arrayBuffer();
      learn(response, key);
    } catch {
      // Unreachable again: no retry without knowing.
    }
    return honoursKeys;
  }

  async function attempt(
    url: URL,
    request: TransportRequest,
    signal: AbortSignal = AbortSignal.timeout(options.timeoutMs),
  ): Promise<Response> {
    // The caller's own headers first: what the protocol needs (accept, the key, the type) is set over them.
    const headers: Record<string, string> = {
      ...request.headers,
      accept: request.file ? `${JSONAPI}, application/xml` : JSONAPI,
    };
    if (options.apiKey) headers['x-authorization'] = options.apiKey;
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    let body: string | Buffer | AsyncIterable<Buffer> | undefined;
    if (request.upload !== undefined) {
      headers['content-type'] = request.upload.contentType;
      body = request.upload.open();
    } else if (request.body !== undefined) {
      headers['content-type'] = JSONAPI;
      body = JSON.stringify(request.body);
    }
    // A streamed body goes out as it is read (half duplex: the answer is read once it is sent).
    if (request.signal) signal = AbortSignal.any([signal, request.signal]);
    const init = { method: request.method, headers, body, signal, redirect: 'manual', duplex: 'half' } as RequestInit;
    return fetch(url, init);
  }

  /**
   * A file answered (not JSON): handed on unread, to be piped. Its download may take longer than
   * one timeout: the timer is set again at every chunk, so only a server that stalls is given up on.
   */
  function fileAnswer(response: Response, idle: { reset(): void; stop(): void }): TransportResponse | undefined {
    const type = (response.headers.get('content-type') ?? '').split(';', 1)[0].trim().toLowerCase();
    if (!response.ok || type === JSONAPI || type === 'application/json' || !response.body) return undefined;
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => (headers[key] = value));
    const source = response.body;
    return {
      status: response.status,
      headers,
      body: undefined,
      async pipe(write) {
        const decoder = new TextDecoder('utf-8', { fatal: true });
        try {
          for await (const chunk of source as unknown as AsyncIterable<Uint8Array>) {
            idle.reset();
            const text = decoder.decode(chunk, { stream: true });
            if (text) await write(text);
          }
          const rest = decoder.decode();
          if (rest) await write(rest);
        } catch (error) {
          const name = (error as Error).name;
          if (name === 'TimeoutError' || name === 'AbortError')
            throw new ServiceUnreachableError(
              `${response.url}: the file stopped coming for ${options.timeoutMs / 1000} s (--timeout)`,
            );
          throw new ServiceUnreachableError(`${response.url}: the file was cut off: ${describe(error)}`);
        } finally {
          idle.stop();
        }
      },
    };
  }

  /** A timeout that starts again whenever it is reset: for a file, whose chunks may take longer than one timeout in all. */
  function idleTimeout(): { signal: AbortSignal; reset(): void; stop(): void } {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const reset = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => controller.abort(new DOMException('no answer in time', 'TimeoutError')),
        options.timeoutMs,
      );
      timer.unref();
    };
    reset();
    return { signal: controller.signal, reset, stop: () => clearTimeout(timer) };
  }

  return {
    mode: 'remote',
    async request(request) {
      const url = urlFor(request);
      const method = request.method.toUpperCase();
      const key = request.idempotencyKey ?? (method === 'POST' ? randomUUID() : undefined);
      // A POST is sent again only when the server carries it out once per key: it said so, or says so when asked.
      const keyed = method === 'POST';
      for (let attemptNo = 0; ; attemptNo++) {
        const delay = backoffMs * 2 ** attemptNo * (0.5 + random() / 2);
        const retryable = IDEMPOTENT.has(method) || (keyed && honoursKeys);
        let response: Response;
        let text: string;
        const idle = request.file ? idleTimeout() : undefined;
        try {
          response = await attempt(url, { ...request, method, idempotencyKey: key }, idle?.signal);
          const file = idle && fileAnswer(response, idle);
          if (file) return file;
          idle?.stop();
          // The body under the same timeout and error handling as the headers: a server that
          // stalls or drops the connection mid-body is unreachable (exit 3), not a crash.
          text = await response.text();
        } catch (error) {
          // The caller gave up (Ctrl-C): no retry, no probe, its own reason.
          if (request.signal?.aborted) throw request.signal.reason;
          const name = (error as Error).name;
          const timedOut = name === 'TimeoutError' || name === 'AbortError';
          // A lost answer to a keyed POST: asking again is safe only where keys are honoured.
          if (keyed && attemptNo < retries && (await probe(url))) {
            await sleep(delay);
            continue;
          }
          if (timedOut)
            throw new ServiceUnreachableError(
              `no answer from ${url.origin} within ${options.timeoutMs / 1000} s (--timeout)`,
            );
          if (retryable && attemptNo < retries) {
            await sleep(delay);
            continue;
          }
          throw new ServiceUnreachableError(`cannot reach ${url.origin}: ${describe(error)}`);
        }
        learn(response, key);
        // A POST only to a server that honours keys (this answer may be the first to say so); then
        // also after its 409 with Retry-After (the first sending still in flight at the server).
        const again =
          (keyed ? honoursKeys : retryable) &&
          (response.status === 429 ||
            response.status >= 500 ||
            (keyed && response.status === 409 && response.headers.has('retry-after')));
        if (again && attemptNo < retries) {
          const wait = retryAfterMs(response.headers.get('retry-after'));
          if (wait === undefined || wait <= maxRetryAfterMs) {
            await sleep(Math.max(wait ?? 0, delay));
            continue;
          }
        }
        return read(response, text);
      }
    },
    async close() {},
  };
}

function read(response: Response, text: string): TransportResponse {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  // Redirects are not followed (redirect: 'manual'): the key must not travel to wherever they point.
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    throw new ProtocolError(
      `the service answered ${response.status}${location ? ` redirecting to ${location}` : ''}; redirects are not followed (check the base URL)`,
    );
  }
  let body: unknown;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON (a proxy's HTML page, say): an error answer keeps its status; a success is broken.
      if (response.ok) throw new ProtocolError(`the service answered ${response.status} with a body that is not JSON`);
    }
  }
  return { status: response.status, headers, body };
}
