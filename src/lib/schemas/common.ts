// Building blocks of the resource schemas. Every field carries its CLI metadata (`.meta()`), so one
// schema gives the API's validation, the 400 pointers, the CLI flags, the prompts and the help.
import { z } from 'zod';
import { formatAmount, parseAmount } from './money.js';

/** One attribute's problem: the 400 answer points at it. */
export interface AttributeProblem {
  attribute: string;
  /** Below the attribute: an item of a list and its member (`lines`, [0, 'quantity']). */
  path?: (string | number)[];
  detail: string;
}

/** `amount`: euro; `percent`: a rate. Both are typed as people write decimals (a comma is read as the point). */
export type FieldKind = 'string' | 'boolean' | 'integer' | 'amount' | 'percent' | 'enum' | 'date' | 'id';

/** The resource an id attribute points at: a prompt offers its resources in a searchable list. */
export interface RelatedMeta {
  /** Collection path, e.g. `/customers`. */
  path: string;
  /** What a valid choice is called, for when there is none, e.g. `draft invoice`. */
  noun: string;
  /** `filter[NAME]` values that leave only the valid choices (a line goes on a draft only). */
  filter?: Readonly<Record<string, string>>;
  /** What to do when there is no valid choice, e.g. make one with `billing invoices create`. */
  make: string;
  /** `include` of the list, to tell its rows apart by their customer. */
  include?: 'customer';
}

export interface FieldMeta {
  kind: FieldKind;
  description: string;
  example?: string;
  choices?: readonly string[];
  /** Shown in help; applied by the use case, not the schema, so PATCH never fills it in. */
  default?: string;
  /** For kind `id`: the related resource. */
  related?: RelatedMeta;
  /** Optional, yet worth asking a person who is answering questions on create (an IBAN): an empty answer skips it. */
  offered?: boolean;
  /** Asked right after this attribute when it has a value, and then needed (the holder of an IBAN). */
  after?: string;
}

export const MAX_TEXT = 255;

const stringError = (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : issue.input === null ? 'must not be empty' : 'must be a string';

/** Characters (Unicode code points, so a character outside the BMP counts once), at most `max`. */
export function fitsLength(text: string, max: number): boolean {
  if (text.length <= max) return true; // code units: never fewer than code points
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count > max) return false;
  }
  return true;
}

/** C0 and C1 control characters and DEL (\p{Cc}), but for tab and newline. */
const CONTROL = /[^\P{Cc}\t\n]/u;
export const hasControlCharacter = (text: string): boolean => CONTROL.test(text);
const CONTROL_MESSAGE = 'must not contain control characters (tab and newline are the only ones allowed)';

/** A text attribute's rules after trimming: its length in characters, no control characters. */
const textRules = <T extends z.ZodString>(schema: T, max: number) =>
  schema
    .refine((value) => fitsLength(value, max), `must be at most ${max} characters`)
    .refine((value) => !hasControlCharacter(value), CONTROL_MESSAGE);

/** A required string: trimmed, not empty, at most 255 characters, no control characters but tab and newline. */
export const requiredText = (meta: Omit<FieldMeta, 'kind'>, max = MAX_TEXT) =>
  textRules(z.string({ error: stringError }).trim().min(1, 'must not be empty'), max).meta({ kind: 'string', ...meta });

/** An optional string; empty (after trimming) or null clears it. Same rules as requiredText otherwise. */
export const optionalText = (meta: Omit<FieldMeta, 'kind'>, max = MAX_TEXT) =>
  textRules(z.string({ error: 'must be a string or null' }).trim(), max)
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .optional()
    .meta({ kind: 'string', ...meta });

/** true/false, or the strings "true"/"false". */
export const bool = () =>
  z.preprocess(
    (value) => (value === 'true' ? true : value === 'false' ? false : value),
    z.boolean({ error: 'must be true or false' }),
  );

export const optionalBool = (meta: Omit<FieldMeta, 'kind'>) =>
  bool()
    .optional()
    .meta({ kind: 'boolean', ...meta });

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of: ${values.join(', ')}` });

export const optionalEnum = <const T extends readonly [string, ...string[]]>(
  values: T,
  meta: Omit<FieldMeta, 'kind' | 'choices'>,
) =>
  oneOf(values)
    .optional()
    .meta({ kind: 'enum', choices: values, ...meta });

/** An integer >= min, given as a number or a numeric string. */
export const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value),
    z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );

/** A euro amount with at most two decimals (number or numeric string), as integer cents. */
export const amount = (options: { min?: number; max?: number } = {}) =>
  z.unknown().transform((value, ctx) => {
    const cents = parseAmount(value);
    if (cents === null) {
      ctx.addIssue({
        code: 'custom',
        message:
          value === undefined
            ? 'is required'
            : 'must be an amount in euro with at most two decimals, for example 12.50',
      });
      return z.NEVER;
    }
    if (options.min !== undefined && cents < options.min) {
      ctx.addIssue({ code: 'custom', message: `must be at least ${formatAmount(options.min)}` });
      return z.NEVER;
    }
    if (options.max !== undefined && cents > options.max) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${formatAmount(options.max)}` });
      return z.NEVER;
    }
    return cents;
  });

/** The field's metadata, looked up through optional/nullable wrappers added after `.meta()`. */
export function metaOf(schema: z.ZodType): FieldMeta | undefined {
  let current: unknown = schema;
  for (let depth = 0; depth < 4 && current; depth++) {
    const meta = z.globalRegistry.get(current as z.ZodType) as FieldMeta | undefined;
    if (meta) return meta;
    const unwrap = (current as { unwrap?: () => unknown }).unwrap;
    current = typeof unwrap === 'function' ? unwrap.call(current) : undefined;
  }
  return undefined;
}

/** Whether a field must be given on create: it does not accept "absent". */
export const isRequired = (schema: z.ZodType): boolean => !schema.safeParse(undefined).success;

export interface AttributeRules {
  readOnly: readonly string[];
  /**
   * Whether a read-only attribute was sent with its current value (a PATCH that sends back what was
   * read): it is then ignored rather than refused. Without it, a read-only attribute is always refused.
   */
  unchanged?: (name: string, value: unknown) => boolean;
}

/** Members JSON:API keeps out of `attributes`: they are the resource object's own. */
const RESERVED = new Set(['relationships', 'links', 'id', 'type']);

/** Whether a value holds text that is not valid Unicode (a lone surrogate), in a string or a member name. */
function holdsLoneSurrogate(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (!(item as unknown as { isWellFormed(): boolean }).isWellFormed()) return true;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, inner] of Object.entries(item)) stack.push(key, inner);
    }
  }
  return false;
}

/**
 * Validates request attributes against a strict object schema. Read-only and unknown attributes,
 * and every rule the schema breaks, come back together as problems (one per attribute).
 */
export function validateAttributes<S extends z.ZodObject>(
  schema: S,
  attributes: Record<string, unknown>,
  rules: AttributeRules,
): { value: z.output<S>; problems: AttributeProblem[] } {
  const problems: AttributeProblem[] = [];
  // No prototype: a `__proto__` attribute (JSON.parse makes it an own key) must stay an own key, so
  // it is reported as unknown instead of becoming the prototype whose properties zod would read.
  const input = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(attributes)) {
    if (RESERVED.has(name))
      problems.push({
        attribute: name,
        detail: 'is not allowed inside attributes: JSON:API keeps relationships, links, id and type out of them',
      });
    else if (rules.readOnly.includes(name)) {
      if (!rules.unchanged?.(name, value))
        problems.push({
          attribute: name,
          detail: rules.unchanged ? 'is read-only: it may be sent only with its current value' : 'is read-only',
        });
    } else if (Object.hasOwn(schema.shape, name) && holdsLoneSurrogate(value)) {
      // Never stored with a replacement character: refused, whatever the attribute's type.
      problems.push({ attribute: name, detail: 'must be valid Unicode text (it holds a lone surrogate)' });
    } else input[name] = value;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      // Inside a list the pointer goes down to the item's member (`lines/0/quantity`); elsewhere
      // (a record, as metadata) it names the attribute.
      const keys = issue.path.map((key) => (typeof key === 'number' ? key : String(key)));
      const attribute = String(keys[0] ?? '');
      const below = keys.slice(1);
      const path = below.some((key) => typeof key === 'number') ? below : [];
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys)
          problems.push(
            issue.path.length
              ? { attribute, path: [...path, key], detail: 'is not a known attribute' }
              : { attribute: key, detail: 'is not a known attribute' },
          );
      } else {
        const same = (p: AttributeProblem) => p.attribute === attribute && (p.path ?? []).join('/') === path.join('/');
        if (!problems.some(same))
          problems.push(
            path.length ? { attribute, path, detail: issue.message } : { attribute, detail: issue.message },
          );
      }
    }
  }
  return { value: (parsed.success ? parsed.data : {}) as z.output<S>, problems };
}
