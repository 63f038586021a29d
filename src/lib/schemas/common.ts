// Building blocks of the resource schemas. Every field carries its CLI metadata (`.meta()`), so one
// schema gives the API's validation, the 400 pointers, the CLI flags, the prompts and the help.
import { z } from 'zod';
import { parseAmount } from './money.js';

/** One attribute's problem: the 400 answer points at it. */
export interface AttributeProblem {
  attribute: string;
  detail: string;
}

export type FieldKind = 'string' | 'boolean' | 'integer' | 'amount' | 'enum' | 'date' | 'id';

/** The resource an id attribute points at: a prompt offers its resources in a searchable list. */
export interface RelatedMeta {
  /** Collection path, e.g. `/customers`. */
  path: string;
  /** Noun for the question, e.g. `customer`. */
  noun: string;
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
}

export const MAX_TEXT = 255;

const stringError = (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : issue.input === null ? 'must not be empty' : 'must be a string';

/** A required string: trimmed, not empty, at most 255 characters. */
export const requiredText = (meta: Omit<FieldMeta, 'kind'>, max = MAX_TEXT) =>
  z
    .string({ error: stringError })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .meta({ kind: 'string', ...meta });

/** An optional string; empty (after trimming) or null clears it. */
export const optionalText = (meta: Omit<FieldMeta, 'kind'>, max = MAX_TEXT) =>
  z
    .string({ error: 'must be a string or null' })
    .trim()
    .max(max, `must be at most ${max} characters`)
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

export const optionalBool = (meta: Omit<FieldMeta, 'kind'>) => bool().optional().meta({ kind: 'boolean', ...meta });

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of: ${values.join(', ')}` });

export const optionalEnum = <const T extends readonly [string, ...string[]]>(values: T, meta: Omit<FieldMeta, 'kind' | 'choices'>) =>
  oneOf(values).optional().meta({ kind: 'enum', choices: values, ...meta });

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
export const amount = (options: { min?: number } = {}) =>
  z.unknown().transform((value, ctx) => {
    const cents = parseAmount(value);
    if (cents === null) {
      ctx.addIssue({ code: 'custom', message: value === undefined ? 'is required' : 'must be an amount in euro with at most two decimals, for example 12.50' });
      return z.NEVER;
    }
    if (options.min !== undefined && cents < options.min) {
      ctx.addIssue({ code: 'custom', message: `must be at least ${(options.min / 100).toFixed(2)}` });
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
  const input: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(attributes)) {
    if (rules.readOnly.includes(name)) problems.push({ attribute: name, detail: 'is read-only' });
    else input[name] = value;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) problems.push({ attribute: key, detail: 'is not a known attribute' });
      } else {
        const attribute = String(issue.path[0] ?? '');
        if (!problems.some((p) => p.attribute === attribute)) problems.push({ attribute, detail: issue.message });
      }
    }
  }
  return { value: (parsed.success ? parsed.data : {}) as z.output<S>, problems };
}
