// activate, pause, resume and cancel: each one PATCH of the subscription (its status, and the dates
// that go with it), shown as the service returns it.
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import { runWrite } from '../../lib/command/resource.js';
import { DATE_MESSAGE, isDateInput } from '../../lib/schemas/dates.js';
import { SUBSCRIPTION } from './index.js';
import { textOf } from '../../lib/schemas/json.js';

/** A date flag's value, checked as the service checks dates; undefined when the flag was not given. */
export function dateFlag(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const text = textOf(value).trim();
  if (!isDateInput(text)) throw new UsageError(`${flag}: ${DATE_MESSAGE}, not "${textOf(value)}"`);
  return text;
}

/** The one PATCH of a shortcut (printed instead with --dry-run). */
export function patchSubscription(
  deps: Deps,
  id: number,
  attributes: Record<string, unknown>,
  done: string,
): Promise<void> {
  return runWrite(deps, {
    method: 'PATCH',
    path: `${SUBSCRIPTION.path}/${id}`,
    type: SUBSCRIPTION.type,
    id,
    attributes,
    done: `${done} subscription`,
  });
}
