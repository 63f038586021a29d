// Flags from a resource's zod schema: one flag per request attribute, named after it in kebab-case,
// with the schema's description, choices and default as help. --data supplies a JSON object.
import type { Command } from 'commander';
import type { z } from 'zod';
import { isRequired, metaOf } from '../schemas/common.js';
import { dataText } from './data.js';
import { UsageError } from '../cli/errors.js';
import type { IO } from '../cli/io.js';

export type Shape = Record<string, z.ZodType>;

export const kebab = (name: string): string => name.replace(/_/g, '-');
/** Commander's key for --first-name. */
const optionKey = (name: string): string => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

export function addAttributeFlags(cmd: Command, shape: Shape, options: { create: boolean }): void {
  for (const [name, schema] of Object.entries(shape)) {
    const meta = metaOf(schema);
    const flag = `--${kebab(name)}`;
    const help = [
      meta?.description ?? name,
      meta?.choices ? `(${meta.choices.join(', ')})` : '',
      options.create && meta?.default ? `[default: ${meta.default}]` : '',
      options.create && isRequired(schema) ? '(required)' : '',
    ]
      .filter(Boolean)
      .join(' ');
    if (meta?.kind === 'boolean') {
      cmd.option(flag, help);
      cmd.option(`--no-${kebab(name)}`, `the opposite of ${flag}`);
    } else {
      const placeholder =
        meta?.kind === 'enum'
          ? 'value'
          : meta?.kind === 'date'
            ? 'date'
            : meta?.kind === 'amount'
              ? 'euro'
              : meta?.kind === 'percent'
                ? 'percent'
                : meta?.kind === 'integer' || meta?.kind === 'id'
                  ? 'n'
                  : 'text';
      cmd.option(`${flag} <${placeholder}>`, help);
    }
  }
  cmd.option('--data <json>', 'attributes as a JSON object, @file, or - for stdin (flags win)');
}

async function readData(source: string, io: IO): Promise<Record<string, unknown>> {
  const text = await dataText(source, io);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--data must be a JSON object, for example --data \'{"first_name":"Jan"}\'');
  }
  // A whole request document is accepted too: its data.attributes are used.
  const attributes = (value as { data?: { attributes?: unknown } } | null)?.data?.attributes ?? value;
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
    throw new UsageError('--data must be a JSON object of attributes');
  }
  return { ...(attributes as Record<string, unknown>) };
}

/** Kinds typed as decimals, where a comma may stand for the point. */
export const isDecimal = (kind: string | undefined): boolean => kind === 'amount' || kind === 'percent';

/**
 * An amount as people type it: `12,50` (a decimal comma), `1.234,50` and `1,234.50` become `12.50`,
 * `1234.50`. `12,500` is left alone (twelve and a half, or twelve thousand five hundred?): the
 * schema refuses it, as it does anything else that is not an amount.
 */
export function amountInput(value: string): string {
  const text = value.trim().replace(/^\u20ac\s*/, ''); // €, escaped: the bundle stays ASCII (bin/billing.js)
  if (/^-?\d+,\d{1,2}$/.test(text)) return text.replace(',', '.');
  if (/^-?\d{1,3}(\.\d{3})+,\d{1,2}$/.test(text)) return text.replace(/\./g, '').replace(',', '.');
  if (/^-?\d{1,3}(,\d{3})+\.\d{1,2}$/.test(text)) return text.replace(/,/g, '');
  return text;
}

/**
 * A row of attributes as people write amounts in a file: a string value of a decimal attribute
 * (an amount, a percentage) read as a flag's is (`12,50` is 12.50); anything else is left to the
 * schema, which judges it as it would from a flag.
 */
export function withDecimalCommas(shape: Shape, attributes: Record<string, unknown>): Record<string, unknown> {
  const read: Record<string, unknown> = { ...attributes };
  for (const [name, value] of Object.entries(attributes)) {
    const schema = Object.hasOwn(shape, name) ? shape[name] : undefined;
    if (schema && typeof value === 'string' && isDecimal(metaOf(schema)?.kind)) read[name] = amountInput(value);
  }
  return read;
}

/**
 * Where in a row a problem is, for a person: an attribute path's array positions counted from 1
 * (`lines/0/amount` is `lines #1, amount`), as file lines are.
 */
export const problemPlace = (path: string): string =>
  path
    .split('/')
    .map((part, i) => (/^\d+$/.test(part) && i > 0 ? `#${Number(part) + 1}` : part))
    .join('/')
    .replace(/\/#/g, ' #')
    .replace(/(#\d+)\//g, '$1, ');

/**
 * Attributes from --data, then the flags on top of them. A flag's value is checked here by the
 * attribute's own schema, so a value the CLI can judge (`--language xx`) is exit 2 naming the flag
 * before anything is sent; --data is the service's to judge (its 400 names the attribute).
 */
export async function collectAttributes(
  opts: Record<string, unknown>,
  shape: Shape,
  io: IO,
): Promise<Record<string, unknown>> {
  const attributes = typeof opts.data === 'string' ? await readData(opts.data, io) : {};
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    let value = opts[optionKey(name)];
    if (value === undefined) continue;
    if (typeof value === 'string' && isDecimal(metaOf(schema)?.kind)) value = amountInput(value);
    const problem = checkValue(schema, value);
    if (problem) problems.push(`--${kebab(name)}: ${problem}`);
    attributes[name] = value;
  }
  if (problems.length) throw new UsageError(problems.join('\nerror: '));
  return attributes;
}

/** Why a value breaks an attribute's rule, or undefined when it keeps it. */
export function checkValue(schema: z.ZodType, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? 'is not valid');
}

/** Required attributes that are absent, e.g. ["first_name", "email"]. */
export function missingNames(shape: Shape, attributes: Record<string, unknown>): string[] {
  return Object.entries(shape)
    .filter(
      ([name, schema]) =>
        isRequired(schema) && (attributes[name] === undefined || attributes[name] === null || attributes[name] === ''),
    )
    .map(([name]) => name);
}
