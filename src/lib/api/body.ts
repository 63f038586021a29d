// The request document: JSON, with `data` of the expected type (and, on PATCH, the path's id).
import { fail, ok, type Result } from '../core/result.js';

export interface RequestDocument {
  attributes: Record<string, unknown>;
  /** The parsed body, echoed as meta.original in 400 answers. */
  original: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseBody(raw: string | undefined): { original: unknown; parsed: boolean } {
  if (raw === undefined || raw.trim() === '') return { original: null, parsed: false };
  try {
    return { original: JSON.parse(raw), parsed: true };
  } catch {
    return { original: raw, parsed: false };
  }
}

export function readDocument(raw: string | undefined, type: string, id?: string): Result<RequestDocument> & { original: unknown } {
  const { original, parsed } = parseBody(raw);
  const invalid = (pointer: string, detail: string) => ({ ...fail<RequestDocument>({ kind: 'invalid_document', pointer, detail }), original });
  if (!parsed) return invalid('/data', raw === undefined || raw.trim() === '' ? 'a request body with data is required' : 'the body is not valid JSON');
  if (!isObject(original) || !isObject(original.data)) return invalid('/data', 'the body must be an object with a data object');
  const { data } = original;
  if (data.type !== type) return invalid('/data/type', `data.type must be "${type}"`);
  if (id !== undefined && String(data.id ?? '') !== id) return invalid('/data/id', `data.id must be "${id}", the id in the path`);
  if (data.attributes !== undefined && !isObject(data.attributes)) return invalid('/data/attributes', 'data.attributes must be an object');
  return { ...ok({ attributes: (data.attributes ?? {}) as Record<string, unknown>, original }), original };
}
