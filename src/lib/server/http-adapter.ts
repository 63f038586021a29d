// The HTTP door's adapter: one node:http request in, the router's answer out. It adds only what
// only HTTP has (the key header, body size and media type, bytes on the wire, one log line per
// request); everything a request means is decided by the router, exactly as in the embedded door.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MIMEType } from 'node:util';
import type { Account } from '../core/context.js';
import { failureResponse, simpleError } from '../api/errors.js';
import { utf8Text } from '../schemas/utf8.js';
import { JSONAPI, XML_TYPES, type ApiRequest, type ApiResponse } from '../api/http.js';

/** Largest request body accepted; one byte more is 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Largest file a route that takes one accepts (a bank report's XML, read as it streams in, never
 * held whole): a year of a large account's camt.053 statements fits, a runaway upload does not.
 */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

/** An upload went past its limit while it was read: answered 413 (the router maps it). */
export class UploadTooLargeError extends Error {
  override name = 'UploadTooLargeError';
}

/**
 * A request refused before its body was read (401, 413, 415) is answered at once, then the rest of
 * its body is read and thrown away, so that a client that writes its whole body before it reads
 * (curl, PHP's stream handler, most simple clients) reads the answer instead of a broken pipe.
 * Up to this many bytes of body in all, for at most DRAIN_MS; past either bound the connection is
 * closed (and a body declared larger than this is not drained at all).
 */
export const DRAIN_BYTES = 64 * 1024 * 1024;
export const DRAIN_MS = 10_000;

/** What the adapter hands each request to: the router, or a stand-in in tests. */
export interface RequestHandler {
  /** Answered at once when nothing has to wait (the router's reads), else through a promise. */
  handle(request: ApiRequest, account: Account, key: string): ApiResponse | Promise<ApiResponse>;
}

export interface AdapterOptions {
  handler: RequestHandler;
  /** The account a key belongs to; undefined for an unknown key. */
  authenticate(key: string): Account | undefined | Promise<Account | undefined>;
  /**
   * Runs the GETs that arrived together (each one's key check and answer) as one unit, e.g. one
   * read snapshot of the store: keys and rows are seen at one moment, for one lock of the store.
   * Only for a store that answers synchronously (SQLite); without it, each request goes alone.
   */
  atOnce?: <T>(fn: () => T) => T;
  /** One line per request (no trailing newline), and the rare internal-error line. */
  log(line: string): void;
  maxBodyBytes?: number;
  /** Milliseconds, monotonic; injectable so tests can fix the durations. */
  now?: () => number;
  /** True once the server is shutting down: answers then ask the client to close the connection. */
  closing?: () => boolean;
  /** Called when a request has been answered (or abandoned), e.g. to close idle connections during shutdown. */
  onSettled?: () => void;
  /**
   * Asked first for every request: an answer to give instead of handling it (e.g. 503 when the
   * server is at its connection limit), or undefined to go on. The answer closes the connection.
   */
  admit?: (req: IncomingMessage) => ApiResponse | undefined;
  /** Bounds on reading and discarding the body of a refused request; default DRAIN_BYTES, DRAIN_MS. */
  drainBytes?: number;
  drainMs?: number;
  /** Whether a request may carry a file (XML) instead of a document: its body is handed on as a stream (router's takesUpload). */
  uploads?(method: string, path: string): boolean;
  /** Largest upload; default MAX_UPLOAD_BYTES. */
  maxUploadBytes?: number;
}

export interface HttpAdapter {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Requests received and not yet answered or abandoned. */
  readonly inFlight: number;
}

const ACCEPTED_TYPES = new Set([JSONAPI, 'application/json']);
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

/** The key from `X-Authorization: KEY` or `X-Authorization: Bearer KEY` (also `Authorization: Bearer KEY`). */
export function requestKey(headers: IncomingMessage['headers']): string | undefined {
  const strip = (value: string) => {
    const trimmed = value.trim();
    const bearer = /^Bearer(?:\s+(.*))?$/i.exec(trimmed);
    return (bearer ? (bearer[1] ?? '').trim() : trimmed) || undefined;
  };
  const x = headers['x-authorization'];
  const raw = Array.isArray(x) ? x[0] : x;
  if (raw !== undefined && raw.trim() !== '') return strip(raw);
  const authorization = headers.authorization;
  if (authorization && /^\s*Bearer\s/i.test(authorization)) return strip(authorization);
  return undefined;
}

/** Whether the request says a body follows (a length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * application/vnd.api+json or application/json, whose only parameter may be charset=utf-8 (JSON is
 * UTF-8; any other parameter, a JSON:API extension or profile say, is one this service does not
 * serve). A body sent without a Content-Type, or with an empty one, is read as JSON: real clients
 * do that (curl without -H, PHP's stream handler with an empty header).
 */
export function acceptedMediaType(contentType: string | undefined): boolean {
  if (!contentType || contentType.trim() === '') return true;
  // Without parameters (most requests) no parse is needed.
  if (!contentType.includes(';')) return ACCEPTED_TYPES.has(contentType.trim().toLowerCase());
  let type: MIMEType;
  try {
    type = new MIMEType(contentType);
  } catch {
    return false;
  }
  if (!ACCEPTED_TYPES.has(type.essence)) return false;
  for (const [name, value] of type.params)
    if (name !== 'charset' || !UTF8_LABELS.has(value.toLowerCase())) return false;
  return true;
}

/**
 * The body as text, or undefined when it is not valid UTF-8 (never decoded with replacement
 * characters); a leading byte order mark dropped. The CLI reads --data and import files by the same rule.
 */
export const bodyText = (raw: Buffer): string | undefined => utf8Text(raw);

const notUtf8 = () =>
  failureResponse(
    { kind: 'invalid_document', pointer: '/data', detail: 'the request body is not valid UTF-8 text' },
    null,
  );

/** Splits the request target into path and raw query; absolute-form targets keep only their path. */
function splitTarget(url: string): { path: string; query?: string } {
  let target = url;
  if (!target.startsWith('/')) {
    try {
      const parsed = new URL(target);
      target = parsed.pathname + parsed.search;
    } catch {
      return { path: target };
    }
  }
  const q = target.indexOf('?');
  return q < 0 ? { path: target } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

class TooLarge extends Error {
  /** Bytes of body read when the limit was passed. */
  constructor(readonly read: number) {
    super('request body too large');
  }
}

/** Reads the body's bytes, refusing (without buffering the rest) once it passes `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        reject(new TooLarge(size));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onAborted = () => onError(new Error('request aborted'));
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    // 'close' before 'end' means the client went away mid-body.
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The media type of a Content-Type header, lower case, without parameters. */
const mediaType = (contentType: string | undefined): string =>
  (contentType ?? '').split(';', 1)[0].trim().toLowerCase();

/** The body as it arrives, refusing (UploadTooLargeError) once it passes `limit` bytes. */
async function* limited(req: IncomingMessage, limit: number, counted: { bytes: number }): AsyncIterable<Buffer> {
  // Not destroyed when the reader stops early (a refusal at the first element): the rest is drained, and the answer still goes out.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    counted.bytes += chunk.length;
    if (counted.bytes > limit) throw new UploadTooLargeError(`the request body is larger than ${limit} bytes`);
    yield chunk;
  }
}

/** Waits until the response takes more (drain), or fails when the connection closed first. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
    };
    const onDrain = () => (done(), resolve());
    const onClose = () => (done(), reject(new Error('the connection closed while the file was written')));
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/** Connections whose request was refused and answered, and whose body is being read only to be thrown away. */
const draining = new WeakSet<object>();

/**
 * Whether the connection is only reading the rest of a refused request's body (its answer is out):
 * the connection cap may close it for a newcomer, after the idle and stalled ones.
 */
export const isDraining = (socket: object): boolean => draining.has(socket);

/**
 * After an answer written ahead of the body (headers and payload out, the response not ended):
 * reads and discards the rest of the body, then ends the response, which closes the connection
 * (the answer says `Connection: close`). Past `maxBytes` of body in all, or `maxMs`, it ends at
 * once; the connection then closes with the rest of the body unread.
 */
function drainThenEnd(req: IncomingMessage, res: ServerResponse, read: number, maxBytes: number, maxMs: number): void {
  const socket = req.socket;
  draining.add(socket);
  const done = () => {
    draining.delete(socket);
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', done);
    res.off('close', done);
    if (!res.writableEnded && !res.destroyed) res.end();
  };
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > maxBytes) done();
  };
  const timer = setTimeout(done, maxMs);
  timer.unref();
  req.on('data', onData);
  req.on('end', done);
  res.on('close', done);
}

/**
 * An answer given before the body was read (401, 413, 415, 503): `Connection: close`, and the rest
 * of the body (beyond the `read` bytes already taken) is read and discarded before the connection
 * closes, up to the drain bounds, so the client reads the answer. A body already complete needs no
 * draining, and then the connection stays open (unless `close`).
 */
function refuseEarly(
  req: IncomingMessage,
  res: ServerResponse,
  response: ApiResponse,
  read: number,
  send: (response: ApiResponse, close?: boolean, hold?: boolean) => boolean,
  drainBytes: number,
  drainMs: number,
  close = false,
): void {
  if (req.complete || !hasBody(req)) return void send(response, close || !req.complete);
  if (Number(req.headers['content-length']) > drainBytes) return void send(response, true); // past the bound already: close
  if (send(response, true, true)) drainThenEnd(req, res, read, drainBytes, drainMs);
}

export function createHttpAdapter(options: AdapterOptions): HttpAdapter {
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const drainBytes = options.drainBytes ?? DRAIN_BYTES;
  const drainMs = options.drainMs ?? DRAIN_MS;
  const now = options.now ?? (() => performance.now());
  const { atOnce, admit } = options;
  const uploadLimit = options.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  let inFlight = 0;

  // GETs are answered together once every GET that arrived in this turn of the event loop has
  // been read: one unit (one read of the store, one lock) for all of them, taken after the last
  // one arrived, so each still sees everything committed before it was sent.
  let reads: { answer: () => () => void; fail: (error: unknown) => void }[] = [];
  const answerReads = () => {
    const batch = reads;
    reads = [];
    let next: (() => void)[];
    try {
      next = atOnce!(() => batch.map((read) => read.answer()));
    } catch (error) {
      next = batch.map((read) => () => read.fail(error)); // the unit itself failed (the store closed)
    }
    for (const step of next) step();
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const started = now();
    const method = req.method ?? 'GET';
    const { path, query } = splitTarget(req.url ?? '/');
    inFlight++;
    let settled = false;
    const settle = (outcome: string | number) => {
      if (settled) return;
      settled = true;
      inFlight--;
      // Method, path and status only: never a header (the key), never the query or the body.
      options.log(`${method} ${path} ${outcome} ${Math.round(now() - started)}ms`);
      options.onSettled?.();
    };
    // Once the answer may wait, the connection can die first: 'close' follows 'finish' for every
    // answer that went out, and comes alone when the connection died.
    const watchClose = () =>
      res.once('close', () =>
        settle(res.writableFinished ? res.statusCode : `${res.headersSent ? res.statusCode : '-'} (connection closed)`),
      );

    /**
     * Writes the answer; false when there was nobody left to write it to. `hold` writes it all but
     * leaves the response open (a refusal that still reads the rest of the body; see drainThenEnd).
     */
    const send = (response: ApiResponse, close = false, hold = false): boolean => {
      if (res.headersSent || res.destroyed) return false;
      if (response.pipe) return stream(response);
      // Serialised before anything is written, so a failure still leaves a clean 500.
      const payload =
        response.body === undefined || response.status === 204 ? undefined : JSON.stringify(response.body);
      const headers: Record<string, string | number> = {};
      for (const name in response.headers) {
        const lower = name.toLowerCase();
        if (lower !== 'content-length' && lower !== 'connection') headers[lower] = response.headers[name];
      }
      headers['content-type'] = JSONAPI;
      if (payload !== undefined) headers['content-length'] = Buffer.byteLength(payload);
      if (close || options.closing?.()) headers.connection = 'close';
      res.writeHead(response.status, headers);
      if (!hold) res.end(payload);
      else if (payload !== undefined) res.write(payload);
      return true;
    };

    /** A file, written as the router produces it, waiting whenever the client reads slower; cut off (destroyed) if it fails half-way. */
    const stream = (response: ApiResponse): boolean => {
      const headers: Record<string, string | number> = {};
      for (const name in response.headers)
        if (name.toLowerCase() !== 'content-length') headers[name.toLowerCase()] = response.headers[name];
      if (options.closing?.()) headers.connection = 'close';
      res.writeHead(response.status, headers);
      const write = (chunk: string): void | Promise<void> => (res.write(chunk) ? undefined : drained(res));
      response.pipe!(write).then(
        () => void res.end(),
        (error: unknown) => {
          if (!res.destroyed)
            options.log(
              `billing serve: a file failed half-way on ${method} ${path}: ${error instanceof Error ? error.message : String(error)}`,
            );
          res.destroy();
        },
      );
      return true;
    };

    const failed = (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      options.log(`billing serve: internal error on ${method} ${path}: ${message}`);
      try {
        if (res.headersSent) res.destroy();
        else send(simpleError(500, 'the server failed to answer this request'));
      } catch {
        res.destroy();
      }
    };

    const unauthorised = (key: string | undefined) =>
      simpleError(
        401,
        key === undefined ? 'the X-Authorization header with an API key is required' : 'the API key is not valid',
      );

    /** Sends an answer that is ready, or waits for one that is not (a write: the connection may die first). */
    const deliver = (answer: ApiResponse | Promise<ApiResponse>) => {
      if (answer instanceof Promise) {
        watchClose();
        answer
          .then((response) => {
            send(response);
          })
          .catch(failed);
        return;
      }
      let sent: boolean;
      try {
        sent = send(answer);
      } catch (error) {
        watchClose();
        return failed(error);
      }
      settle(sent ? answer.status : '- (connection closed)');
    };
    const fail = (error: unknown) => {
      watchClose();
      failed(error);
    };

    if (admit !== undefined) {
      const refusal = admit(req);
      if (refusal !== undefined) {
        watchClose();
        // Whatever the request, the connection goes: it is over the limit.
        return refuseEarly(req, res, refusal, 0, send, drainBytes, drainMs, true);
      }
    }

    const key = requestKey(req.headers);
    const idempotency = req.headers['idempotency-key'];
    // A write without a body (finalise, pay, DELETE) is kept by its key as one with a body is.
    const request: ApiRequest = { method, path, query };
    if (idempotency !== undefined)
      request.idempotencyKey = Array.isArray(idempotency) ? idempotency.join(', ') : idempotency;
    if (!hasBody(req)) {
      if (!atOnce) {
        // A store that answers later (PostgreSQL): the key check, then the answer, each awaited.
        let check: ReturnType<AdapterOptions['authenticate']>;
        try {
          check = key === undefined ? undefined : options.authenticate(key);
        } catch (error) {
          return fail(error); // the key check itself failed: 500, never an uncaught exception
        }
        const answer =
          check instanceof Promise
            ? check.then((account) => (account ? options.handler.handle(request, account, key!) : unauthorised(key)))
            : undefined;
        if (answer) return deliver(answer);
      }
      /** The key check and the handler's answer; what to do with it comes after (outside the read unit). */
      const answer = (): (() => void) => {
        try {
          const account = key === undefined ? undefined : (options.authenticate(key) as Account | undefined);
          const out = account ? options.handler.handle(request, account, key!) : unauthorised(key);
          return () => deliver(out);
        } catch (error) {
          return () => fail(error);
        }
      };
      if (method === 'GET' && atOnce) {
        reads.push({ answer, fail });
        if (reads.length === 1) setImmediate(answerReads);
        return;
      }
      return answer()();
    }

    watchClose();
    const refuse = (response: ApiResponse, read = 0) =>
      refuseEarly(req, res, response, read, send, drainBytes, drainMs);
    void (async () => {
      const account = key === undefined ? undefined : await options.authenticate(key);
      if (!account) return refuse(unauthorised(key));
      const type = mediaType(req.headers['content-type']);
      if (XML_TYPES.has(type) && options.uploads?.(method, path)) {
        if (Number(req.headers['content-length']) > uploadLimit)
          return refuse(simpleError(413, `the request body is larger than ${uploadLimit} bytes`));
        const counted = { bytes: 0 };
        const answer = await options.handler.handle(
          { method, path, query, upload: { contentType: type, body: limited(req, uploadLimit, counted) } },
          account,
          key!,
        );
        // Answered before the whole file was read (refused at its first element): the rest is drained, then the connection closed.
        return req.complete ? void send(answer) : refuse(answer, counted.bytes);
      }
      if (!acceptedMediaType(req.headers['content-type'])) {
        return refuse(
          simpleError(
            415,
            `a request body must be sent as ${JSONAPI} or application/json, with no parameter but charset=utf-8`,
          ),
        );
      }
      const declared = Number(req.headers['content-length']);
      if (declared > limit) return refuse(simpleError(413, `the request body is larger than ${limit} bytes`));
      let raw: Buffer;
      try {
        raw = await readBody(req, limit);
      } catch (error) {
        if (error instanceof TooLarge)
          return refuse(simpleError(413, `the request body is larger than ${limit} bytes`), error.read);
        res.destroy(); // the client went away while sending; nobody to answer
        return;
      }
      const body = bodyText(raw);
      if (body === undefined) return void send(notUtf8());
      if (body !== '') request.body = body;
      send(await options.handler.handle(request, account, key!));
    })().catch((error) => {
      // Failed before the body was read (the key check): the same care as a refusal.
      if (!req.complete && !res.headersSent) {
        const message = error instanceof Error ? error.message : String(error);
        options.log(`billing serve: internal error on ${method} ${path}: ${message}`);
        return refuse(simpleError(500, 'the server failed to answer this request'));
      }
      failed(error);
    });
  };

  Object.defineProperty(listener, 'inFlight', { get: () => inFlight });
  return listener as HttpAdapter;
}
