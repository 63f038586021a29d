// The one factory of what a command runs against. Everything is built on first use, so --help
// never opens SQLite and remote mode never loads the store.
import { readConfig } from '../config/file.js';
import { resolveSettings, type Settings } from '../config/settings.js';
import type { MailSettings, Runtime } from '../runtime/runtime.js';
import type { Transport } from '../transport/types.js';
import type { Prompter } from '../prompts/prompter.js';
import { inquirerPrompter } from '../prompts/inquirer.js';
import { UsageError } from '../cli/errors.js';
import type { GlobalOptions } from '../cli/globals.js';
import type { IO } from '../cli/io.js';

export interface Deps {
  io: IO;
  globals: GlobalOptions;
  env: NodeJS.ProcessEnv;
  settings: Settings;
  /** Whether a person may be asked: a terminal on both ends, no --no-input, no CI. */
  canPrompt: boolean;
  /** Asks a person; use only when canPrompt (the prompt helpers of ./prompting.ts and ./confirm.ts check it). */
  prompter: Prompter;
  /**
   * The transport of the mode. Embedded, the store is opened at the first request, and its method
   * decides what may be made: a GET needs an existing store (StoreMissingError otherwise), any
   * other request may create it. `limits` bound a remote transport this call makes (the first
   * call makes it): shell completion must answer within its deadline, not retry for half a minute.
   */
  transport(limits?: TransportLimits): Promise<Transport>;
  /**
   * The runtime of the embedded store, for embedded-only commands; a usage error in remote mode.
   * A command that only reads (`write: false`) needs an existing store and makes nothing.
   */
  runtime(commandName: string, needs: RuntimeNeeds): Promise<Runtime>;
  close(): Promise<void>;
}

export interface RuntimeNeeds {
  /** Whether the command may change the store (and so make it); otherwise it must exist. */
  write: boolean;
  /** billing serve: webhook URLs on private networks refused unless allowed, and nothing sent at close (its own dispatcher sends). */
  serving?: { allowPrivateWebhooks: boolean };
}

export interface TransportLimits {
  timeoutMs: number;
  retries: number;
}

export interface DepsOverrides {
  transport?: Transport;
  runtime?: Runtime;
  prompter?: Prompter;
  /** Tests: treat the fake terminal as one a person may be asked at. */
  canPrompt?: boolean;
}

/** The usage error of an embedded-only command in remote mode. */
export const embeddedOnly = (commandName: string, baseUrl: string | undefined): UsageError =>
  new UsageError(
    `${commandName} works only on the embedded store; it cannot run against ${baseUrl} (drop --base-url / BILLING_BASE_URL)`,
  );

/**
 * --idempotency-key on every write a command sends: the first carries KEY, the next KEY/2 and so
 * on, in the order the command sends them, so a command run again with the same key sends the same
 * keys and each write is made once. A request with a key of its own (an import's rows) keeps it.
 */
function keyed(transport: Transport, key: string, use: { writes: number }): Transport {
  return {
    mode: transport.mode,
    request(request) {
      if (request.method.toUpperCase() === 'GET' || request.idempotencyKey !== undefined)
        return transport.request(request);
      const n = ++use.writes;
      return transport.request({ ...request, idempotencyKey: n === 1 ? key : `${key}/${n}` });
    },
    close: () => transport.close(),
  };
}

/** The most BILLING_BUSY_MS accepted: an hour. */
const MAX_BUSY_MS = 3_600_000;

/**
 * BILLING_BUSY_MS: how long a write waits for the lock of a SQLite store another process holds
 * before it gives up (exit 1; billing serve answers 503); undefined for the default.
 */
export function busyMsFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.BILLING_BUSY_MS?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > MAX_BUSY_MS) {
    throw new UsageError(
      `BILLING_BUSY_MS must be a whole number of milliseconds from 0 to ${MAX_BUSY_MS}, not "${raw}"`,
    );
  }
  return value;
}

/** BILLING_SMTP_URL for the emails an embedded command caused; a bad one is warned about (the command's own work is done by then). */
async function mailSettings(env: NodeJS.ProcessEnv, io: IO): Promise<MailSettings | undefined> {
  if (!env.BILLING_SMTP_URL?.trim()) return undefined;
  const { smtpUrlFromEnv } = await import('../runtime/mail.js');
  try {
    const smtpUrl = smtpUrlFromEnv(env);
    return smtpUrl ? { smtpUrl, from: env.BILLING_SMTP_FROM?.trim() || undefined } : undefined;
  } catch (error) {
    io.err(`warning: ${(error as Error).message}; customer emails were not sent\n`);
    return undefined;
  }
}

export function createDeps(
  io: IO,
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  overrides: DepsOverrides = {},
): Deps {
  // Resolved on first use: `profiles add` and `config set` must work even when the profile in use
  // does not exist yet.
  let settings: Settings | undefined;
  const resolved = () => (settings ??= resolveSettings(globals, env, readConfig(env)));
  let runtime: Runtime | undefined = overrides.runtime;
  const keyUse = { writes: 0 };
  // --idempotency-key keys the writes of whichever transport the command is given (tests give their own).
  let transport: Transport | undefined =
    overrides.transport && globals.idempotencyKey !== undefined
      ? keyed(overrides.transport, globals.idempotencyKey, keyUse)
      : overrides.transport;

  /**
   * The first opening decides: a command that writes may make the store (its folders too, at the
   * default location only); billing serve's store yields when busy.
   */
  const openRuntime = async (write: boolean, serving?: RuntimeNeeds['serving']) => {
    if (!runtime) {
      const busyMs = busyMsFromEnv(env);
      const { openRuntime } = await import('../runtime/runtime.js');
      // With --verbose, a failure inside the core shows its stack; the answer is a 500 either way.
      const { redact } = await import('../runtime/locations.js');
      const onError = globals.verbose
        ? (error: unknown) =>
            io.err(`${redact(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`)
        : undefined;
      const { dbPath, dbSource, account } = resolved();
      const create = !write ? 'nothing' : dbSource === 'default' ? 'folders' : 'file';
      runtime = await openRuntime({
        location: dbPath,
        poolSize: globals.poolSize,
        account,
        onError,
        create,
        busyMs,
        serving: serving !== undefined,
        allowPrivateWebhooks: serving ? serving.allowPrivateWebhooks : true,
      });
    }
    return runtime;
  };

  return {
    io,
    globals,
    env,
    get settings() {
      return resolved();
    },
    // stdout first: asking of stdin loads node:tty, which a command writing to a file or a pipe never needs.
    canPrompt: globals.input && (overrides.canPrompt ?? (io.stdoutIsTTY && io.stdinIsTTY && !env.CI)),
    prompter: overrides.prompter ?? inquirerPrompter(),
    async transport(limits) {
      if (!transport) {
        const settings = resolved();
        if (settings.mode === 'remote') {
          if (!/^https?:\/\/[^/]+/i.test(settings.baseUrl!))
            throw new UsageError(`the base URL must be an absolute http(s) URL, not "${settings.baseUrl}"`);
          if (settings.refusal !== undefined) throw new UsageError(settings.refusal);
          const { httpTransport } = await import('../transport/http.js');
          transport = httpTransport({
            baseUrl: settings.baseUrl!,
            apiKey: settings.apiKey,
            timeoutMs: Math.min(settings.timeoutMs, limits?.timeoutMs ?? Infinity),
            retries: limits?.retries,
          });
        } else {
          const { embeddedTransport } = await import('../transport/embedded.js');
          let embedded: Transport | undefined;
          transport = {
            mode: 'embedded',
            async request(request) {
              embedded ??= embeddedTransport(await openRuntime(request.method.toUpperCase() !== 'GET'));
              return embedded.request(request);
            },
            async close() {
              await embedded?.close();
            },
          };
        }
        if (globals.idempotencyKey !== undefined) transport = keyed(transport, globals.idempotencyKey, keyUse);
        if (globals.verbose) {
          const { verbose } = await import('../transport/verbose.js');
          transport = verbose(transport, (text) => io.err(text));
        }
      }
      return transport;
    },
    async runtime(commandName, needs) {
      const settings = resolved();
      if (settings.mode === 'remote') throw embeddedOnly(commandName, settings.baseUrl);
      const opened = await openRuntime(needs.write, needs.serving);
      // billing serve sends its webhooks itself, under its own rules: nothing is left to send on its way out.
      opened.changed = !needs.serving && (opened.changed || needs.write);
      return opened;
    },
    async close() {
      // What this command caused goes out before the store closes.
      const sending = {
        mail: () => mailSettings(env, io),
        onError: globals.verbose
          ? (error: unknown) =>
              io.err(`billing: sending left for later: ${error instanceof Error ? error.message : String(error)}\n`)
          : undefined,
      };
      await runtime?.close(sending);
      await transport?.close();
      if (globals.idempotencyKey !== undefined && keyUse.writes === 0 && !globals.dryRun && !globals.quiet)
        io.err('warning: --idempotency-key was not used: this command sent the service no change\n');
    },
  };
}
