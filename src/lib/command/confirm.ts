// Confirmation of what cannot be undone: asked on a terminal, skipped with --yes, and without a
// terminal a usage error that says to add --yes (a script must say it means it).
import type { Deps } from './deps.js';
import { CliError, UsageError } from '../cli/errors.js';

/** Exit 2 when a person answers no: nothing was changed, as gh does with a declined prompt. */
export class DeclinedError extends CliError {
  constructor(what: string) {
    super(`${what}: not confirmed, nothing changed`, 2);
  }
}

/**
 * Goes on only when confirmed. `what` names the action ("delete invoice 42"); `question` is what a
 * person is asked.
 */
export async function confirmAction(
  deps: Deps,
  what: string,
  question = `${what}? This cannot be undone.`,
): Promise<void> {
  if (deps.globals.yes) return;
  if (!deps.canPrompt)
    throw new UsageError(`${what} cannot be undone: add --yes to confirm (there is no terminal to ask at)`);
  if (!(await deps.prompter.confirm({ message: question, default: false }))) throw new DeclinedError(what);
}
