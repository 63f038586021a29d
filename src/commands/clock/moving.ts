// What the clock verbs share: the core (embedded only), times in the account's zone, and the
// report of a move: the status changes it made as a table on stdout, the move itself on stderr.
import { embeddedOnly, type Deps } from '../../lib/command/deps.js';
import { ApiError, UsageError } from '../../lib/command/errors.js';
import type { Result } from '../../lib/core/result.js';
import type { AdvanceReport } from '../../lib/core/store-clock.js';
import { formatDateTime } from '../../lib/output/format.js';
import { renderPlain } from '../../lib/output/render.js';
import type { EmbeddedCore } from '../../lib/transport/embedded.js';

/**
 * The core of a clock verb. With --dry-run it is opened as `clock show` opens it (the store must
 * exist; nothing is made), since only the current time is read.
 */
export async function clockCore(deps: Deps, verb: string): Promise<EmbeddedCore> {
  embeddedMode(deps, verb);
  return deps.core(deps.globals.dryRun ? 'clock show' : `clock ${verb}`);
}

/** Remote mode is refused before anything else is looked at (exit 2). */
export function embeddedMode(deps: Deps, verb: string): void {
  if (deps.settings.mode === 'remote') throw embeddedOnly(`clock ${verb}`, deps.settings.baseUrl);
}

/** The account's time zone and a formatter of UTC instants in it (`2026-12-01T00:00:00+01:00`). */
export async function zoneOf(core: EmbeddedCore): Promise<{ timeZone: string; local(utcIso: string): string }> {
  const { formatInstant } = await import('../../lib/core/time.js');
  const timeZone = (await core.account()).time_zone;
  return { timeZone, local: (utcIso) => formatInstant(utcIso, timeZone) };
}

/** "2026-12-01 00:00 +01:00 (test time)". */
export const shownTime = (local: string, test: boolean): string => `${formatDateTime(local) ?? local} (${test ? 'test' : 'real'} time)`;

/** --dry-run: where the clock would go, as one JSON document; nothing moves. */
export function printDryRun(deps: Deps, verb: string, from: string, to: string, test: boolean): void {
  deps.io.out(`${JSON.stringify({ clock: verb, from, to, test }, null, 2)}\n`);
}

/** A move's result: a refusal (backwards) is exit 2 with the core's reason; a report is printed. */
export async function printMove(deps: Deps, core: EmbeddedCore, result: Result<AdvanceReport>): Promise<void> {
  if (!result.ok) {
    if (result.failure.kind === 'invalid_state') throw new UsageError(result.failure.detail);
    const { failureResponse } = await import('../../lib/api/errors.js');
    const response = failureResponse(result.failure, null);
    throw new ApiError(response.status, response.body);
  }
  const { local } = await zoneOf(core);
  const report = result.value;
  const shown = { from: local(report.from), to: local(report.to), test: report.test, changes: report.changes };
  if (!deps.globals.quiet) deps.io.err(`clock moved from ${formatDateTime(shown.from) ?? shown.from} to ${shownTime(shown.to, shown.test)}\n`);
  const rows = Object.entries<number>(report.changes).filter(([, count]) => count > 0);
  await renderPlain(shown, deps.globals, deps.io, async () => {
    if (rows.length === 0) {
      if (!deps.globals.quiet) deps.io.err('nothing fell due\n');
      return '';
    }
    const { listTable, viewOf } = await import('../../lib/output/table.js');
    return listTable(rows.map(([kind, count]) => ({ type: 'clock-change', id: kind, attributes: { count } })), 'clock-change', viewOf(deps.globals, deps.io));
  });
}
