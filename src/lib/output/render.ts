// Prints a JSON:API document in the chosen format: table (people), json (the exact document),
// ndjson (one resource per line), csv, or a JMESPath --query result.
import type { GlobalOptions } from '../cli/globals.js';
import { UsageError } from '../cli/errors.js';
import type { IO } from '../cli/io.js';
import { noun, type ResourceLike } from './columns.js';
import { oneLine } from './format.js';

export interface Document {
  data?: ResourceLike | ResourceLike[] | null;
  meta?: { total?: number };
  links?: Record<string, string | null | undefined>;
  included?: ResourceLike[];
}

export interface ListContext {
  /** The resource type, for an empty list ("no customers"). */
  type: string;
  /** Whether every page was fetched (--all). */
  all?: boolean;
  /** The --page-size the person gave, repeated in the footer's hint for the next page. */
  pageSize?: number;
}

/** A --query expression that cannot be parsed is a usage error, found before anything is sent. */
export async function checkQuery(expression: string): Promise<void> {
  // compile is exported at run time but missing from @types/jmespath.
  const { compile } = (await import('jmespath')).default as unknown as { compile: (expression: string) => unknown };
  try {
    compile(expression);
  } catch (error) {
    throw new UsageError(`--query is not a JMESPath expression: ${(error as Error).message}`);
  }
}

async function printQuery(value: unknown, expression: string, io: IO): Promise<void> {
  const { search } = (await import('jmespath')).default;
  const result: unknown = search(value, expression);
  // A string prints raw, as `jq -r` does: id=$(billing customers create … --query data.id) works.
  io.out(typeof result === 'string' ? `${result}\n` : `${JSON.stringify(result, null, 2)}\n`);
}

/**
 * Plain objects that are not API resources (accounts, profiles) in the chosen format: a --query
 * result, JSON, one object per line, CSV, or the table that `table()` draws.
 */
export async function renderPlain(
  value: Record<string, unknown> | Record<string, unknown>[],
  globals: GlobalOptions,
  io: IO,
  table: () => Promise<string>,
): Promise<void> {
  if (globals.query !== undefined) return printQuery(value, globals.query, io);
  const rows = Array.isArray(value) ? value : [value];
  switch (globals.output) {
    case 'json':
      io.out(`${JSON.stringify(value, null, 2)}\n`);
      return;
    case 'ndjson':
      for (const row of rows) io.out(`${JSON.stringify(row)}\n`);
      return;
    case 'csv': {
      const { objectsToCsv } = await import('./csv.js');
      io.out(objectsToCsv(rows, { raw: globals.csvRaw }));
      return;
    }
    case 'table':
      io.out(await table());
  }
}

/** Whether a list with --all is written page by page as it comes (ndjson, csv) rather than gathered first. */
export const streams = (globals: Pick<GlobalOptions, 'output' | 'query'>): boolean =>
  globals.query === undefined && (globals.output === 'ndjson' || globals.output === 'csv');

/** A list's text page by page, for the formats that stream: the pages' texts joined are what render prints of the whole list. */
export interface PageFormat {
  page(resources: ResourceLike[]): string;
  /** CSV columns a later page brought that the header, written with the first page, lacks (left out). */
  readonly dropped: ReadonlySet<string>;
}

export async function pageFormat(output: 'ndjson' | 'csv', csvRaw = false): Promise<PageFormat> {
  if (output === 'csv') return (await import('./csv.js')).csvPages({ raw: csvRaw });
  return {
    page: (resources) => resources.map((resource) => `${JSON.stringify(resource)}\n`).join(''),
    dropped: new Set(),
  };
}

export async function render(document: Document, globals: GlobalOptions, io: IO, list?: ListContext): Promise<void> {
  if (globals.query !== undefined) return printQuery(document, globals.query, io);
  const data = document.data;
  switch (globals.output) {
    case 'json':
      io.out(`${JSON.stringify(document, null, 2)}\n`);
      return;
    case 'ndjson':
      for (const resource of Array.isArray(data) ? data : data ? [data] : []) io.out(`${JSON.stringify(resource)}\n`);
      return;
    case 'csv': {
      const { toCsv } = await import('./csv.js');
      io.out(toCsv(Array.isArray(data) ? data : data ? [data] : [], { raw: globals.csvRaw }));
      return;
    }
    case 'table': {
      const { listTable, resourceTable, viewOf } = await import('./table.js');
      const view = viewOf(globals, io);
      if (!Array.isArray(data)) {
        if (data) io.out(await resourceTable(data, view));
        return;
      }
      const type = data[0]?.type ?? list?.type ?? 'resource';
      if (data.length === 0) {
        const after = pageParameter(document.links?.self, 'after');
        io.err(
          `no ${oneLine(noun(type, 0))}${after ? ` after id ${after}` : document.meta?.total ? ' on this page' : ''}\n`,
        );
        return;
      }
      io.out(await listTable(data, type, view));
      if (!globals.quiet) io.err(`${footer(document, data.length, type, list?.all, list?.pageSize)}\n`);
    }
  }
}

/** A page parameter of a link, when it is a whole number (`page[number]` at least 1, `page[after]` at least 0). */
const pageParameter = (link: string | null | undefined, name: 'number' | 'after'): number | undefined => {
  if (!link) return undefined;
  try {
    const value = new URL(link, 'http://localhost').searchParams.get(`page[${name}]`);
    const number = value === null || value === '' ? NaN : Number(value);
    return Number.isSafeInteger(number) && number >= (name === 'number' ? 1 : 0) ? number : undefined;
  } catch {
    return undefined;
  }
};

const pageNumber = (link: string | null | undefined): number | undefined => pageParameter(link, 'number');

/**
 * "page 1 of 5, 47 customers (next: --page 2)"; on the last page without the hint; with --all,
 * "all 47 customers". A keyset page (--after) is uncounted: "10 customers after id 40 (next:
 * --after 52)". Made from data (the type, the links), so made safe for the terminal.
 */
export function footer(document: Document, shown: number, type: string, all = false, pageSize?: number): string {
  const count = document.meta?.total ?? shown;
  // meta.total comes from the service: a number, or made safe if it is not.
  const total = typeof count === 'number' ? count : oneLine(String(count));
  const things = oneLine(noun(type, Number(count)));
  const after = pageParameter(document.links?.self, 'after');
  const since = after ? ` after id ${after}` : '';
  if (all) return `all ${total} ${things}${since}`;
  if (after !== undefined) {
    const next = pageParameter(document.links?.next, 'after');
    return `${total} ${things}${since}${next === undefined ? '' : ` (next: --after ${next}${pageSize === undefined || pageSize === 10 ? '' : ` --page-size ${pageSize}`})`}`;
  }
  const current = pageNumber(document.links?.self) ?? 1;
  const last = pageNumber(document.links?.last) ?? current;
  const next =
    pageNumber(document.links?.next) ??
    (document.links?.next === undefined && current < last ? current + 1 : undefined);
  // The page size is repeated only when it is not the service's default (10), which --page keeps anyway.
  const hint =
    next === undefined
      ? ''
      : ` (next: --page ${next}${pageSize === undefined || pageSize === 10 ? '' : ` --page-size ${pageSize}`})`;
  return `page ${current} of ${last}, ${total} ${things}${hint}`;
}
