// The limits of `billing serve` that keep slow or many clients from locking others out: how many
// connections at once, and how long a request may take to arrive. Their defaults live here, for the
// server and for the command's flags and help alike.
import { readFileSync } from 'node:fs';

/** Seconds a request's headers may take to arrive, from its first byte. */
export const DEFAULT_HEADERS_TIMEOUT_S = 10;
/** Seconds a whole request (headers and a body of at most 1 MiB) may take to arrive. */
export const DEFAULT_REQUEST_TIMEOUT_S = 30;
/** Seconds an idle keep-alive connection is kept: longer than a proxy's usual 60 s, so the proxy closes first. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_S = 65;

/** File descriptors kept out of the connection cap: stdio, the store's files, the listening socket, refusals. */
export const RESERVED_FDS = 64;
/** The default cap when the open-files limit is large (memory, not descriptors, is then the bound). */
export const MAX_DEFAULT_CONNECTIONS = 10_000;
/** The default cap where the open-files limit cannot be read (not Linux). */
export const FALLBACK_MAX_CONNECTIONS = 1_000;

/**
 * The process's soft limit on open files (what `ulimit -n` shows), read from /proc/self/limits on
 * Linux; undefined elsewhere, or when it is unlimited or cannot be read.
 */
export function openFilesLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const match = /^Max open files\s+(\S+)/m.exec(text);
  if (!match || !/^\d+$/.test(match[1])) return undefined;
  return Number(match[1]);
}

/** The most connections a server may hold with this open-files limit, keeping `reserved` descriptors free. */
export function connectionsWithin(limit: number, reserved: number): number {
  return Math.max(1, limit - reserved);
}

/**
 * The default cap on connections: the open-files limit less the reserve (and `extraFds`, e.g. a
 * PostgreSQL pool), at most MAX_DEFAULT_CONNECTIONS; FALLBACK_MAX_CONNECTIONS when the limit is unknown.
 */
export function defaultMaxConnections(limit: number | undefined, extraFds = 0): number {
  if (limit === undefined) return FALLBACK_MAX_CONNECTIONS;
  return Math.min(MAX_DEFAULT_CONNECTIONS, connectionsWithin(limit, RESERVED_FDS + extraFds));
}
