// `billing api METHOD PATH`: any request through the current mode, the document printed as is.
import type { Command } from 'commander';
import { dataText } from '../../lib/command/data.js';
import type { Deps } from '../../lib/command/deps.js';
import { ApiError, UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { render, type Document } from '../../lib/output/render.js';

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'];

export interface ApiOptions {
  method: string;
  path: string;
  data?: string;
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
  if (deps.globals.dryRun && method !== 'GET') {
    deps.io.out(`${JSON.stringify({ method, path: options.path, body: body ?? null }, null, 2)}\n`);
    return;
  }
  const [path, query] = options.path.split('?', 2);
  const transport = await deps.transport();
  const response = await transport.request({ method, path: query === undefined ? path : `${path}?${query}`, body });
  if (response.status >= 400) throw new ApiError(response.status, response.body);
  if (response.body === undefined) {
    if (!deps.globals.quiet) deps.io.err(`${response.status} (no content)\n`);
    return;
  }
  // The raw document unless a format was asked for (-o table renders it for people).
  const globals = deps.globals.outputExplicit ? deps.globals : { ...deps.globals, output: 'json' as const };
  await render(response.body as Document, globals, deps.io);
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<method>', 'GET, POST, PATCH or DELETE')
    .argument('<path>', 'path with query, e.g. "/customers?page[size]=5"')
    .option('--data <json>', 'request document as JSON, @file, or - for stdin')
    .addHelpText(
      'after',
      examples(
        'billing api GET /customers/1',
        'billing api GET "/customers?page[number]=2&page[size]=5"',
        `billing api POST /customers --data '{"data":{"type":"customer","attributes":{"first_name":"Jan","last_name":"Jansen","email":"jan@example.com"}}}'`,
      ),
    )
    .action((method: string, path: string, opts: { data?: string }, command: Command) =>
      invoke(command, (deps) => run({ method, path, data: opts.data }, deps)),
    );
}
