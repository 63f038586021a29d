// The enumerations a flag's value may come from, gathered where they are defined: the vocabulary,
// every enum of the resource schemas, the output formats and the config keys. A flag is completed
// with the one its help spells out (lib/completion/tree.ts), so no list is written twice.
import { OUTPUT_FORMATS } from '../../lib/cli/globals.js';
import { CONFIG_KEYS } from '../../lib/config/file.js';
import { metaOf } from '../../lib/schemas/common.js';
import * as customer from '../../lib/schemas/customer.js';
import * as invoice from '../../lib/schemas/invoice.js';
import * as plan from '../../lib/schemas/plan.js';
import * as subscription from '../../lib/schemas/subscription.js';
import * as vocabulary from '../../lib/schemas/vocabulary.js';
import type { z } from 'zod';

const isStrings = (value: unknown): value is readonly string[] =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string');

interface Schemaish {
  safeParse?: unknown;
  shape?: Record<string, unknown>;
  options?: unknown;
  unwrap?: () => unknown;
  def?: { type?: string };
}

/** A field's values: its metadata's choices, or the zod enum under its optional/nullable wrappers. */
function choicesOf(schema: Schemaish): readonly string[] | undefined {
  const listed = metaOf(schema as z.ZodType)?.choices;
  if (listed) return listed;
  let current: Schemaish | undefined = schema;
  for (let depth = 0; depth < 4 && current; depth++) {
    if (current.def?.type === 'enum' && isStrings(current.options)) return current.options;
    current = typeof current.unwrap === 'function' ? (current.unwrap() as Schemaish) : undefined;
  }
  return undefined;
}

/** The fields of an exported schema (a zod object) or shape (a record of zod fields). */
function fieldsOf(value: unknown): Schemaish[] {
  if (typeof value !== 'object' || value === null) return [];
  const shape = (value as Schemaish).shape ?? value;
  const fields = Object.values(shape) as Schemaish[];
  return fields.every((field) => typeof field === 'object' && field !== null && typeof field.safeParse === 'function')
    ? fields
    : [];
}

export function enumerations(): (readonly string[])[] {
  const lists = new Map<string, readonly string[]>();
  const add = (list: readonly string[]) => lists.set(list.join('\n'), list);
  for (const value of Object.values(vocabulary)) if (isStrings(value)) add(value);
  for (const module of [customer, plan, subscription, invoice]) {
    for (const value of Object.values(module)) {
      for (const field of fieldsOf(value)) {
        const choices = choicesOf(field);
        if (choices) add(choices);
      }
    }
  }
  add(OUTPUT_FORMATS);
  add(CONFIG_KEYS);
  return [...lists.values()];
}
