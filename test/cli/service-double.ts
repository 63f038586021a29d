// A service double for command tests that need no core: main() in process with a transport that
// records every request and answers from a function. What a command sends (method, path, query,
// body) and what it prints of an answer are checked exactly, in either mode, without a store.
import { main } from '../../src/cli.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import type { Prompter } from '../../src/lib/prompts/prompter.js';
import type { Transport, TransportRequest, TransportResponse } from '../../src/lib/transport/types.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

export type Answer = (
  request: TransportRequest,
) => { status: number; body?: unknown; headers?: Record<string, string> } | undefined;

export interface DoubleResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Every request the command sent, in order. */
  requests: TransportRequest[];
}

export interface DoubleOptions {
  tty?: boolean;
  columns?: number;
  env?: NodeJS.ProcessEnv;
  /** A person at a terminal answering through this prompter. */
  prompter?: Prompter;
}

/** Runs argv against a double answering with `answer` (undefined from it: 404 Not Found). */
export async function runDouble(
  argv: string[],
  answer: Answer = () => undefined,
  options: DoubleOptions = {},
): Promise<DoubleResult> {
  const requests: TransportRequest[] = [];
  // What the double answers; one that throws (a hook, a clone) rejects the request, as an async method did.
  const reply = (request: TransportRequest): TransportResponse => {
    requests.push(structuredClone(request));
    const answered = answer(request) ?? {
      status: 404,
      body: { errors: [{ status: '404', title: 'Not Found', detail: 'no such resource' }] },
    };
    return {
      status: answered.status,
      headers: answered.headers ?? {},
      body: answered.body === undefined ? undefined : structuredClone(answered.body),
    };
  };
  const transport: Transport = {
    mode: 'embedded',
    request: (request) => new Promise<TransportResponse>((resolve) => resolve(reply(request))),
    async close() {},
  };
  const io = memoryIO({ tty: options.tty ?? (options.prompter ? true : undefined), columns: options.columns });
  // A store path that is never made (the transport answers), and a config folder of its own.
  const env = { BILLING_CONFIG_DIR: tempDir('billing-config-'), BILLING_DB: tempDbPath(), ...options.env };
  const asking = options.prompter ? { prompter: options.prompter, canPrompt: true } : {};
  const code = await main(argv, io, env, { transport, ...asking });
  return { code, stdout: io.stdout, stderr: io.stderr, requests };
}

export const doc = (data: unknown, extra: Record<string, unknown> = {}) => ({ data, ...extra });

export const resource = (
  type: string,
  id: string,
  attributes: Record<string, unknown>,
  relationships?: Record<string, unknown>,
) => ({
  type,
  id,
  attributes,
  ...(relationships ? { relationships } : {}),
});

/** A collection document of one page. */
export const collection = (data: unknown[], total = data.length) => ({
  meta: { total },
  links: { self: 'http://127.0.0.1:8080/x?page[number]=1', first: null, last: null, prev: null, next: null },
  data,
});

export const invalidState = (detail: string, pointer = '/data/attributes/status') => ({
  status: 400,
  body: { errors: [{ status: '400', title: 'Invalid State', detail, source: { pointer } }], meta: { original: null } },
});

/** The request a --dry-run printed. */
export const printed = (stdout: string) =>
  JSON.parse(stdout) as {
    method: string;
    path: string;
    body: { data: { type: string; id?: string; attributes: Record<string, unknown> } } | null;
  };

/** Every help line of a command within 80 columns (example lines are copied whole, never wrapped). */
export function overlong(help: string): string[] {
  return help.split('\n').filter((line) => !line.startsWith('  $ ') && line.length > 80);
}
