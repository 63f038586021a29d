// What the clock verbs share: the runtime (embedded only), times in the account's zone, and the
// report of a move: the status changes it made as a table on stdout, the move itself on stderr.
import { embeddedOnly, type Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import { formatDateTime } from '../../lib/output/format.js';
import { renderPlain } from '../../lib/output/render.js';
import type * as ClockModule from '../../lib/runtime/clock.js';
import type { AdvanceReport } from '../../lib/runtime/clock.js';
import type { Runtime } from '../../lib/runtime/runtime.js';

/**
 * The runtime of a clock verb and its operations. `clock show` and --dry-run only read: the store
 * must exist and nothing is made.
 */
export async function clockRuntime(deps: Deps, verb: string): Promise<{ runtime: Runtime; clock: typeof ClockModule }> {
  embeddedMode(deps, verb);
  const runtime = await deps.runtime(`clock ${verb}`, { write: verb !== 'show' && !deps.globals.dryRun });
  return { runtime, clock: await import('../../lib/runtime/clock.js') };
}

/** Remote mode is refused before anything else is looked at (exit 2). */
export function embeddedMode(deps: Deps, verb: string): void {
  if (deps.settings.mode === 'remote') throw embeddedOnly(`clock ${verb}`, deps.settings.baseUrl);
}

/** "2026-12-01 00:00 +01:00 (test time)". */
export const shownTime = (local: string, test: boolean): string =>
  `${formatDateTime(local) ?? local} (${test ? 'test' : 'real'} time)`;

/** --dry-run: where the clock would go, as one JSON document; nothing moves. */
export function printDryRun(deps: Deps, verb: string, from: string, to: string, test: boolean): void {
  deps.io.out(`${JSON.stringify({ clock: verb, from, to, test }, null, 2)}\n`);
}

/** A move, printed: a refusal to go back is exit 2 with the core's reason, anything else as the service's refusals. */
export async function printMove(deps: Deps, runtime: Runtime, move: Promise<AdvanceReport>): Promise<void> {
  const { readClock } = await import('../../lib/runtime/clock.js');
  let report: AdvanceReport;
  try {
    report = await move;
  } catch (error) {
    const failure = (error as { failure?: { kind: string; detail?: string } }).failure;
    if ((error as Error).name === 'Refusal' && failure?.kind === 'invalid_state')
      throw new UsageError(failure.detail ?? 'the clock never goes back');
    throw error;
  }
  const { local } = await readClock(runtime);
  const shown = { from: local(report.from), to: local(report.to), test: report.test, changes: report.changes };
  if (!deps.globals.quiet)
    deps.io.err(`clock moved from ${formatDateTime(shown.from) ?? shown.from} to ${shownTime(shown.to, shown.test)}\n`);
  const rows = Object.entries<number>(report.changes).filter(([, count]) => count > 0);
  await renderPlain(shown, deps.globals, deps.io, async () => {
    if (rows.length === 0) {
      if (!deps.globals.quiet) deps.io.err('nothing fell due\n');
      return '';
    }
    const { listTable, viewOf } = await import('../../lib/output/table.js');
    return listTable(
      rows.map(([kind, count]) => ({ type: 'clock-change', id: kind, attributes: { count } })),
      'clock-change',
      viewOf(deps.globals, deps.io),
    );
  });
}
