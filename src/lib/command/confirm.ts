// Confirmation of what cannot be undone: asked on a terminal, skipped with --yes, and without a
// terminal a usage error that says to add --yes (a script must say it means it).
import type { Deps } from './deps.js';
import { send } from './resource.js';
import { ApiError, CliError, UsageError } from '../cli/errors.js';
import { formatMoney, oneLine } from '../output/format.js';
import { personName, relatedId, type ResourceLike } from '../output/columns.js';

/** Exit 2 when a person answers no: nothing was changed, as gh does with a declined prompt. */
export class DeclinedError extends CliError {
  constructor(what: string) {
    super(`${what}: not confirmed, nothing changed`, 2);
  }
}

/**
 * Goes on only when confirmed. `what` names the action ("delete invoice 42"); `question` is what a
 * person is asked, or how to find it out. Found out only when a person is to be asked (not with
 * --yes, nor without a terminal), it may look the subject up to name it ("Credit invoice INV-8
 * (€ 36.30, Jan Jansen)?") and refuse, by throwing, what the service would refuse, so nobody
 * answers a question in vain. Undefined from it: there is nothing to confirm (the action changes
 * nothing), go on.
 */
export async function confirmAction(
  deps: Deps,
  what: string,
  question: string | (() => Promise<string | undefined>) = `${what}? This cannot be undone.`,
): Promise<void> {
  if (deps.globals.yes) return;
  if (!deps.canPrompt)
    throw new UsageError(`${what} cannot be undone: add --yes to confirm (there is no terminal to ask at)`);
  const message = typeof question === 'string' ? question : await question();
  if (message === undefined) return;
  if (!(await deps.prompter.confirm({ message: oneLine(message), default: false }))) throw new DeclinedError(what);
}

/** The subject of a question as the service shows it now, what it included, and its headers. */
export async function subject(
  deps: Deps,
  path: string,
  query?: Record<string, string>,
): Promise<{ data: ResourceLike; included: ResourceLike[]; headers: Record<string, string> }> {
  const response = await send(deps, { method: 'GET', path, query });
  const body = response.body as { data: ResourceLike; included?: ResourceLike[] };
  return { data: body.data, included: body.included ?? [], headers: response.headers };
}

/**
 * Whose a resource is, for a question: the customer's name from GET `path` (an invoice's
 * /customer), else `customer 42` (a server without that link), else nothing.
 */
export async function customerOf(deps: Deps, resource: ResourceLike, path: string): Promise<string | undefined> {
  const id = relatedId(resource, 'customer');
  try {
    return personName((await subject(deps, path)).data) || (id && `customer ${id}`);
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401) return id && `customer ${id}`;
    throw error;
  }
}

/** An attribute's money as a person reads it ("€ 36.30"), or undefined. */
export const moneyOf = (resource: ResourceLike, name: string): string | undefined => {
  const value = resource.attributes?.[name];
  return typeof value === 'string' || typeof value === 'number' ? formatMoney(value) : undefined;
};

/** "INV-8 (€ 36.30, Jan Jansen)": a subject and its facts, those known. */
export const withFacts = (name: string, ...facts: (string | undefined)[]): string => {
  const known = facts.filter((fact): fact is string => Boolean(fact));
  return known.length ? `${name} (${known.join(', ')})` : name;
};

/** The status the service gives, or undefined (a server that leaves it out is not second-guessed). */
export const statusOf = (resource: ResourceLike): string | undefined =>
  typeof resource.attributes?.status === 'string' ? resource.attributes.status : undefined;
