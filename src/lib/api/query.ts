// Query parameters of GET requests: pagination, include and sparse fieldsets, checked strictly.
import { fail, ok, type Result } from '../core/result.js';
import { FIELDS, type ResourceType } from '../schemas/vocabulary.js';

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
  /** The parameters that links keep, in request order, without page[...]. */
  kept: [string, string][];
}

function positiveInt(raw: string | null, fallback: number): number | null {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw.trim())) return null;
  const value = Number(raw.trim());
  return Number.isSafeInteger(value) ? value : null;
}

const NO_QUERY: GetQuery = Object.freeze({ page: Object.freeze({ number: 1, size: DEFAULT_PAGE_SIZE }), include: [], fields: {}, kept: [] }) as GetQuery;

export function parseGetQuery(raw: string | undefined, allowedIncludes: readonly string[]): Result<GetQuery> {
  if (!raw) return ok(NO_QUERY); // the common case, and every default
  const params = new URLSearchParams(raw ?? '');
  const number = positiveInt(params.get('page[number]'), 1);
  if (number === null || number < 1) {
    return fail({ kind: 'invalid_parameter', parameter: 'page[number]', detail: 'page[number] must be a whole number of at least 1' });
  }
  const size = positiveInt(params.get('page[size]'), DEFAULT_PAGE_SIZE);
  if (size === null || size < 1 || size > MAX_PAGE_SIZE) {
    return fail({ kind: 'invalid_parameter', parameter: 'page[size]', detail: `page[size] must be a whole number from 1 to ${MAX_PAGE_SIZE}` });
  }

  const include: string[] = [];
  for (const name of (params.get('include') ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!allowedIncludes.includes(name)) {
      const allowed = allowedIncludes.length ? `allowed here: ${allowedIncludes.join(', ')}` : 'nothing can be included here';
      return fail({ kind: 'invalid_parameter', parameter: 'include', detail: `cannot include "${name}"; ${allowed}` });
    }
    if (!include.includes(name)) include.push(name);
  }

  const fields: GetQuery['fields'] = {};
  const kept: [string, string][] = [];
  for (const [key, value] of params) {
    if (key === 'page[number]' || key === 'page[size]') continue;
    kept.push([key, value]);
    const match = /^fields\[(.*)\]$/.exec(key);
    if (!match) continue;
    const type = match[1] as ResourceType;
    const known = FIELDS[type];
    if (!known) return fail({ kind: 'invalid_parameter', parameter: key, detail: `"${match[1]}" is not a resource type` });
    const names = value.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length) return fail({ kind: 'invalid_parameter', parameter: key, detail: `unknown field${unknown.length > 1 ? 's' : ''} of ${type}: ${unknown.join(', ')}` });
    fields[type] = new Set(names);
  }
  return ok({ page: { number, size }, include, fields, kept });
}

const encode = (value: string) => encodeURIComponent(value).replace(/%2C/g, ',').replace(/%5B/g, '[').replace(/%5D/g, ']');

/** An absolute URL keeping the request's other parameters, with page[...] last, as the hosted service writes it. */
export function pageUrl(base: string, path: string, query: GetQuery, pageNumber?: number): string {
  const parts = query.kept.map(([k, v]) => `${encode(k)}=${encode(v)}`);
  if (pageNumber !== undefined) parts.push(`page[number]=${pageNumber}`, `page[size]=${query.page.size}`);
  return parts.length ? `${base}${path}?${parts.join('&')}` : `${base}${path}`;
}
