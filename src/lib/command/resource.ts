// The verbs every resource shares (list, get, create, update, ...), written once and configured
// per resource: a command file says which resource, these say how.
import type { Command } from 'commander';
import type { ResourceLike } from '../output/columns.js';
import type { Document } from '../output/render.js';
import { pageFormat, render, streams } from '../output/render.js';
import { noun } from '../output/columns.js';
import { safeText } from '../output/format.js';
import type { TransportRequest, TransportResponse } from '../transport/types.js';
import type { Deps } from './deps.js';
import { ProtocolError } from '../transport/types.js';
import { ApiError, InterruptedError, UsageError } from '../cli/errors.js';
import type { Interruption } from '../cli/io.js';
import type { Invoke } from './registry.js';
import { MAX_PAGE_SIZE } from '../schemas/vocabulary.js';
import { textOf } from '../schemas/json.js';

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
  if (!/^[1-9]\d{0,15}$/.test(value.trim()))
    throw new UsageError(`${what} must be a positive whole number, not "${value}"`);
  return Number(value.trim());
}

function positive(value: unknown, flag: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(
      `${flag} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? 'of at least 1' : `from 1 to ${max}`}`,
    );
  }
  return Number(text);
}

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
  /** --after ID: only resources with a greater id, in ascending id order (page[after]); resumes an export. */
  after?: number;
  /** Finding and ordering: `filter[…]` and `sort` parameters, sent as given (undefined is left out). */
  find?: Record<string, string | undefined>;
}

export function addReadOptions(cmd: Command, includes: readonly string[]): Command {
  if (includes.length) cmd.option('--include <rel>', `embed related resources (${includes.join(', ')})`);
  return cmd.option(
    '--fields <type=a,b...>',
    'only these attributes of a type, e.g. customer=first_name,email (repeatable)',
    (v: string, prev: string[] = []) => [...prev, v],
  );
}

export function addListOptions(cmd: Command, includes: readonly string[]): Command {
  return addReadOptions(cmd, includes)
    .option('--page <n>', 'page number (default 1)')
    .option('--page-size <n>', 'resources per page, 1 to 100 (default 10)')
    .option('--all', 'every page (follows links.next); with -o ndjson or csv, written page by page as they come')
    .option('--after <id>', 'only resources with a greater id, in id order: resumes an export that stopped');
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

/** --after: an id, or 0 for the start (a resumed script may pass what it has, none yet). */
export function afterId(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const text = textOf(value).trim();
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`--after must be an id (a whole number, 0 for the start), not "${textOf(value)}"`);
  return Number(text);
}

export function listOptions(opts: Record<string, unknown>): ListOptions {
  const options: ListOptions = {
    ...readOptions(opts),
    page: positive(opts.page, '--page'),
    pageSize: positive(opts.pageSize, '--page-size', MAX_PAGE_SIZE),
    all: Boolean(opts.all),
  };
  const after = afterId(opts.after);
  if (after === undefined) return options;
  if (options.page !== undefined)
    throw new UsageError('--after and --page exclude each other: --after starts after an id, --page at a page number');
  return { ...options, after };
}

const readQuery = (o: ReadOptions) => ({ include: o.include, ...o.fields });

/** Upper bound of pages for --all when the service gives no meta.total. */
const MAX_PAGES = 10_000;

interface Collection extends Document {
  data: ResourceLike[];
}

type Query = NonNullable<TransportRequest['query']>;

/** The request of a page: the list's parameters, then the page's own (page[number] or page[after]), then page[size]. */
const pageQuery = (options: ListOptions, page: Query, size = options.pageSize): Query => ({
  ...readQuery(options),
  ...options.find,
  ...page,
  'page[size]': size,
});

/** Waits for a request, or stops when the run is interrupted (streaming); as it is otherwise. */
type Guard = <T>(pending: Promise<T>) => Promise<T>;
const unguarded: Guard = (pending) => pending;

async function getPage(deps: Deps, path: string, query: Query | undefined, guard: Guard): Promise<Collection> {
  return (await guard(send(deps, { method: 'GET', path, query }))).body as Collection;
}

const param = (link: string | null | undefined, name: string): string | null => {
  if (!link) return null;
  try {
    return new URL(link, 'http://localhost').searchParams.get(name);
  } catch {
    return null;
  }
};

/**
 * Whether an answer to page[after] is a keyset page: its links say so (self echoes page[after],
 * next carries the last id) and its ids all follow `after`. The hosted service and older servers
 * ignore page[after] (or refuse it, see refusedAfter) and answer page 1 by number instead.
 */
function honoursAfter(page: Collection, after: number): boolean {
  const { self, next } = page.links ?? {};
  if (param(self, 'page[after]') !== String(after) || param(self, 'page[number]') !== null) return false;
  if (!Array.isArray(page.data) || !page.data.every((resource) => Number(resource.id) > after)) return false;
  return (
    !next ||
    (param(next, 'page[after]') === page.data[page.data.length - 1]?.id && param(next, 'page[number]') === null)
  );
}

/** The service's words when it refused page[after] as a parameter it does not take (400 naming it). */
function refusedAfter(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const errors = (error.document as { errors?: { detail?: unknown; source?: { parameter?: unknown } }[] } | undefined)
    ?.errors;
  const refusal = Array.isArray(errors) ? errors.find((e) => e?.source?.parameter === 'page[after]') : undefined;
  return refusal && (typeof refusal.detail === 'string' ? refusal.detail : 'Invalid Parameter');
}

/**
 * The first page of a list: the page after an id (page[after]) when `keyset` asks for it and the
 * service honours it, else page 1 by number. With `required` (--after) a service that does not
 * page by id is a usage error (exit 2, like an embedded-only command in remote mode): the export
 * it would give is not the one asked for, and nothing has been written yet.
 */
async function firstPage(
  deps: Deps,
  path: string,
  options: ListOptions,
  size: number | undefined,
  keyset: { after: number; required: boolean } | undefined,
  guard: Guard,
): Promise<{ page: Collection; keyset: boolean }> {
  const byNumber = async () => ({
    page: await getPage(deps, path, pageQuery(options, { 'page[number]': 1 }, size), guard),
    keyset: false,
  });
  if (!keyset) return byNumber();
  let page: Collection;
  try {
    page = await getPage(deps, path, pageQuery(options, { 'page[after]': keyset.after }, size), guard);
  } catch (error) {
    const refusal = refusedAfter(error);
    if (refusal === undefined) throw error;
    if (keyset.required)
      throw new UsageError(
        `--after cannot be used with this list: the service refused page[after] (${refusal}); list it without --after`,
      );
    return byNumber();
  }
  if (honoursAfter(page, keyset.after)) return { page, keyset: true };
  if (keyset.required)
    throw new UsageError(
      '--after cannot be used with this list: the service does not page by id (it ignored page[after]); list it without --after',
    );
  // It ignored page[after]: its answer is page 1 by number, with links to follow by number.
  return { page, keyset: false };
}

/**
 * Hands on the first page, then each page links.next leads to, one at a time. By number, bounded
 * by the page count the first page announces (or a generous cap without meta.total), so a server
 * whose links loop cannot keep this running; by id, every page must start after the last id of
 * the one before, which ends any loop and any repeat.
 */
async function followPages(
  deps: Deps,
  first: Collection,
  keyset: boolean,
  each: (page: Collection) => Promise<void>,
  guard: Guard,
): Promise<void> {
  const size = first.data.length || 1;
  const total = first.meta?.total;
  let budget = total === undefined ? MAX_PAGES : Math.ceil(total / size) + 1;
  let page = first;
  await each(page);
  for (let next = page.links?.next; next; next = page.links?.next) {
    if (keyset && page.data.length === 0) throw new ProtocolError('the service gave a links.next after an empty page');
    if (!keyset && budget-- <= 0)
      throw new ProtocolError(
        `stopped following links.next after ${total === undefined ? MAX_PAGES : 'the announced number of'} pages; the service keeps announcing more`,
      );
    const lastId = Number(page.data[page.data.length - 1]?.id);
    page = await getPage(deps, next, undefined, guard);
    if (keyset && !page.data.every((resource) => Number(resource.id) > lastId)) {
      throw new ProtocolError(`the service's page after id ${lastId} holds resources that do not follow it`);
    }
    await each(page);
  }
}

/** `billing api GET PATH --paginate`: the page PATH asks for, then each page its links.next lead to. */
export async function eachPage(deps: Deps, path: string, each: (page: Collection) => Promise<void>): Promise<void> {
  await followPages(deps, await getPage(deps, path, undefined, unguarded), false, each, unguarded);
}

/**
 * Lists a collection: one page, or every page with --all. With -o ndjson or csv, --all writes each
 * page as it comes (streamList); otherwise it gathers one document holding all the data.
 */
export async function runList(deps: Deps, path: string, type: string, options: ListOptions): Promise<void> {
  const sort = options.find?.sort;
  const byId = sort === undefined || sort === 'id';
  if (options.after !== undefined && !byId)
    throw new UsageError(`--after lists in ascending id order: it cannot be combined with --sort ${sort}`);
  if (options.all && streams(deps.globals)) return streamList(deps, path, type, options, byId);
  const after = options.after === undefined ? undefined : { after: options.after, required: true };
  if (!options.all) {
    const page = after
      ? (await firstPage(deps, path, options, options.pageSize, after, unguarded)).page
      : await getPage(deps, path, pageQuery(options, { 'page[number]': options.page }), unguarded);
    return render(page, deps.globals, deps.io, { type, all: false, pageSize: options.pageSize });
  }
  const first = await firstPage(deps, path, options, options.pageSize, after, unguarded);
  const document: Collection = { ...first.page, data: [], included: undefined };
  const seen = new Set<string>();
  await followPages(
    deps,
    first.page,
    first.keyset,
    (page) => {
      document.data.push(...page.data);
      for (const resource of page.included ?? []) {
        if (!seen.has(`${resource.type}/${resource.id}`)) {
          seen.add(`${resource.type}/${resource.id}`);
          (document.included ??= []).push(resource);
        }
      }
      return Promise.resolve();
    },
    unguarded,
  );
  if (!document.included) delete document.included;
  document.links = { ...first.page.links, next: null };
  await render(document, deps.globals, deps.io, { type, all: true, pageSize: options.pageSize });
}

/** Thrown inside streamList when the reader of stdout has gone: the run ends quietly, as it always has. */
class ReaderGone extends Error {}

/**
 * --all with -o ndjson or csv: each page is written as it arrives, waiting while the output is
 * full, so memory holds a page whatever the list's size. In id order it pages by id (page[after],
 * 100 at a time unless --page-size says otherwise) where the service honours it, else by number.
 * Cut short (Ctrl-C, a broken pipe, an error after some pages), it says on stderr the last id
 * written and how to go on from it.
 */
async function streamList(deps: Deps, path: string, type: string, options: ListOptions, byId: boolean): Promise<void> {
  const { io } = deps;
  const format = await pageFormat(deps.globals.output as 'ndjson' | 'csv', deps.globals.csvRaw);
  const done = { count: 0, lastId: undefined as string | undefined, keyset: false };
  let interrupted: Interruption | undefined;
  const stopError = () => (interrupted === 'pipe' ? new ReaderGone() : new InterruptedError());
  // One request waits at a time; an interruption rejects it. Not Promise.race with a promise that
  // never settles: each race would leave a reaction on it holding its page, for the whole export.
  let waiting: ((error: Error) => void) | undefined;
  const guard: Guard = (pending) =>
    new Promise((resolve, reject) => {
      if (interrupted) return reject(stopError());
      waiting = reject;
      pending.then(resolve, reject).finally(() => (waiting = undefined));
    });
  const stopHint = () => {
    if (done.count > 0)
      io.err(
        safeText(
          `${resumeHint(done.count, done.lastId!, type, done.keyset ? undefined : byId ? 'by-number' : 'sorted')}\n`,
        ),
      );
  };
  const stopListening = io.onInterrupt?.((cause) => {
    if (interrupted) return;
    interrupted = cause;
    // After a broken pipe the process ends as soon as this returns: say it now.
    if (cause === 'pipe') stopHint();
    waiting?.(stopError());
  });
  const write = (text: string): Promise<void> | void => (io.write ? io.write(text) : io.out(text));
  try {
    const keyset = byId ? { after: options.after ?? 0, required: options.after !== undefined } : undefined;
    const first = await firstPage(deps, path, options, options.pageSize ?? MAX_PAGE_SIZE, keyset, guard);
    done.keyset = first.keyset;
    await followPages(
      deps,
      first.page,
      first.keyset,
      async (page) => {
        const text = format.page(page.data);
        if (text) await write(text);
        if (page.data.length) {
          done.count += page.data.length;
          done.lastId = page.data[page.data.length - 1].id;
        }
        // Ctrl-C while the page was on its way out: it is written; stop after it.
        if (interrupted) throw stopError();
      },
      guard,
    );
  } catch (error) {
    if (error instanceof ReaderGone) return;
    stopHint();
    throw error;
  } finally {
    stopListening?.();
  }
  if (format.dropped.size)
    io.err(
      safeText(
        `warning: left out of the CSV, first seen after its header was written: ${[...format.dropped].join(', ')}\n`,
      ),
    );
}

/** What to do after an export that stopped: go on after the last id, where the service pages by id. */
function resumeHint(count: number, lastId: string, type: string, cannot?: 'by-number' | 'sorted'): string {
  const stoppedAt = `stopped after ${count} ${noun(type, count)}, the last written with id ${lastId}`;
  if (cannot === 'sorted')
    return `${stoppedAt}; sorted by another field than id, the export cannot go on from an id: run it again whole`;
  if (cannot === 'by-number')
    return `${stoppedAt}; this service pages by number only (no page[after]), so --after cannot go on from it: run it again whole`;
  return `${stoppedAt}; to go on from there, run the same command with --after ${lastId}`;
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
      : {
          data: {
            type: request.type,
            ...(request.id === undefined ? {} : { id: String(request.id) }),
            attributes: request.attributes,
          },
        };
  if (deps.globals.dryRun) {
    deps.io.out(`${JSON.stringify({ method: request.method, path: request.path, body: body ?? null }, null, 2)}\n`);
    return;
  }
  const response = await send(deps, { method: request.method, path: request.path, body });
  const document = response.body as Document | undefined;
  const resource = document?.data && !Array.isArray(document.data) ? document.data : undefined;
  // The service changed nothing: the resource already was what was asked (e.g. a second pause).
  const unchanged = (document as { meta?: { unchanged?: unknown } } | undefined)?.meta?.unchanged === true;
  if (!deps.globals.quiet && unchanged && resource)
    deps.io.err(safeText(`${request.type} ${resource.id} is already ${textOf(resource.attributes?.status)}\n`));
  else if (!deps.globals.quiet)
    deps.io.err(safeText(`${request.done}${resource ? ` ${resource.id}` : request.id ? ` ${request.id}` : ''}\n`));
  if (document) await render(document, deps.globals, deps.io);
}

export function configureList(cmd: Command, info: ResourceInfo, includes: readonly string[], invoke: Invoke): void {
  addListOptions(cmd, includes).action((opts: Record<string, unknown>, command: Command) =>
    invoke(command, (deps) => runList(deps, info.path, info.type, listOptions(opts))),
  );
}

export function configureGet(cmd: Command, info: ResourceInfo, includes: readonly string[], invoke: Invoke): void {
  addReadOptions(cmd.argument('<id>', `${info.noun} id`), includes).action(
    (idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) => runGet(deps, `${info.path}/${parseId(idText)}`, readOptions(opts))),
  );
}

/** A to-many collection of one resource, e.g. `customers subscriptions ID`. */
export function configureRelatedList(
  cmd: Command,
  info: ResourceInfo,
  relation: { path: string; type: string },
  invoke: Invoke,
): void {
  addListOptions(cmd.argument('<id>', `${info.noun} id`), []).action(
    (idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) =>
        runList(deps, `${info.path}/${parseId(idText)}/${relation.path}`, relation.type, listOptions(opts)),
      ),
  );
}
