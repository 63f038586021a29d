// Query parameters of GET requests: pagination, include, sparse fieldsets, filters and sort, all
// checked strictly: a parameter this route does not know is refused, never ignored.
import { isWellFormed } from '../schemas/json.js';
import { isDay } from '../schemas/reports.js';
import type { Sort } from '../core/paging.js';
import { fail, ok, type Result } from '../core/result.js';
import { FIELDS, MAX_PAGE_SIZE, type ResourceType } from '../schemas/vocabulary.js';

export type { Sort } from '../core/paging.js';

export const DEFAULT_PAGE_SIZE = 10;

export interface Page {
  number: number;
  size: number;
  /** Keyset paging (page[after]): the rows with a greater id, in ascending id order. */
  after?: number;
}

export interface GetQuery {
  page: Page;
  include: string[];
  fields: Partial<Record<string, Set<string>>>;
  /** The filter[NAME] values, as the route's declaration read them; empty when there are none. */
  filter: ReadonlyMap<string, unknown>;
  /** The sort parameter; undefined for the default order, ascending id. */
  sort: Sort | undefined;
  /** The parameters that links keep, in request order, without page[...]. */
  kept: [string, string][];
}

// ---- what a collection route accepts ----

/** How one filter reads its value: the value, or undefined when the text is not one. */
export interface FilterKind<V> {
  /** What a value must be, for the error answer: e.g. `true or false`. */
  expects: string;
  parse(raw: string): V | undefined;
}

/** Any text that is not empty once trimmed (the trimmed text), without NUL (which PostgreSQL cannot take). */
export const TEXT_FILTER: FilterKind<string> = {
  expects: 'text that is not empty, without NUL characters',
  parse: (raw) => {
    const text = raw.trim();
    return text && !text.includes('\0') ? text : undefined;
  },
};
export const BOOLEAN_FILTER: FilterKind<boolean> = {
  expects: 'true or false',
  parse: (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined),
};
/** An id: a whole number from 1 to 2^53 - 1. */
export const ID_FILTER: FilterKind<number> = {
  expects: 'an id (a whole number of at least 1)',
  parse: (raw) =>
    /^[1-9]\d{0,15}$/.test(raw.trim()) && Number.isSafeInteger(Number(raw.trim())) ? Number(raw.trim()) : undefined,
};
export const oneOf = <T extends string>(values: readonly T[]): FilterKind<T> => ({
  expects: `one of ${values.join(', ')}`,
  parse: (raw) => values.find((value) => value === raw),
});

/** One value or several, comma-separated (filter[status]=failed,charged_back): any of them matches. */
export const anyOf = <T extends string>(values: readonly T[]): FilterKind<T[]> => ({
  expects: `one or more (comma-separated) of ${values.join(', ')}`,
  parse: (raw) => {
    const given = raw.split(',').map((value) => value.trim());
    const found = given.map((value) => values.find((known) => known === value));
    return found.every((value) => value !== undefined) ? [...new Set(found)] : undefined;
  },
});
/**
 * The start of a transaction id, as git takes a commit's: 8 to 32 hex digits, hyphens where a UUID
 * has them or none; the UUID form, lower-case (`2bd26a9c1f` is `2bd26a9c-1f`).
 */
export const ID_PREFIX_FILTER: FilterKind<string> = {
  expects: 'the start of a transaction id: 8 to 32 hex digits (hyphens optional)',
  parse: (raw) => {
    const hex = raw.trim().toLowerCase().replace(/-/g, '');
    if (!/^[0-9a-f]{8,32}$/.test(hex)) return undefined;
    const cut = [8, 12, 16, 20].filter((at) => at < hex.length);
    return [0, ...cut].map((from, i) => hex.slice(from, cut[i] ?? hex.length)).join('-');
  },
};
/** A local day of the account (YYYY-MM-DD). */
export const DAY_FILTER: FilterKind<string> = {
  expects: 'a day, YYYY-MM-DD',
  parse: (raw) => (isDay(raw.trim()) ? raw.trim() : undefined),
};

type Filters = Record<string, FilterKind<unknown>>;

declare const TYPES: unique symbol;

/**
 * What a collection route accepts beyond paging: its includes, its filters and the fields it sorts
 * by. A route that declares only a list of includes has no filters and no sort.
 */
export interface CollectionQuery<F extends Filters = Filters, S extends string = string> {
  readonly include: readonly string[];
  readonly filters: ReadonlyMap<string, FilterKind<unknown>>;
  readonly sorts: ReadonlySet<string>;
  /** Whether page[after] may be asked for: only where the default order is ascending id. */
  readonly keyset: boolean;
  /** Whether the answer has resources to page and fields to choose: a report (one document of figures) has none. */
  readonly resources: boolean;
  /** Types only: what filtersOf and sortOf give. */
  readonly [TYPES]?: { filter: F; sort: S };
}

export function collectionQuery<F extends Filters, const S extends string>(declared: {
  include: readonly string[];
  filter: F;
  sort: readonly S[];
  keyset?: boolean;
  resources?: boolean;
}): CollectionQuery<F, S> {
  // Maps and sets: a name such as "constructor" or "__proto__" is never taken for a known one.
  return Object.freeze({
    include: declared.include,
    filters: new Map(Object.entries(declared.filter)),
    sorts: new Set<string>(declared.sort),
    keyset: declared.keyset ?? true,
    resources: declared.resources ?? true,
  });
}

export type FilterValues<F extends Filters> = { [K in keyof F]?: F[K] extends FilterKind<infer V> ? V : never };

const NO_FILTER: ReadonlyMap<string, unknown> = new Map();

/** The query's filters, typed by the route's declaration (which parsed them). */
export function filtersOf<F extends Filters, S extends string>(
  query: GetQuery,
  _declared: CollectionQuery<F, S>,
): FilterValues<F> {
  return (query.filter.size === 0 ? {} : Object.fromEntries(query.filter)) as FilterValues<F>;
}

/** The query's sort, typed by the route's declaration (which checked it). */
export function sortOf<F extends Filters, S extends string>(
  query: GetQuery,
  _declared: CollectionQuery<F, S>,
): Sort<S> | undefined {
  return query.sort as Sort<S> | undefined;
}

// ---- parsing ----

function positiveInt(raw: string | null, fallback: number): number | null {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw.trim())) return null;
  const value = Number(raw.trim());
  return Number.isSafeInteger(value) ? value : null;
}

const NO_QUERY: GetQuery = Object.freeze({
  page: Object.freeze({ number: 1, size: DEFAULT_PAGE_SIZE }),
  include: [],
  fields: {},
  filter: NO_FILTER,
  sort: undefined,
  kept: [],
});

const isDeclaration = (accepted: readonly string[] | CollectionQuery): accepted is CollectionQuery =>
  !Array.isArray(accepted);

const invalid = (parameter: string, detail: string): Result<never> =>
  fail({ kind: 'invalid_parameter', parameter, detail });

/** "a, b or c" */
const either = (names: Iterable<string>): string => {
  const list = [...names];
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` : (list[0] ?? '');
};

/** Query text decoded as a form would be (`+` is a space): undefined when a %-escape is not UTF-8. */
function decode(text: string): string | undefined {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/** A name fit to be shown in an answer: a lone surrogate shown as U+FFFD (the name itself is refused). */
const shown = (text: string): string => (text as unknown as { toWellFormed(): string }).toWellFormed();

const KNOWN = 'page[number], page[size], page[after], include, fields[TYPE], filter[NAME] and sort';

/**
 * Reads a query string strictly: the parameters are page[number], page[size], page[after], include,
 * fields[TYPE], filter[NAME] and sort, each at most once, brackets raw or percent-encoded
 * (`page%5Bsize%5D`). Anything else (an unknown name, one given twice, a %-escape that is not UTF-8,
 * text that is not valid Unicode) is 400 Invalid Parameter naming the parameter, and so is
 * page[after] beside page[number], beside a sort other than ascending id, or where the collection
 * is not in id order. No query is the frozen default.
 */
export function parseGetQuery(
  raw: string | undefined,
  accepted: readonly string[] | CollectionQuery,
): Result<GetQuery> {
  if (!raw) return ok(NO_QUERY); // the common case, and every default
  const declaration = isDeclaration(accepted) ? accepted : undefined;
  const allowed = declaration ? declaration.include : (accepted as readonly string[]);

  let number = 1;
  let size = DEFAULT_PAGE_SIZE;
  let after: number | undefined;
  const include: string[] = [];
  const fields: GetQuery['fields'] = {};
  let filter: Map<string, unknown> | undefined;
  let sort: Sort | undefined;
  const kept: [string, string][] = [];
  // A set, not an object: "__proto__" or "constructor" is a name like any other here.
  const seen = new Set<string>();

  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const key = decode(rawKey);
    if (key === undefined)
      return invalid(shown(rawKey), `"${shown(rawKey)}" is not a parameter name: its %-escapes are not UTF-8`);
    if (!isWellFormed(key))
      return invalid(shown(key), 'a parameter name must be valid Unicode text (it holds a lone surrogate)');
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (value === undefined) return invalid(key, `${key} has a value whose %-escapes are not UTF-8`);
    if (!isWellFormed(value)) return invalid(key, `${key} must be valid Unicode text (it holds a lone surrogate)`);
    if (seen.has(key)) return invalid(key, `${key} is given more than once`);
    seen.add(key);
    if (declaration?.resources === false && /^(page|fields)(\[|$)/.test(key)) {
      const what = 'the answer is one document of figures, with no resources to page or choose fields of';
      return invalid(key, `${key} is not available here: ${what}`);
    }

    if (key === 'page[number]') {
      const parsed = positiveInt(value, 1);
      if (parsed === null || parsed < 1) return invalid(key, 'page[number] must be a whole number of at least 1');
      number = parsed;
      continue;
    }
    if (key === 'page[size]') {
      const parsed = positiveInt(value, DEFAULT_PAGE_SIZE);
      if (parsed === null || parsed < 1 || parsed > MAX_PAGE_SIZE)
        return invalid(key, `page[size] must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
      size = parsed;
      continue;
    }
    if (key === 'page[after]') {
      // 0 is before every id: where a keyset walk starts.
      const parsed = /^\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : NaN;
      if (!Number.isSafeInteger(parsed))
        return invalid(key, 'page[after] must be an id (a whole number, 0 for the start)');
      after = parsed;
      continue;
    }
    if (key === 'page' || key.startsWith('page['))
      return invalid(key, `"${key}" is not a page parameter: page[number], page[size] and page[after] are`);
    kept.push([key, value]);

    if (key === 'include') {
      for (const name of value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        if (!allowed.includes(name)) {
          const may = allowed.length ? `allowed here: ${allowed.join(', ')}` : 'nothing can be included here';
          return invalid('include', `cannot include "${name}"; ${may}`);
        }
        if (!include.includes(name)) include.push(name);
      }
      continue;
    }
    if (key === 'sort') {
      if (!declaration?.sorts.size) return invalid(key, `${key} is not available here: nothing here can be sorted`);
      const descending = value.startsWith('-');
      const field = descending ? value.slice(1) : value;
      if (!declaration.sorts.has(field))
        return invalid(
          key,
          `cannot sort by "${value}": sort by ${either(declaration.sorts)}, with a leading - for descending order`,
        );
      sort = { field, descending };
      continue;
    }
    if (key === 'filter' || key.startsWith('filter[')) {
      const name = /^filter\[([^[\]]*)\]$/.exec(key)?.[1];
      const kind = name === undefined ? undefined : declaration?.filters.get(name);
      if (name === undefined || !kind) {
        const may = declaration?.filters.size
          ? `filters here: ${[...declaration.filters.keys()].map((n) => `filter[${n}]`).join(', ')}`
          : 'nothing can be filtered here';
        return invalid(
          key,
          `${name === undefined ? `"${key}" is not a filter[NAME] parameter` : `"${name}" is not a filter`}; ${may}`,
        );
      }
      const parsed = kind.parse(value);
      if (parsed === undefined) return invalid(key, `${key} must be ${kind.expects}, not "${value}"`);
      (filter ??= new Map()).set(name, parsed);
      continue;
    }
    if (key === 'fields' || key.startsWith('fields[')) {
      const match = /^fields\[(.*)\]$/.exec(key);
      if (!match) return invalid(key, `"${key}" is not a fields[TYPE] parameter`);
      const type = match[1] as ResourceType;
      if (!Object.hasOwn(FIELDS, type)) return invalid(key, `"${match[1]}" is not a resource type`);
      const known = FIELDS[type];
      const names = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = names.filter((n) => !known.includes(n));
      if (unknown.length)
        return invalid(key, `unknown field${unknown.length > 1 ? 's' : ''} of ${type}: ${unknown.join(', ')}`);
      fields[type] = new Set(names);
      continue;
    }
    return invalid(key, `"${key}" is not a parameter of this API; it knows ${KNOWN}`);
  }
  if (after === undefined)
    return ok({ page: { number, size }, include, fields, filter: filter ?? NO_FILTER, sort, kept });
  if (declaration && !declaration.keyset)
    return invalid(
      'page[after]',
      'page[after] is not available here: this collection is not in id order; page it with page[number]',
    );
  if (seen.has('page[number]'))
    return invalid('page[after]', 'page[after] and page[number] exclude each other: give one of them');
  if (sort && (sort.field !== 'id' || sort.descending))
    return invalid(
      'page[after]',
      `page[after] pages in ascending id order; it cannot be combined with sort=${sort.descending ? '-' : ''}${sort.field}`,
    );
  return ok({ page: { number, size, after }, include, fields, filter: filter ?? NO_FILTER, sort, kept });
}

/** A query component, percent-encoded as RFC 3986 asks (brackets too: `%5B`, `%5D`); commas stay, as lists read better. */
const encode = (value: string) => encodeURIComponent(value).replace(/%2C/g, ',');

/**
 * An absolute URL keeping the request's other parameters, with page[...] last. Brackets are
 * percent-encoded (`page%5Bnumber%5D=2`), as RFC 3986 and JSON:API ask; the parsers (this API's,
 * the CLI's) read either spelling.
 */
export function pageUrl(base: string, path: string, query: GetQuery, pageNumber?: number): string {
  const parts = query.kept.map(([k, v]) => `${encode(k)}=${encode(v)}`);
  if (pageNumber !== undefined) parts.push(`page%5Bnumber%5D=${pageNumber}`, `page%5Bsize%5D=${query.page.size}`);
  return parts.length ? `${base}${path}?${parts.join('&')}` : `${base}${path}`;
}

/** The URL of the keyset page after an id, as pageUrl spells it (page%5Bafter%5D=42&page%5Bsize%5D=10). */
export function afterUrl(base: string, path: string, query: GetQuery, after: number | string): string {
  const parts = query.kept.map(([k, v]) => `${encode(k)}=${encode(v)}`);
  parts.push(`page%5Bafter%5D=${after}`, `page%5Bsize%5D=${query.page.size}`);
  return `${base}${path}?${parts.join('&')}`;
}
