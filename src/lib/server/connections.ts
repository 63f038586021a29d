// The cap on connections, so that slow or many clients cannot lock the others out. Every accepted
// connection is counted; at the cap a newcomer takes the place of one that is doing nothing:
//   1. the idle keep-alive connection asked least recently (between two of its requests), else
//   2. the oldest connection that has not finished sending its first request's headers (a client
//      that stalls half-way, or a flood of them, the way a slowloris attack does), else
//   3. the one asked least recently of those whose request was refused and answered (401, 413,
//      415) and that only read the rest of its body to throw it away;
// a connection with a request being read or answered is never closed for a newcomer. Only when
// every connection is such a one is the newcomer refused: 503 with Retry-After to its request, then
// closed (or closed at once, when many are already waiting to be refused).
// A connection quiet for `silentMs` before its first request is closed: node:http's headers timeout
// counts only from a request's first byte, so one that sends nothing at all would stay. (serve.ts
// gives twice the headers timeout: one that sent half its headers gets node:http's 408 first.)
// The cost per request is two Set operations (admit): no closure, no timer.
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { errorResponse } from '../api/errors.js';
import type { ApiResponse } from '../api/http.js';
import { isDraining } from './http-adapter.js';

/** At most this many refused connections wait for their request (each holds a file descriptor). */
export const MAX_REFUSED_WAITING = 32;
/** How long a refused connection may take to send its request before it is closed. */
export const REFUSED_GRACE_MS = 5_000;
/** The log says the cap was reached at most this often. */
export const CAP_LOG_INTERVAL_MS = 60_000;

export interface ConnectionGuard {
  /** For the adapter's `admit`: marks the connection as asked now; a 503 for a refused connection. */
  admit: (req: IncomingMessage) => ApiResponse | undefined;
  /** Connections counted against the cap (refused ones are not). */
  readonly count: number;
}

/** Whether node:http is reading or answering a request on the socket (its response is assigned to it). */
const busy = (socket: Socket): boolean => (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;

export interface GuardOptions {
  /** A connection quiet this long before its first request is closed; 0: never. */
  silentMs?: number;
  /** Where "at the connection limit" goes, at most once a minute. */
  log?: (line: string) => void;
  /** Milliseconds; injectable for tests. */
  now?: () => number;
}

export function guardConnections(server: Server, max: number, options: GuardOptions = {}): ConnectionGuard {
  const { silentMs = 0, log, now = Date.now } = options;
  const loggedAt = new Map<string, number>();
  const atCap = (what: string) => {
    if (!log || now() - (loggedAt.get(what) ?? -Infinity) < CAP_LOG_INTERVAL_MS) return;
    loggedAt.set(what, now());
    log(`billing serve: at the connection limit (${max}, --max-connections): ${what} (said at most once a minute)`);
  };
  /** Accepted, no request yet: oldest first. */
  const fresh = new Set<Socket>();
  /** At least one request: the one asked least recently first (a Set keeps insertion order). */
  const served = new Set<Socket>();
  /** Over the cap with no one to close in their place: their request is answered 503. */
  const refused = new Set<Socket>();
  const tooBusy = errorResponse(
    503,
    [
      {
        status: '503',
        title: 'Service Unavailable',
        detail: 'the server is at its connection limit; try again shortly',
      },
    ],
    {
      headers: { 'retry-after': '1' },
    },
  );

  // One listener for every socket (this = the socket): no closure per connection.
  function forget(this: Socket) {
    if (!fresh.delete(this) && !served.delete(this)) refused.delete(this);
  }

  /** Closes one connection that is doing nothing, to make room; false when every one is busy. */
  const evict = (): boolean => {
    for (const socket of served) {
      if (busy(socket)) continue;
      served.delete(socket);
      socket.destroy();
      return true;
    }
    for (const socket of fresh) {
      fresh.delete(socket);
      socket.destroy();
      return true;
    }
    for (const socket of served) {
      if (!isDraining(socket)) continue;
      served.delete(socket);
      socket.destroy();
      return true;
    }
    return false;
  };

  server.on('connection', (socket: Socket) => {
    socket.on('close', forget);
    let room = fresh.size + served.size < max;
    if (!room && evict()) {
      room = true;
      atCap('closing idle or stalled connections for newcomers');
    }
    if (room) {
      fresh.add(socket);
      // Until its first request (admit clears it); node:http closes it when the time passes.
      if (silentMs > 0) socket.setTimeout(silentMs);
      return;
    }
    atCap('every connection has a request in progress; newcomers get 503');
    if (refused.size >= MAX_REFUSED_WAITING) return void socket.destroy();
    refused.add(socket);
    // node:http closes a socket whose timeout passes when nobody listens for it.
    socket.setTimeout(REFUSED_GRACE_MS);
  });

  return {
    admit(req) {
      const socket = req.socket;
      if (served.delete(socket)) {
        served.add(socket);
        return undefined;
      }
      if (fresh.delete(socket)) {
        if (silentMs > 0) socket.setTimeout(0);
        served.add(socket);
        return undefined;
      }
      return refused.has(socket) ? tooBusy : undefined;
    },
    get count() {
      return fresh.size + served.size;
    },
  };
}
