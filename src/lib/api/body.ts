// The request document: JSON, with `data` of the expected type (and, on PATCH, the path's id).
//
// Only writes read a body; a GET never pays for any of this. The text is checked before it is
// parsed: nesting deeper than MAX_DEPTH is refused without building it (a document 100,000 levels
// deep parses, but echoing it in meta.original, cloning or stringifying it overflows the stack).
import { fail, ok, type Failure, type Result } from '../core/result.js';
import { isWellFormed, MAX_DEPTH, nestedDeeperThan } from '../schemas/json.js';

export interface RequestDocument {
  attributes: Record<string, unknown>;
  /** The parsed body, echoed as meta.original in 400 answers. */
  original: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether the text may hold a lone surrogate once parsed: a raw one, or an escape of a surrogate
 * (`\ud800`; a pair of escapes too, which the exact check on the parsed value then clears). A gate
 * only, so the common body is not walked a second time.
 */
const maySurrogate = (text: string): boolean => !isWellFormed(text) || /\\u[dD][89a-fA-F]/.test(text);

/** An object key or array index as one JSON Pointer segment (RFC 6901). */
const segment = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Where the parsed document holds text that is not valid Unicode outside the values of
 * data.attributes (those are the attribute's own problem, reported with the other attributes):
 * the pointer of the string, or of the object whose member name it is. Iterative, and only ever
 * run on a document of at most MAX_DEPTH levels.
 */
function loneSurrogateOutsideAttributes(document: unknown): string | undefined {
  const stack: [unknown, string][] = [[document, '']];
  while (stack.length) {
    const [value, pointer] = stack.pop()!;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) return pointer;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push([item, `${pointer}/${index}`]));
    } else if (isObject(value)) {
      const inAttributes = pointer === '/data/attributes';
      for (const key of Object.keys(value)) {
        if (!isWellFormed(key)) return pointer; // '' for a member of the document itself
        // An attribute's value, whatever it holds, is checked with the attribute.
        if (!inAttributes) stack.push([value[key], `${pointer}/${segment(key)}`]);
      }
    }
  }
  return undefined;
}

export function parseBody(raw: string | undefined): { original: unknown; parsed: boolean; tooDeep?: boolean } {
  if (raw === undefined || raw.trim() === '') return { original: null, parsed: false };
  // Refused unparsed; echoed as sent, like any body that cannot be read as a document.
  if (nestedDeeperThan(raw, MAX_DEPTH)) return { original: raw, parsed: false, tooDeep: true };
  try {
    return { original: JSON.parse(raw), parsed: true };
  } catch {
    return { original: raw, parsed: false };
  }
}

type Read = Result<RequestDocument> & { original: unknown };

/**
 * The document of a POST (no id) or a PATCH (the path's id), or why it is refused: 400 Invalid
 * Document for what is not a resource document; 409 Conflict for another type, or another id than
 * the path's; 403 Forbidden for a POST that brings its own id. `idOptional`: an action on the
 * path's resource (finalise), whose documented request form has no data.id; one given must match.
 */
export function readDocument(raw: string | undefined, type: string, id?: string, idOptional = false): Read {
  const { original, parsed, tooDeep } = parseBody(raw);
  const refuse = (failure: Failure): Read => ({ ...fail<RequestDocument>(failure), original });
  const invalid = (pointer: string, detail: string) => refuse({ kind: 'invalid_document', pointer, detail });
  if (!parsed) {
    const detail =
      original === null
        ? 'a request body with data is required'
        : tooDeep
          ? `the body is nested deeper than ${MAX_DEPTH} levels`
          : 'the body is not valid JSON';
    return invalid('/data', detail);
  }
  if (!isObject(original) || !isObject(original.data))
    return invalid('/data', 'the body must be an object with a data object');
  if (maySurrogate(raw!)) {
    const at = loneSurrogateOutsideAttributes(original);
    if (at !== undefined) return invalid(at, 'the document holds text that is not valid Unicode (a lone surrogate)');
  }
  const { data } = original;
  if (typeof data.type !== 'string') return invalid('/data/type', `data.type must be "${type}"`);
  if (data.type !== type)
    return refuse({
      kind: 'conflict',
      pointer: '/data/type',
      detail: `data.type must be "${type}", the type of this endpoint`,
    });
  if (id === undefined) {
    // null is no id; any other value is an id the client made up.
    if (data.id !== undefined && data.id !== null)
      return refuse({
        kind: 'forbidden',
        pointer: '/data/id',
        detail: 'client-generated ids are not supported: leave data.id out, the service assigns it',
      });
  } else if (!(idOptional && (data.id === undefined || data.id === null))) {
    if (typeof data.id !== 'string' && typeof data.id !== 'number')
      return invalid('/data/id', `data.id must be "${id}", the id in the path`);
    // A number must be that very integer: one above 2^53 - 1 was rounded by JSON.parse, and is never taken for another.
    const same = typeof data.id === 'string' ? data.id === id : Number.isSafeInteger(data.id) && String(data.id) === id;
    if (!same)
      return refuse({ kind: 'conflict', pointer: '/data/id', detail: `data.id must be "${id}", the id in the path` });
  }
  if (data.attributes !== undefined && !isObject(data.attributes))
    return invalid('/data/attributes', 'data.attributes must be an object');
  return { ...ok({ attributes: data.attributes ?? {}, original }), original };
}
