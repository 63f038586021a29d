// Prompts from a resource's schema. A verb declares its schema; this asks for what is missing, by
// the field's kind (text checked by the same zod rule as the service, a select for enumerations, a
// confirm for booleans, a searchable list for ids of related resources). No verb has prompt code.
import type { z } from 'zod';
import { isRequired, metaOf, type FieldMeta } from '../schemas/common.js';
import type { Choice, Prompter } from '../prompts/prompter.js';
import type { Deps } from './deps.js';
import { UsageError } from '../cli/errors.js';
import { amountInput, checkValue, isDecimal, kebab, missingNames, type Shape } from './flags.js';
import { safeText } from '../output/format.js';
import { send } from './resource.js';
import { textOf } from '../schemas/json.js';

const label = (name: string, meta: FieldMeta | undefined): string => meta?.description ?? name.replace(/_/g, ' ');

/**
 * Fills in the required attributes that are missing by asking, or, when no one may be asked,
 * ends with exit 2 naming every missing flag at once.
 */
export async function askMissing(deps: Deps, shape: Shape, attributes: Record<string, unknown>): Promise<void> {
  const missing = missingNames(shape, attributes);
  if (missing.length === 0) return;
  if (!deps.canPrompt) {
    const flags = missing.map((name) => `--${kebab(name)}`);
    throw new UsageError(`missing required ${flags.length === 1 ? 'flag' : 'flags'}: ${flags.join(', ')}`);
  }
  for (const name of missing) attributes[name] = await ask(deps, name, shape[name]);
}

/**
 * An update without flags on a terminal: which attributes to change, then each one, offered with
 * its current value. Without a terminal, exit 2.
 */
export async function askChanges(
  deps: Deps,
  shape: Shape,
  current: Record<string, unknown>,
  usage: string,
): Promise<Record<string, unknown>> {
  if (!deps.canPrompt) throw new UsageError(`nothing to change: give at least one flag (see ${usage})`);
  const names = await deps.prompter.checkbox({
    message: 'Which attributes to change?',
    choices: Object.entries(shape).map(([name, schema]) => ({
      value: name,
      name: label(name, metaOf(schema)),
      description: shown(current[name]),
    })),
  });
  if (names.length === 0) throw new UsageError('nothing to change: no attribute chosen');
  const changes: Record<string, unknown> = {};
  for (const name of names) changes[name] = await ask(deps, name, shape[name], current[name]);
  return changes;
}

const shown = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : textOf(value);

async function ask(deps: Deps, name: string, schema: z.ZodType, current?: unknown): Promise<unknown> {
  const meta = metaOf(schema);
  const message = label(name, meta);
  const prompter = deps.prompter;
  switch (meta?.kind) {
    case 'boolean':
      return prompter.confirm({ message, default: typeof current === 'boolean' ? current : meta.default === 'true' });
    case 'enum': {
      const choices: Choice[] = (meta.choices ?? []).map((value) => ({ value, name: value }));
      // An optional enumeration can be left empty (the service's default, or cleared).
      if (!isRequired(schema))
        choices.unshift({ value: '', name: meta.default ? `(default: ${meta.default})` : '(none)' });
      const answer = await prompter.select({
        message,
        choices,
        default: typeof current === 'string' ? current : meta.default,
      });
      return answer === '' ? null : answer;
    }
    case 'id':
      if (meta.related) return Number(await pickRelated(deps, prompter, message, meta.related));
    // falls through: an id without a related resource is typed
    default: {
      const normalise = (answer: string) => (isDecimal(meta?.kind) ? amountInput(answer) : answer);
      const answer = await prompter.text({
        message: meta?.example ? `${message} (e.g. ${meta.example})` : message,
        default: shown(current),
        validate: (text) => {
          const problem = checkValue(schema, normalise(text));
          return problem === undefined ? true : `${message} ${problem}`;
        },
      });
      return normalise(answer);
    }
  }
}

interface Listed {
  id: string;
  attributes?: Record<string, unknown>;
}

/** "Jan Jansen <jan@example.com>", "Monthly membership (12.50)", "INV-7 (12.10)": what a person recognises a resource by. */
function describe(resource: Listed): string {
  const a = resource.attributes ?? {};
  const name =
    a.name ??
    ([a.first_name, a.middle_name, a.last_name].filter(Boolean).join(' ') ||
      a.company_name ||
      a.mandate_code ||
      a.reference ||
      '');
  // A plan's amount, or an invoice's total (a draft's is 0.00 until it has lines).
  const amount = a.amount ?? a.amount_incl;
  const extra = a.email
    ? ` <${textOf(a.email)}>`
    : amount !== undefined && amount !== null && amount !== ''
      ? ` (${textOf(amount)})`
      : '';
  return `${resource.id}  ${textOf(name)}${extra}`;
}

/** A searchable list of the related resources: what is typed narrows it by filter[search]. */
async function pickRelated(
  deps: Deps,
  prompter: Prompter,
  message: string,
  related: NonNullable<FieldMeta['related']>,
): Promise<string> {
  return prompter.search({
    message: `${message}: type to search`,
    source: async (term) => {
      const query: Record<string, string | number> = { 'page[size]': 20 };
      if (term.trim()) query['filter[search]'] = term.trim();
      const body = (await send(deps, { method: 'GET', path: related.path, query })).body as { data?: Listed[] };
      return (body.data ?? []).map((r) => ({ value: r.id, name: safeText(describe(r)) }));
    },
  });
}
