// Query parameters of GET requests: pagination, include, sparse fieldsets, filters and sort, all
// checked strictly: a parameter this route does not know is refused, never ignored.
import type { Sort } from '../core/paging.js';
import { fail, ok, type Result } from '../core/result.js';
import { FIELDS, type ResourceType } from '../schemas/vocabulary.js';

export type { Sort } from '../core/paging.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface Page {
  number: number;
  size: number;
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
export const BOOLEAN_FILTER: FilterKind<boolean> = { expects: 'true or false', parse: (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined) };
export const oneOf = <T extends string>(values: readonly T[]): FilterKind<T> => ({ expects: `one of ${values.join(', ')}`, parse: (raw) => values.find((value) => value === raw) });

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
  /** Types only: what filtersOf and sortOf give. */
  readonly [TYPES]?: { filter: F; sort: S };
}

export function collectionQuery<F extends Filters, const S extends string>(declared: { include: readonly string[]; filter: F; sort: readonly S[] }): CollectionQuery<F, S> {
  // Maps and sets: a name such as "constructor" or "__proto__" is never taken for a known one.
  return Object.freeze({ include: declared.include, filters: new Map(Object.entries(declared.filter)), sorts: new Set<string>(declared.sort) });
}

export type FilterValues<F extends Filters> = { [K in keyof F]?: F[K] extends FilterKind<infer V> ? V : never };

const NO_FILTER: ReadonlyMap<string, unknown> = new Map();

/** The query's filters, typed by the route's declaration (which parsed them). */
export function filtersOf<F extends Filters, S extends string>(query: GetQuery, _declared: CollectionQuery<F, S>): FilterValues<F> {
  return (query.filter.size === 0 ? {} : Object.fromEntries(query.filter)) as FilterValues<F>;
}

/** The query's sort, typed by the route's declaration (which checked it). */
export function sortOf<F extends Filters, S extends string>(query: GetQuery, _declared: CollectionQuery<F, S>): Sort<S> | undefined {
  return query.sort as Sort<S> | undefined;
}

// ---- parsing ----

function positiveInt(raw: string | null, fallback: number): number | null {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw.trim())) return null;
  const value = Number(raw.trim());
  return Number.isSafeInteger(value) ? value : null;
}

const NO_QUERY: GetQuery = Object.freeze({ page: Object.freeze({ number: 1, size: DEFAULT_PAGE_SIZE }), include: [], fields: {}, filter: NO_FILTER, sort: undefined, kept: [] }) as GetQuery;

const isDeclaration = (accepted: readonly string[] | CollectionQuery): accepted is CollectionQuery => !Array.isArray(accepted);

const invalid = (parameter: string, detail: string): Result<never> => fail({ kind: 'invalid_parameter', parameter, detail });

/** "a, b or c" */
const either = (names: Iterable<string>): string => {
  const list = [...names];
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` : (list[0] ?? '');
};

export function parseGetQuery(raw: string | undefined, accepted: readonly string[] | CollectionQuery): Result<GetQuery> {
  if (!raw) return ok(NO_QUERY); // the common case, and every default
  const declaration = isDeclaration(accepted) ? accepted : undefined;
  const allowed = declaration ? declaration.include : (accepted as readonly string[]);
  const params = new URLSearchParams(raw ?? '');
  const number = positiveInt(params.get('page[number]'), 1);
  if (number === null || number < 1) return invalid('page[number]', 'page[number] must be a whole number of at least 1');
  const size = positiveInt(params.get('page[size]'), DEFAULT_PAGE_SIZE);
  if (size === null || size < 1 || size > MAX_PAGE_SIZE) return invalid('page[size]', `page[size] must be a whole number from 1 to ${MAX_PAGE_SIZE}`);

  const include: string[] = [];
  for (const name of (params.get('include') ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!allowed.includes(name)) {
      const may = allowed.length ? `allowed here: ${allowed.join(', ')}` : 'nothing can be included here';
      return invalid('include', `cannot include "${name}"; ${may}`);
    }
    if (!include.includes(name)) include.push(name);
  }

  const fields: GetQuery['fields'] = {};
  let filter: Map<string, unknown> | undefined;
  let sort: Sort | undefined;
  const kept: [string, string][] = [];
  for (const [key, value] of params) {
    if (key === 'page[number]' || key === 'page[size]') continue;
    kept.push([key, value]);
    if (key === 'sort') {
      if (!declaration?.sorts.size) return invalid(key, `${key} is not available here: nothing here can be sorted`);
      if (sort) return invalid(key, 'sort is given more than once');
      const descending = value.startsWith('-');
      const field = descending ? value.slice(1) : value;
      if (!declaration.sorts.has(field)) return invalid(key, `cannot sort by "${value}": sort by ${either(declaration.sorts)}, with a leading - for descending order`);
      sort = { field, descending };
      continue;
    }
    if (key === 'filter' || key.startsWith('filter[')) {
      const name = /^filter\[([^[\]]*)\]$/.exec(key)?.[1];
      const kind = name === undefined ? undefined : declaration?.filters.get(name);
      if (name === undefined || !kind) {
        const may = declaration?.filters.size ? `filters here: ${[...declaration.filters.keys()].map((n) => `filter[${n}]`).join(', ')}` : 'nothing can be filtered here';
        return invalid(key, `${name === undefined ? `"${key}" is not a filter[NAME] parameter` : `"${name}" is not a filter`}; ${may}`);
      }
      if (filter?.has(name)) return invalid(key, `${key} is given more than once`);
      const parsed = kind.parse(value);
      if (parsed === undefined) return invalid(key, `${key} must be ${kind.expects}, not "${value}"`);
      (filter ??= new Map()).set(name, parsed);
      continue;
    }
    const match = /^fields\[(.*)\]$/.exec(key);
    if (!match) continue;
    const type = match[1] as ResourceType;
    if (!Object.hasOwn(FIELDS, type)) return invalid(key, `"${match[1]}" is not a resource type`);
    const known = FIELDS[type];
    const names = value.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length) return invalid(key, `unknown field${unknown.length > 1 ? 's' : ''} of ${type}: ${unknown.join(', ')}`);
    fields[type] = new Set(names);
  }
  return ok({ page: { number, size }, include, fields, filter: filter ?? NO_FILTER, sort, kept });
}

const encode = (value: string) => encodeURIComponent(value).replace(/%2C/g, ',').replace(/%5B/g, '[').replace(/%5D/g, ']');

/** An absolute URL keeping the request's other parameters, with page[...] last, as the hosted service writes it. */
export function pageUrl(base: string, path: string, query: GetQuery, pageNumber?: number): string {
  const parts = query.kept.map(([k, v]) => `${encode(k)}=${encode(v)}`);
  if (pageNumber !== undefined) parts.push(`page[number]=${pageNumber}`, `page[size]=${query.page.size}`);
  return parts.length ? `${base}${path}?${parts.join('&')}` : `${base}${path}`;
}
