// `billing serve`: the embedded store behind the HTTP API, until SIGINT or SIGTERM.
import { DEFAULT_BUSY_MS } from '../../lib/runtime/locations.js';
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose, refusesDryRun } from '../../lib/command/registry.js';
import {
  connectionsWithin,
  DEFAULT_HEADERS_TIMEOUT_S,
  DEFAULT_KEEP_ALIVE_TIMEOUT_S,
  DEFAULT_REQUEST_TIMEOUT_S,
  defaultMaxConnections,
  FALLBACK_MAX_CONNECTIONS,
  MAX_DEFAULT_CONNECTIONS,
  openFilesLimit,
  RESERVED_FDS,
} from '../../lib/runtime/serve.js';
import type { MailSender } from '../../lib/runtime/serve.js';

export interface ServeOptions {
  host: string;
  port: number;
  publicUrl?: string;
  allowPrivateWebhooks: boolean;
  /** Undefined: derived from the open-files limit when the server starts. */
  maxConnections?: number;
  /** Seconds. */
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
}

export interface ServeFlags {
  port?: string;
  host?: string;
  publicUrl?: string;
  allowPrivateWebhooks?: boolean;
  maxConnections?: string;
  headersTimeout?: string;
  requestTimeout?: string;
  keepAliveTimeout?: string;
}

/** The most --max-connections accepted at all (the open-files limit, when known, allows fewer). */
export const MAX_CONNECTIONS_FLAG = 1_000_000;
/** The longest any of the timeouts may be, in seconds. */
export const MAX_TIMEOUT_S = 3_600;

/** A whole number of connections from 1 to MAX_CONNECTIONS_FLAG. */
function connectionsFlag(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > MAX_CONNECTIONS_FLAG) {
    throw new UsageError(`--max-connections must be a whole number from 1 to ${MAX_CONNECTIONS_FLAG}, not "${text}"`);
  }
  return value;
}

/** Seconds above 0 and at most MAX_TIMEOUT_S; fractions allowed (0.5). */
function secondsFlag(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || value <= 0 || value > MAX_TIMEOUT_S) {
    throw new UsageError(`${flag} must be a number of seconds above 0 and at most ${MAX_TIMEOUT_S}, not "${text}"`);
  }
  return value;
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';

/** Flags to options; bad values are usage errors. */
export function parseServeOptions(flags: ServeFlags): ServeOptions {
  const portText = flags.port ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText.trim()) || port > 65535)
    throw new UsageError(`--port must be an integer from 0 to 65535 (0 picks a free port), not "${portText}"`);
  const host = (flags.host ?? DEFAULT_HOST).trim();
  if (host === '')
    throw new UsageError('--host must not be empty (for example 127.0.0.1, or 0.0.0.0 for every interface)');
  let publicUrl: string | undefined;
  if (flags.publicUrl !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(flags.publicUrl);
    } catch {
      parsed = undefined;
    }
    if (
      !parsed ||
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
      parsed.search ||
      parsed.hash ||
      parsed.username ||
      parsed.password
    ) {
      throw new UsageError(
        `--public-url must be an absolute http(s) URL without query or credentials, e.g. https://billing.example.com, not "${flags.publicUrl}"`,
      );
    }
    publicUrl = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
  }
  const maxConnections = flags.maxConnections === undefined ? undefined : connectionsFlag(flags.maxConnections);
  const headersTimeout = secondsFlag('--headers-timeout', flags.headersTimeout, DEFAULT_HEADERS_TIMEOUT_S);
  const requestTimeout = secondsFlag('--request-timeout', flags.requestTimeout, DEFAULT_REQUEST_TIMEOUT_S);
  const keepAliveTimeout = secondsFlag('--keep-alive-timeout', flags.keepAliveTimeout, DEFAULT_KEEP_ALIVE_TIMEOUT_S);
  if (headersTimeout > requestTimeout) {
    throw new UsageError(
      `--headers-timeout (${headersTimeout} s) must not be longer than --request-timeout (${requestTimeout} s): the headers are part of the request`,
    );
  }
  return {
    host,
    port,
    publicUrl,
    allowPrivateWebhooks: Boolean(flags.allowPrivateWebhooks),
    maxConnections,
    headersTimeout,
    requestTimeout,
    keepAliveTimeout,
  };
}

/**
 * The cap on connections: --max-connections, else derived from the open-files limit (less what the
 * store needs: a PostgreSQL pool holds a descriptor per connection). A cap the limit cannot hold is
 * a usage error: past it, accepting a connection fails and every client is locked out.
 */
export function connectionCap(requested: number | undefined, limit: number | undefined, storeFds: number): number {
  if (requested === undefined) return defaultMaxConnections(limit, storeFds);
  if (limit !== undefined && requested > connectionsWithin(limit, RESERVED_FDS + storeFds)) {
    throw new UsageError(
      `--max-connections ${requested} is more than this process's open-files limit allows: ${limit} files (ulimit -n), less ${RESERVED_FDS + storeFds} kept for the store and the server, leaves at most ${connectionsWithin(limit, RESERVED_FDS + storeFds)}`,
    );
  }
  return requested;
}

/**
 * BILLING_WEBHOOK_LEASE_MS: how long an instance's claim on a delivery holds before another may
 * send it (default: the 10 s timeout and 20 s more). Shorter suits tests of instances killed mid-way.
 */
function deliveryTuning(env: NodeJS.ProcessEnv): { sender?: { leaseMs: number } } {
  const raw = env.BILLING_WEBHOOK_LEASE_MS;
  if (raw === undefined || raw === '') return {};
  const leaseMs = Number(raw);
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1_000)
    throw new UsageError(
      `BILLING_WEBHOOK_LEASE_MS must be a whole number of milliseconds, at least 1000, not "${raw}"`,
    );
  return { sender: { leaseMs } };
}

/** The customers' emails go out with the webhooks when BILLING_SMTP_URL is set (a bad one is a usage error, before listening). */
async function mailer(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<MailSender | undefined> {
  const { smtpUrlFromEnv, describeSmtpUrl, sendDueMail } = await import('../../lib/runtime/mail.js');
  let smtpUrl: string | undefined;
  try {
    smtpUrl = smtpUrlFromEnv(env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!smtpUrl) return undefined;
  log(`billing serve: customer emails go out through ${describeSmtpUrl(smtpUrl)}`);
  const from = env.BILLING_SMTP_FROM?.trim() || undefined;
  return (store, clock, claims) => sendDueMail(store, clock, { smtpUrl, from, log, claims });
}

/** Where shutdown signals come from; `process` in the CLI, an emitter in tests. */
export interface SignalSource {
  on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  off(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

/** Serves until the first SIGINT or SIGTERM, then shuts down gracefully (a second signal cuts connections). */
export async function run(options: ServeOptions, deps: Deps, signals: SignalSource = process): Promise<void> {
  const runtime = await deps.runtime('serve', {
    write: true,
    serving: { allowPrivateWebhooks: options.allowPrivateWebhooks },
  });
  const { serveRuntime, storeDescriptors, lineBuffer } = await import('../../lib/runtime/serve.js');
  // A PostgreSQL store holds one descriptor per pooled connection (the pool is open by now).
  const maxConnections = connectionCap(
    options.maxConnections,
    openFilesLimit(),
    await storeDescriptors(runtime, deps.globals.poolSize),
  );
  const log = lineBuffer((text) => deps.io.err(text));
  let server: Awaited<ReturnType<typeof serveRuntime>>;
  try {
    server = await serveRuntime(runtime, {
      host: options.host,
      port: options.port,
      publicUrl: options.publicUrl,
      ...deliveryTuning(deps.env),
      mail: await mailer(deps.env, log.line),
      log: log.line,
      maxConnections,
      headersTimeoutMs: options.headersTimeout * 1000,
      requestTimeoutMs: options.requestTimeout * 1000,
      keepAliveTimeoutMs: options.keepAliveTimeout * 1000,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${options.host}:${options.port}`;
    if (code === 'EADDRINUSE')
      throw new UsageError(
        `cannot listen on ${where}: the port is in use (choose another with --port, or --port 0 for a free one)`,
      );
    if (code === 'EACCES')
      throw new UsageError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new UsageError(`cannot listen on ${where}: --host is not an address of this machine`);
    throw error;
  }
  log.flush(); // the listening line, at once
  // Lines still queued when the process ends (a crash included) are written on the way out.
  process.once('exit', log.flush);
  await new Promise<void>((resolve, reject) => {
    let stopping = false;
    const onSignal = () => {
      if (stopping) {
        // A second signal: stop waiting for slow requests.
        server.server.closeAllConnections();
        return;
      }
      stopping = true;
      log.flush();
      if (!deps.globals.quiet) deps.io.err('billing serve: shutting down (waiting for requests in progress)\n');
      server.close().then(() => {
        log.flush();
        process.off('exit', log.flush);
        signals.off('SIGINT', onSignal);
        signals.off('SIGTERM', onSignal);
        if (!deps.globals.quiet) deps.io.err('billing serve: stopped\n');
        resolve();
      }, reject);
    };
    signals.on('SIGINT', onSignal);
    signals.on('SIGTERM', onSignal);
  });
}

export function configure(cmd: Command, invoke: Invoke): void {
  refusesDryRun(cmd, 'a server answers requests as they come; there is nothing to show in advance')
    .option('--port <port>', `port to listen on, 0 for a free one (default ${DEFAULT_PORT})`)
    .option('--host <host>', `address to listen on (default ${DEFAULT_HOST})`)
    .option(
      '--public-url <url>',
      'base URL of links in documents, as clients reach this server (default http://HOST:PORT)',
    )
    .option('--allow-private-webhooks', 'allow webhook URLs on loopback and private networks')
    .option(
      '--max-connections <n>',
      `most connections at once; at the limit, one doing nothing (idle, else stalled in its first request) is closed for a newcomer, else the newcomer gets 503 (default: the open-files limit, ulimit -n, less ${RESERVED_FDS}, at most ${MAX_DEFAULT_CONNECTIONS}; ${FALLBACK_MAX_CONNECTIONS} where the limit cannot be read)`,
    )
    .option(
      '--headers-timeout <seconds>',
      `time a request's headers may take to arrive, from their first byte (default ${DEFAULT_HEADERS_TIMEOUT_S})`,
    )
    .option(
      '--request-timeout <seconds>',
      `time a whole request, body included, may take to arrive (default ${DEFAULT_REQUEST_TIMEOUT_S})`,
    )
    .option(
      '--keep-alive-timeout <seconds>',
      `time an idle connection is kept open between requests (default ${DEFAULT_KEEP_ALIVE_TIMEOUT_S})`,
    )
    .addHelpText(
      'after',
      prose(
        "Serves the embedded store (--db, BILLING_DB) over HTTP. Every request needs an account's API key in X-Authorization (see: billing accounts create, billing accounts rotate-key). Stops on Ctrl-C or SIGTERM, after finishing requests in progress.",
      ),
    )
    .addHelpText(
      'after',
      prose(
        "While another process holds a SQLite store's write lock, reads go on being answered and a write waits for " +
          `the lock on its own, for at most BILLING_BUSY_MS milliseconds (default ${DEFAULT_BUSY_MS}), then is ` +
          'answered 503 with Retry-After, having changed nothing.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing serve',
        'billing serve --port 0',
        'billing serve --host 0.0.0.0 --port 8080 --public-url https://billing.example.com',
        'billing serve --max-connections 500 --headers-timeout 5',
      ),
    )
    .action((flags: ServeFlags, command: Command) =>
      invoke(command, async (deps) => {
        await run(parseServeOptions(flags), deps);
      }),
    );
}
