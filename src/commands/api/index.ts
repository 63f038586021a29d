// `billing api METHOD PATH`: any request through the current mode, the document printed as is.
import type { Command } from 'commander';
import { dataText } from '../../lib/command/data.js';
import type { Deps } from '../../lib/command/deps.js';
import { ApiError, UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { eachPage } from '../../lib/command/resource.js';
import { render, type Document } from '../../lib/output/render.js';

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'];

export interface ApiOptions {
  method: string;
  path: string;
  data?: string;
  /** -H 'Name: value', as given. */
  header?: string[];
  paginate?: boolean;
}

/** Set by billing itself: the key has its own flag, and the others follow from the request. */
const OWN_HEADERS = new Set(['accept', 'authorization', 'content-length', 'content-type', 'host', 'x-authorization']);

/** -H lines as headers; Idempotency-Key becomes the request's key (honoured in both modes). */
export function headersOf(lines: readonly string[]): { headers: Record<string, string>; idempotencyKey?: string } {
  const headers: Record<string, string> = {};
  let idempotencyKey: string | undefined;
  for (const line of lines) {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\x20-\x7e]*?)[ \t]*$/.exec(line);
    if (!match) throw new UsageError(`-H takes 'Name: value' (a header name, a colon, printable ASCII), not "${line}"`);
    const name = match[1].toLowerCase();
    if (OWN_HEADERS.has(name))
      throw new UsageError(
        `-H ${match[1]}: billing sets this header itself${name.endsWith('authorization') ? ' (the key: --api-key or a profile)' : ''}`,
      );
    if (name === 'idempotency-key') idempotencyKey = match[2];
    else headers[name] = match[2];
  }
  return { headers, idempotencyKey };
}

export async function run(options: ApiOptions, deps: Deps): Promise<void> {
  const method = options.method.toUpperCase();
  if (!METHODS.includes(method))
    throw new UsageError(`METHOD must be one of ${METHODS.join(', ')}, not "${options.method}"`);
  if (!options.path.startsWith('/') && !/^https?:\/\//.test(options.path))
    throw new UsageError('PATH must start with / (for example /customers/1)');
  let body: unknown;
  if (options.data !== undefined) {
    const text = await dataText(options.data, deps.io);
    // The service refuses more than 64 levels anyway; past that the document is not even sent.
    const { MAX_DEPTH, nestedDeeperThan } = await import('../../lib/schemas/json.js');
    if (nestedDeeperThan(text, MAX_DEPTH)) throw new UsageError(`--data is nested deeper than ${MAX_DEPTH} levels`);
    try {
      body = JSON.parse(text);
    } catch {
      throw new UsageError('--data must be JSON (a whole request document)');
    }
  }
  const { headers, idempotencyKey } = headersOf(options.header ?? []);
  if (options.paginate) {
    if (method !== 'GET') throw new UsageError('--paginate follows the pages of a GET');
    return paginate(deps, options.path, headers);
  }
  if (deps.globals.dryRun && method !== 'GET') {
    deps.io.out(`${JSON.stringify({ method, path: options.path, body: body ?? null }, null, 2)}\n`);
    return;
  }
  const [path, query] = options.path.split('?', 2);
  const transport = await deps.transport();
  const response = await transport.request({
    method,
    path: query === undefined ? path : `${path}?${query}`,
    body,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    ...(Object.keys(headers).length ? { headers } : {}),
  });
  if (response.status >= 400) throw new ApiError(response.status, response.body);
  if (response.body === undefined) {
    if (!deps.globals.quiet) deps.io.err(`${response.status} (no content)\n`);
    return;
  }
  // The raw document unless a format was asked for (-o table renders it for people).
  const globals = deps.globals.outputExplicit ? deps.globals : { ...deps.globals, output: 'json' as const };
  await render(response.body as Document, globals, deps.io);
}

/**
 * Every page of a list, from the one PATH asks for: with -o ndjson each resource a line as its page
 * arrives (memory holds a page), otherwise one document holding them all (links.next null).
 */
async function paginate(deps: Deps, path: string, headers: Record<string, string>): Promise<void> {
  if (Object.keys(headers).length)
    throw new UsageError('-H goes with a single request: --paginate sends the pages as the lists link them');
  const ndjson = deps.globals.output === 'ndjson';
  let merged: (Document & { data: unknown[] }) | undefined;
  await eachPage(deps, path, (page) => {
    if (!Array.isArray(page.data)) throw new UsageError(`${path} answers one resource, not a list: drop --paginate`);
    if (ndjson) for (const resource of page.data) deps.io.out(`${JSON.stringify(resource)}\n`);
    else if (merged === undefined) merged = { ...page, data: [...page.data] };
    else {
      merged.data.push(...page.data);
      if (page.included) merged.included = [...(merged.included ?? []), ...page.included];
    }
    return Promise.resolve();
  });
  if (merged === undefined) return;
  merged.links = { ...merged.links, next: null };
  const globals = deps.globals.outputExplicit ? deps.globals : { ...deps.globals, output: 'json' as const };
  await render(merged, globals, deps.io);
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<method>', 'GET, POST, PATCH or DELETE')
    .argument('<path>', 'path with query, e.g. "/customers?page[size]=5"')
    .option('--data <json>', 'request document as JSON, @file, or - for stdin')
    .option(
      '-H, --header <line>',
      "a header, 'Name: value' (repeatable); Idempotency-Key works in both modes, others go to a server",
      (line: string, lines: string[] = []) => [...lines, line],
    )
    .option('--paginate', 'GET every page of a list: one document, or a resource a line with -o ndjson')
    .addHelpText(
      'after',
      examples(
        'billing api GET /customers/1',
        'billing api GET "/customers?page[number]=2&page[size]=5"',
        `billing api POST /customers --data '{"data":{"type":"customer","attributes":{"first_name":"Jan","last_name":"Jansen","email":"jan@example.com"}}}'`,
        `billing api POST /customers -H 'Idempotency-Key: import-42' --data @customer.json`,
        'billing api GET "/invoices?filter[status]=open" --paginate -o ndjson',
      ),
    )
    .action(
      (
        method: string,
        path: string,
        opts: { data?: string; header?: string[]; paginate?: boolean },
        command: Command,
      ) => invoke(command, (deps) => run({ method, path, ...opts }, deps)),
    );
}
