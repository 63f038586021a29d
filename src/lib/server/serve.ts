// `billing serve`: the second door. A node:http server that hands every request to the same router
// the embedded transport calls; it listens, logs, and shuts down gracefully.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticate, authenticateKey, hashKey } from '../core/accounts.js';
import type { Clock } from '../core/clock.js';
import type { Account } from '../core/context.js';
import { JSONAPI } from '../api/http.js';
import { createRouter, takesUpload, type Router } from '../api/router.js';
import { simpleError } from '../api/errors.js';
import type { ApiRequest, ApiResponse } from '../api/http.js';
import type { KeyGuard, SqliteStore, Store } from '../store/store.js';
import { createPages, type Pages } from '../pages/index.js';
import type { GuessLimits } from '../pages/guesses.js';
import { andThen, type MaybePromise } from '../store/unit.js';
import { guardConnections } from './connections.js';
import { createHttpAdapter, type RequestHandler } from './http-adapter.js';
import {
  DEFAULT_HEADERS_TIMEOUT_S,
  DEFAULT_KEEP_ALIVE_TIMEOUT_S,
  DEFAULT_REQUEST_TIMEOUT_S,
  defaultMaxConnections,
  openFilesLimit,
} from './limits.js';

/** What runs beside the listener (the runtime's due work and senders): told of writes, started once listening, closed before the store. */
export interface Background {
  /** A write was answered: what it caused may go out now. */
  poke(): void;
  /** Listening: links in what due work sends point at baseUrl. */
  start(baseUrl: string): void;
  /** Stops the timers and waits for the work under way. */
  close(): Promise<void>;
}

export interface ListenOptions {
  store: Store;
  clock: Clock;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Base of the links in documents; default http://HOST:PORT of the bound address. */
  publicUrl?: string;
  /** Accept webhook URLs of loopback and private-network hosts (refused by default: 400). */
  allowPrivateWebhooks?: boolean;
  /** The due work and the senders; none when absent. */
  background?: Background;
  /** Where the listening line and the request lines go; stderr by default. Lines without newline. */
  log?: (line: string) => void;
  /** Replaces the router, given the base URL it would have used (tests: slow or failing handlers). */
  handler?: (baseUrl: string) => RequestHandler;
  /** How long close() lets in-flight requests finish before cutting connections; default 10 s. */
  shutdownTimeoutMs?: number;
  /** Whether close() closes the store too (default true). */
  closeStore?: boolean;
  /** The most connections at once (see connections.ts); default from the open-files limit (limits.ts). */
  maxConnections?: number;
  /** How long a request's headers may take to arrive, from its first byte; default 10 s. */
  headersTimeoutMs?: number;
  /** How long a whole request may take to arrive; default 30 s. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept; default 65 s. */
  keepAliveTimeoutMs?: number;
  /** How many wrong page secrets a client may try (pages/guesses.ts); default 20, then 20 a minute. */
  pageGuesses?: GuessLimits;
}

export interface RunningServer {
  /** Where the server listens, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Base of the links in documents (the public URL, else `url`). */
  baseUrl: string;
  port: number;
  server: Server;
  /** Stops accepting, lets in-flight requests finish, closes the store. Safe to call more than once. */
  close(): Promise<void>;
}

const stderrLog = (line: string) => void process.stderr.write(`${line}\n`);

/** http://HOST:PORT for an address, with IPv6 hosts in brackets. */
export function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

const MAX_CACHED_KEYS = 1_000;

/**
 * SQLite: authenticate() with the answers kept while the store is unchanged: hashing the key and
 * reading it back was a fifth of a GET. Any commit, here or by another process (the CLI rotating a
 * key), changes the store's data version, which empties the cache before the next lookup.
 */
export function cachedAuthentication(store: SqliteStore): (key: string) => Account | undefined {
  const cache = new Map<string, Account | undefined>();
  let version = store.dataVersion();
  return (key) => {
    const current = store.dataVersion();
    if (current !== version || cache.size >= MAX_CACHED_KEYS) {
      cache.clear();
      version = current;
    }
    if (!cache.has(key))
      cache.set(
        key,
        store.read(() => authenticateKey(key)),
      );
    return cache.get(key);
  };
}

/**
 * PostgreSQL: another instance's commit leaves no cheap signal here, so a cached key is never
 * trusted on its own. Every GET carries a guard that its first statement checks in the same
 * snapshot as the rows it reads (the key still belongs to that account, as it was cached): a stale
 * entry is dropped and the key looked up again, so a key rotated by any instance or by the CLI is
 * refused by every instance on the very next request, at no extra round trip. Writes look the key
 * up afresh, one statement before their transaction.
 */
export function guardedAuthentication(store: Store): {
  authenticate(key: string): Account | undefined | Promise<Account | undefined>;
  handle(inner: Router, request: ApiRequest, account: Account, key: string): Promise<ApiResponse>;
} {
  const cache = new Map<string, { account: Account; guard: KeyGuard }>();
  const lookup = async (key: string): Promise<{ account: Account; guard: KeyGuard } | undefined> => {
    const account = await authenticate(store, key);
    if (!account) {
      cache.delete(key);
      return undefined;
    }
    if (cache.size >= MAX_CACHED_KEYS) cache.clear();
    const entry = {
      account,
      guard: { keyHash: hashKey(key), accountId: account.id, accountUpdatedAt: account.updated_at },
    };
    cache.set(key, entry);
    return entry;
  };
  const refused = () => simpleError(401, 'the API key is not valid');
  return {
    authenticate: (key) => cache.get(key)?.account ?? lookup(key).then((entry) => entry?.account),
    async handle(inner, request, account, key) {
      if (request.method.toUpperCase() !== 'GET') {
        const fresh = await lookup(key);
        return fresh ? inner.handle(request, fresh.account) : refused();
      }
      const entry = cache.get(key) ?? (await lookup(key));
      if (!entry) return refused();
      try {
        return await inner.handle(request, entry.account, entry.guard);
      } catch (error) {
        if ((error as Error).name !== 'KeyGuardError') throw error;
        cache.delete(key);
        const fresh = await lookup(key);
        return fresh ? inner.handle(request, fresh.account, fresh.guard) : refused();
      }
    },
  };
}

export async function listen(options: ListenOptions): Promise<RunningServer> {
  const log = options.log ?? stderrLog;
  const { store } = options;
  // No request waits on the thread for a lock another process holds: reads need none, and a write
  // waits for it on timers (the background's work skips a busy turn: see runtime/serve.ts).
  if (store.engine === 'sqlite') (store as SqliteStore).yieldWhenBusy();
  let closing = false;
  let handler: RequestHandler | undefined;
  let router: Router | undefined;

  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_S * 1000;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_S * 1000;
  const server = createServer({
    keepAlive: true,
    keepAliveInitialDelay: 30_000,
    // node:http looks for requests past their timeouts this often (its default, 30 s, would let a
    // 10 s headers timeout run to 40 s): one sweep over the connections, not a timer per request.
    connectionsCheckingInterval: Math.max(
      50,
      Math.min(1_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4)),
    ),
  });
  // Keep-alive friendly: idle connections live longer than a typical proxy's 60 s idle timeout,
  // so the proxy, not this server, closes them (and at the connection cap, idle ones go first).
  // A request's headers must arrive within seconds of its first byte, the whole request soon after:
  // a client that stalls half-way gives its connection back.
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_S * 1000;
  server.headersTimeout = headersTimeout;
  server.requestTimeout = requestTimeout;
  const connections = guardConnections(server, options.maxConnections ?? defaultMaxConnections(openFilesLimit()), {
    silentMs: 2 * headersTimeout,
    log,
  });

  const guarded = store.engine === 'postgres' && !options.handler ? guardedAuthentication(store) : undefined;
  const background = options.background;
  // Recorded on every delivery this server's requests and pages write.
  const allowPrivateWebhooks = options.allowPrivateWebhooks ?? false;
  // A write may have written events: their deliveries go out now, not at the next tick.
  const prompting = (response: MaybePromise<ApiResponse>, method: string) =>
    method === 'GET' || !background ? response : andThen(response, (answer) => (background.poke(), answer));
  const adapter = createHttpAdapter({
    handler: {
      handle: (request, account, key) =>
        prompting(
          guarded ? guarded.handle(router!, request, account, key) : handler!.handle(request, account, key),
          request.method.toUpperCase(),
        ),
    },
    ...(store.engine === 'sqlite'
      ? {
          authenticate: cachedAuthentication(store as SqliteStore),
          atOnce: <T>(fn: () => T) => (store as SqliteStore).snapshot(fn),
        }
      : {
          authenticate: guarded
            ? (key: string) => guarded.authenticate(key)
            : (key: string) => authenticate(store, key),
        }),
    log,
    uploads: options.handler ? undefined : takesUpload,
    admit: connections.admit,
    closing: () => closing,
    onSettled: () => {
      if (closing) server.closeIdleConnections();
    },
  });
  // The customers' pages (mandate, invoice) beside the API; made once the base URL is known.
  let pages: Pages | undefined;
  server.on('request', (req, res) => (pages?.match(req) ? pages.handle(req, res) : adapter(req, res)));
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Not HTTP, headers too large, or too slow: answered here (the router never sees it), then closed.
    const busy = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || busy) return void socket.destroy();
    const [status, title] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout']
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request Header Fields Too Large']
          : [400, 'Bad Request'];
    const body = JSON.stringify({
      errors: [{ status: String(status), title, detail: 'the request could not be read as HTTP' }],
    });
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${JSONAPI}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(options.port, options.host);
  });

  // After listening, a server error (accept failing, e.g. too many open files) is logged, not fatal.
  server.on('error', (error) => log(`billing serve: server error: ${error.message}`));

  const address = server.address() as AddressInfo;
  const url = originOf(address.address, address.port);
  const baseUrl = (options.publicUrl ?? url).replace(/\/+$/, '');
  const onError = (error: unknown) =>
    log(`billing serve: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  if (options.handler) handler = options.handler(baseUrl);
  else {
    const created = createRouter({ store, clock: options.clock, baseUrl, onError, allowPrivateWebhooks });
    router = created;
    handler = { handle: (request, account) => created.handle(request, account) };
  }
  if (!options.handler) {
    const changed = () => background?.poke();
    pages = createPages({
      store,
      clock: options.clock,
      baseUrl,
      log,
      changed,
      guesses: options.pageGuesses,
      allowPrivateWebhooks,
    });
  }
  log(`billing serve: listening on ${url} (store: ${store.location}${options.publicUrl ? `; links: ${baseUrl}` : ''})`);

  background?.start(baseUrl);

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      const timer = setTimeout(() => server.closeAllConnections(), options.shutdownTimeoutMs ?? 10_000);
      server.close(() => {
        clearTimeout(timer);
        // The due work and the deliveries in progress finish before the store closes.
        void Promise.resolve(background?.close())
          .then(() => (options.closeStore !== false ? store.close() : undefined))
          .then(resolve, resolve);
      });
      // Idle keep-alive connections go now; busy ones once their answer is out (onSettled).
      server.closeIdleConnections();
    });
    return closed;
  };

  return { url, baseUrl, port: address.port, server, close };
}
