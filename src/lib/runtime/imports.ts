// Bulk import on the embedded store, as `billing import` runs it: batches of rows committed with
// the file's progress in the same transaction (core/imports.ts), so a rerun after any kill goes on
// where the last commit ended. (Against a server, an import is keyed POSTs through the transport.)
import * as core from '../core/imports.js';
import type { ImportKind, ImportProgress, ImportRow, RowOutcome } from '../core/imports.js';
import { DEFAULT_EMBEDDED_BASE_URL, type Runtime } from './runtime.js';

export type { ImportKind, ImportProgress, ImportRow, RowOutcome };

const contextOf = async (runtime: Runtime) => ({
  store: runtime.store,
  clock: runtime.clock,
  account: await runtime.account(),
  baseUrl: DEFAULT_EMBEDDED_BASE_URL,
});

/** How far an earlier run of the same file (by its content hash) got; undefined when none did. */
export async function findImport(
  runtime: Runtime,
  kind: ImportKind,
  contentHash: string,
): Promise<ImportProgress | undefined> {
  return core.findImport(await contextOf(runtime), kind, contentHash);
}

/** One batch, committed with the progress `settle` makes of its outcomes (a problem list per refused row). */
export async function importBatch(
  runtime: Runtime,
  kind: ImportKind,
  contentHash: string,
  rows: readonly ImportRow[],
  settle: (outcomes: RowOutcome[]) => ImportProgress,
): Promise<RowOutcome[]> {
  return core.importBatch(await contextOf(runtime), kind, contentHash, rows, settle);
}
