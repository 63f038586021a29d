// Prompts from a resource's schema. A verb declares its schema; this asks for what is missing, by
// the field's kind (text checked by the same zod rule as the service, a select for enumerations, a
// confirm for booleans, a searchable list for ids of related resources). No verb has prompt code.
import type { z } from 'zod';
import { isRequired, metaOf, type FieldMeta, type RelatedMeta } from '../schemas/common.js';
import type { Choice, Prompter } from '../prompts/prompter.js';
import type { Deps } from './deps.js';
import { ApiError, errorLines, UsageError } from '../cli/errors.js';
import { amountInput, checkValue, isDecimal, kebab, missingNames, type Shape } from './flags.js';
import { safeText } from '../output/format.js';
import { send } from './resource.js';
import { textOf } from '../schemas/json.js';

const label = (name: string, meta: FieldMeta | undefined): string => meta?.description ?? name.replace(/_/g, ' ');

/**
 * Fills in the required attributes that are missing by asking, or, when no one may be asked,
 * ends with exit 2 naming every missing flag at once. Before the first question, each list to pick
 * from must hold a valid choice, else nothing is asked (exit 2). A person answering anyway is also
 * offered the optional attributes the schema marks (an IBAN), each skipped by an empty answer, and
 * those that then become needed (its holder). Returns the names answered, for sendAnswers.
 */
export async function askMissing(deps: Deps, shape: Shape, attributes: Record<string, unknown>): Promise<string[]> {
  const missing = missingNames(shape, attributes);
  if (missing.length === 0) return [];
  if (!deps.canPrompt) {
    const flags = missing.map((name) => `--${kebab(name)}`);
    throw new UsageError(`missing required ${flags.length === 1 ? 'flag' : 'flags'}: ${flags.join(', ')}`);
  }
  await checkChoices(
    deps,
    missing.map((name) => metaOf(shape[name])),
  );
  const asked: string[] = [];
  const answer = async (name: string) => {
    const value = await ask(deps, name, shape[name], undefined, how(shape, attributes, name));
    if (value === null || value === '') return;
    attributes[name] = value;
    asked.push(name);
    // What this answer makes needed (bank_holder once there is an iban) comes next.
    for (const [other, schema] of Object.entries(shape))
      if (metaOf(schema)?.after === name && absent(attributes[other])) await answer(other);
  };
  for (const name of missing) await answer(name);
  for (const [name, schema] of Object.entries(shape)) {
    const meta = metaOf(schema);
    if (attributes[name] === undefined && (meta?.offered || (meta?.after && !absent(attributes[meta.after]))))
      await answer(name);
  }
  return asked;
}

const absent = (value: unknown): boolean => value === undefined || value === null || value === '';

/** How an attribute is asked: needed (an empty answer is refused), or skippable (an empty answer leaves it out). */
interface How {
  needed: boolean;
  skippable: boolean;
}

function how(shape: Shape, attributes: Record<string, unknown>, name: string): How {
  const meta = metaOf(shape[name]);
  const needed = isRequired(shape[name]) || (meta?.after !== undefined && !absent(attributes[meta.after]));
  return { needed, skippable: !needed && meta?.offered === true };
}

/**
 * Each related list a question will offer holds a valid choice (one row with the list's filter), or
 * the command says there is none and how to make one, before anything is asked.
 */
async function checkChoices(deps: Deps, metas: (FieldMeta | undefined)[]): Promise<void> {
  const lists = metas.flatMap((meta) => (meta?.kind === 'id' && meta.related ? [meta.related] : []));
  const found = await Promise.all(
    lists.map(async (related) => {
      const query = { ...filterQuery(related), 'page[size]': 1 };
      const body = (await send(deps, { method: 'GET', path: related.path, query })).body as { data?: unknown[] };
      return (body.data ?? []).length > 0;
    }),
  );
  const empty = lists.find((_, i) => !found[i]);
  // What to do next goes on a hint line of its own: each line fits 80 columns.
  if (empty) throw Object.assign(new UsageError(`there is no ${empty.noun} to choose from`), { hint: empty.make });
}

const filterQuery = (related: RelatedMeta): Record<string, string> =>
  Object.fromEntries(Object.entries(related.filter ?? {}).map(([name, value]) => [`filter[${name}]`, value]));

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
  for (const name of names) {
    if (name in changes) continue;
    changes[name] = await ask(deps, name, shape[name], current[name]);
    // A new IBAN needs its holder: asked next, offered as it is.
    for (const [other, schema] of Object.entries(shape))
      if (metaOf(schema)?.after === name && !absent(changes[name]) && !(other in changes))
        changes[other] = await ask(deps, other, schema, current[other], how(shape, changes, other));
  }
  return changes;
}

const shown = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : textOf(value);

async function ask(
  deps: Deps,
  name: string,
  schema: z.ZodType,
  current?: unknown,
  { needed, skippable }: How = { needed: false, skippable: false },
): Promise<unknown> {
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
      // Kept within 80 columns: a question that may be skipped says so instead of giving an example.
      const hint = skippable ? 'Enter skips' : meta?.example && `e.g. ${meta.example}`;
      const answer = await prompter.text({
        message: hint ? `${message} (${hint})` : message,
        default: shown(current),
        validate: (text) => {
          // An optional attribute made needed by another (a holder for the IBAN) refuses empty too.
          const problem =
            checkValue(schema, normalise(text)) ?? (needed && !text.trim() ? 'must not be empty' : undefined);
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
  relationships?: Record<string, { data?: { id?: string } | null } | undefined>;
}

const personName = (a: Record<string, unknown>): string =>
  [a.first_name, a.middle_name, a.last_name].filter(Boolean).map(textOf).join(' ');

/**
 * "Jan Jansen <jan@example.com>", "Monthly membership (12.50)", "DRAFT · Jan Jansen (0.00)",
 * "LID-2026-0042 · Jan Jansen": what a person recognises a resource by, its customer's name
 * beside a code when the list included the customers.
 */
function describe(resource: Listed, customers: ReadonlyMap<string, Listed>): string {
  const a = resource.attributes ?? {};
  const name = a.name ?? (personName(a) || a.company_name || a.mandate_code || a.reference || '');
  const customerId = resource.relationships?.customer?.data?.id;
  const customer = customerId === undefined ? undefined : customers.get(customerId)?.attributes;
  const owner = customer ? personName(customer) || textOf(customer.company_name ?? '') : '';
  // A plan's amount, or an invoice's total (a draft's is 0.00 until it has lines).
  const amount = a.amount ?? a.amount_incl;
  const extra = a.email
    ? ` <${textOf(a.email)}>`
    : amount !== undefined && amount !== null && amount !== ''
      ? ` (${textOf(amount)})`
      : '';
  return `${resource.id}  ${textOf(name)}${owner ? ` · ${owner}` : ''}${extra}`;
}

/**
 * A searchable list of the valid related resources (the field's filter): what is typed is sent as
 * filter[search], so the service searches every row, not the page shown.
 */
async function pickRelated(deps: Deps, prompter: Prompter, message: string, related: RelatedMeta): Promise<string> {
  return prompter.search({
    message: `${message}: type to search`,
    source: async (term) => {
      const query: Record<string, string | number> = { ...filterQuery(related), 'page[size]': 20 };
      if (related.include) query.include = related.include;
      if (term.trim()) query['filter[search]'] = term.trim();
      const body = (await send(deps, { method: 'GET', path: related.path, query })).body as {
        data?: Listed[];
        included?: (Listed & { type?: string })[];
      };
      const customers = new Map((body.included ?? []).filter((r) => r.type === 'customer').map((r) => [r.id, r]));
      return (body.data ?? []).map((r) => ({ value: r.id, name: safeText(describe(r, customers)) }));
    },
  });
}

/** How many times refused answers are asked again before the refusal ends the command. */
const MAX_REASKS = 3;

/**
 * Runs a write made of answers (askMissing's, askChanges'). When the service refuses it and every
 * error points at an attribute answered at a prompt, its words are shown, just those questions are
 * asked again (the refused answer offered as the default) and the write is sent again: the other
 * answers are kept. Any other refusal, or one past MAX_REASKS, ends the command as it always has;
 * with nobody to ask, nothing was answered and nothing changes.
 */
export async function sendAnswers<T>(
  deps: Deps,
  shape: Shape,
  attributes: Record<string, unknown>,
  answered: readonly string[],
  write: () => Promise<T>,
): Promise<T> {
  for (let round = 0; ; round++) {
    try {
      return await write();
    } catch (error) {
      const refused = round < MAX_REASKS ? refusedAnswers(error, answered) : undefined;
      if (!refused) throw error;
      for (const line of errorLines(refused.document, refused.status)) deps.io.err(safeText(`error: ${line}\n`));
      for (const name of refused.names)
        attributes[name] = await ask(deps, name, shape[name], attributes[name], how(shape, attributes, name));
    }
  }
}

/** The answered attributes a refusal points at (source.pointer), when it points at nothing else. */
function refusedAnswers(
  error: unknown,
  answered: readonly string[],
): { status: number; document: unknown; names: string[] } | undefined {
  // The service's refusal, or a runtime operation's (plans create), which is the same in process.
  const refusal =
    error instanceof ApiError || (error instanceof Error && error.name === 'Refusal')
      ? (error as Error & { status: number; document: unknown })
      : undefined;
  if (!refusal || refusal.status === 401 || refusal.status >= 500) return undefined;
  const errors = (refusal.document as { errors?: { source?: { pointer?: unknown } }[] } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const names = new Set<string>();
  for (const e of errors) {
    const pointer = e?.source?.pointer;
    const segment = typeof pointer === 'string' ? /^\/data\/attributes\/([^/]+)/.exec(pointer)?.[1] : undefined;
    const name = segment?.replace(/~1/g, '/').replace(/~0/g, '~');
    if (name === undefined || !answered.includes(name)) return undefined;
    names.add(name);
  }
  return { status: refusal.status, document: refusal.document, names: answered.filter((name) => names.has(name)) };
}
