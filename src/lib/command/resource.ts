// The verbs every resource shares (list, get, create, update, ...), written once and configured
// per resource: a command file says which resource, these say how.
import type { Command } from 'commander';
import type { ResourceLike } from '../output/columns.js';
import type { Document } from '../output/render.js';
import { render } from '../output/render.js';
import { safeText } from '../output/format.js';
import type { TransportRequest, TransportResponse } from '../transport/types.js';
import type { Deps } from './deps.js';
import { ProtocolError } from '../transport/types.js';
import { ApiError, UsageError } from './errors.js';
import type { Invoke } from './registry.js';

export interface ResourceInfo {
  /** JSON:API type, e.g. `customer`. */
  type: string;
  /** Collection path, e.g. `/customers`. */
  path: string;
  /** Singular noun for messages, e.g. `customer`. */
  noun: string;
}

/** Sends a request; an error answer becomes an ApiError (exit 1, or 4 for 401). */
export async function send(deps: Deps, request: TransportRequest): Promise<TransportResponse> {
  const transport = await deps.transport();
  const response = await transport.request(request);
  if (response.status >= 400) throw new ApiError(response.status, response.body);
  return response;
}

export function parseId(value: string, what = 'ID'): number {
  if (!/^[1-9]\d{0,15}$/.test(value.trim())) throw new UsageError(`${what} must be a positive whole number, not "${value}"`);
  return Number(value.trim());
}

function positive(value: unknown, flag: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(`${flag} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? 'of at least 1' : `from 1 to ${max}`}`);
  }
  return Number(text);
}

/** The service's largest page. */
const MAX_PAGE_SIZE = 100;

// ---- reading ----

export interface ReadOptions {
  include?: string;
  /** `fields[TYPE]` parameters from --fields TYPE=a,b. */
  fields: Record<string, string>;
}

export interface ListOptions extends ReadOptions {
  page?: number;
  pageSize?: number;
  all: boolean;
  /** Finding and ordering: `filter[…]` and `sort` parameters, sent as given (undefined is left out). */
  find?: Record<string, string | undefined>;
}

export function addReadOptions(cmd: Command, includes: readonly string[]): Command {
  if (includes.length) cmd.option('--include <rel>', `embed related resources (${includes.join(', ')})`);
  return cmd.option('--fields <type=a,b...>', 'only these attributes of a type, e.g. customer=first_name,email (repeatable)', (v: string, prev: string[] = []) => [...prev, v]);
}

export function addListOptions(cmd: Command, includes: readonly string[]): Command {
  return addReadOptions(cmd, includes)
    .option('--page <n>', 'page number (default 1)')
    .option('--page-size <n>', 'resources per page, 1 to 100 (default 10)')
    .option('--all', 'every page (follows links.next)');
}

export function readOptions(opts: Record<string, unknown>): ReadOptions {
  const fields: Record<string, string> = {};
  for (const spec of (opts.fields as string[] | undefined) ?? []) {
    const match = /^([a-z-]+)=([a-z0-9_,]+)$/i.exec(spec.trim());
    if (!match) throw new UsageError(`--fields takes TYPE=a,b (for example customer=first_name,email), not "${spec}"`);
    fields[`fields[${match[1]}]`] = match[2];
  }
  return { include: opts.include as string | undefined, fields };
}

export function listOptions(opts: Record<string, unknown>): ListOptions {
  return { ...readOptions(opts), page: positive(opts.page, '--page'), pageSize: positive(opts.pageSize, '--page-size', MAX_PAGE_SIZE), all: Boolean(opts.all) };
}

const readQuery = (o: ReadOptions) => ({ include: o.include, ...o.fields });

/** Upper bound of pages for --all when the service gives no meta.total. */
const MAX_PAGES = 10_000;

interface Collection extends Document {
  data: ResourceLike[];
}

/** Lists a collection: one page, or every page with --all (one document holding all the data). */
export async function runList(deps: Deps, path: string, type: string, options: ListOptions): Promise<void> {
  const query = { ...readQuery(options), ...options.find, 'page[number]': options.all ? 1 : options.page, 'page[size]': options.pageSize };
  const first = (await send(deps, { method: 'GET', path, query })).body as Collection;
  let document = first;
  if (options.all) {
    document = { ...first, data: [...first.data], included: first.included ? [...first.included] : undefined };
    const seen = new Set(document.included?.map((r) => `${r.type}/${r.id}`));
    let next = first.links?.next;
    // Bounded by the page count the first page announces (or a generous cap without meta.total),
    // so a server whose links loop cannot keep this running.
    const size = first.data.length || 1;
    const total = first.meta?.total;
    let budget = total === undefined ? MAX_PAGES : Math.ceil(total / size) + 1;
    while (next) {
      if (budget-- <= 0) throw new ProtocolError(`stopped following links.next after ${total === undefined ? MAX_PAGES : 'the announced number of'} pages; the service keeps announcing more`);
      const page = (await send(deps, { method: 'GET', path: next })).body as Collection;
      document.data.push(...page.data);
      for (const resource of page.included ?? []) {
        if (!seen.has(`${resource.type}/${resource.id}`)) {
          seen.add(`${resource.type}/${resource.id}`);
          (document.included ??= []).push(resource);
        }
      }
      next = page.links?.next;
    }
    if (!document.included) delete document.included;
    document.links = { ...first.links, next: null };
  }
  await render(document, deps.globals, deps.io, { type, all: options.all, pageSize: options.pageSize });
}

export async function runGet(deps: Deps, path: string, options: ReadOptions): Promise<void> {
  const response = await send(deps, { method: 'GET', path, query: readQuery(options) });
  await render(response.body as Document, deps.globals, deps.io);
}

// ---- writing ----

export interface WriteRequest {
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  type: string;
  id?: number;
  attributes?: Record<string, unknown>;
  /** Past tense for the stderr message, e.g. "created customer". */
  done: string;
}

/** Sends a change (or prints it with --dry-run) and shows the resource the service returns. */
export async function runWrite(deps: Deps, request: WriteRequest): Promise<void> {
  const body =
    request.attributes === undefined
      ? undefined
      : { data: { type: request.type, ...(request.id === undefined ? {} : { id: String(request.id) }), attributes: request.attributes } };
  if (deps.globals.dryRun) {
    deps.io.out(`${JSON.stringify({ method: request.method, path: request.path, body: body ?? null }, null, 2)}\n`);
    return;
  }
  const response = await send(deps, { method: request.method, path: request.path, body });
  const document = response.body as Document | undefined;
  const resource = document?.data && !Array.isArray(document.data) ? document.data : undefined;
  if (!deps.globals.quiet) deps.io.err(safeText(`${request.done}${resource ? ` ${resource.id}` : request.id ? ` ${request.id}` : ''}\n`));
  if (document) await render(document, deps.globals, deps.io);
}

export function configureList(cmd: Command, info: ResourceInfo, includes: readonly string[], invoke: Invoke): void {
  addListOptions(cmd, includes).action((opts: Record<string, unknown>, command: Command) =>
    invoke(command, (deps) => runList(deps, info.path, info.type, listOptions(opts))),
  );
}

export function configureGet(cmd: Command, info: ResourceInfo, includes: readonly string[], invoke: Invoke): void {
  addReadOptions(cmd.argument('<id>', `${info.noun} id`), includes).action((idText: string, opts: Record<string, unknown>, command: Command) =>
    invoke(command, (deps) => runGet(deps, `${info.path}/${parseId(idText)}`, readOptions(opts))),
  );
}

/** A to-many collection of one resource, e.g. `customers subscriptions ID`. */
export function configureRelatedList(cmd: Command, info: ResourceInfo, relation: { path: string; type: string }, invoke: Invoke): void {
  addListOptions(cmd.argument('<id>', `${info.noun} id`), []).action((idText: string, opts: Record<string, unknown>, command: Command) =>
    invoke(command, (deps) => runList(deps, `${info.path}/${parseId(idText)}/${relation.path}`, relation.type, listOptions(opts))),
  );
}
