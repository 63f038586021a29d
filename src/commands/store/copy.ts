// store copy --to PATH|URL: the whole store into an empty store of either engine, in one
// transaction on the target (see lib/store/copy.ts, through lib/runtime/maintenance.ts). Progress on stderr when it is a terminal.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { CliError, UsageError } from '../../lib/cli/errors.js';
import type { IO } from '../../lib/cli/io.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { renderPlain } from '../../lib/output/render.js';
import { redact } from '../../lib/runtime/locations.js';
import type { CopyProgress, CopyResult } from '../../lib/runtime/maintenance.js';

/** Errors of the store layer keep their own exit codes (2, 3, 4). */
const STORE_ERRORS = new Set(['StoreOpenError', 'StoreUnreachableError', 'StoreAuthError']);

export async function run(deps: Deps, to: string): Promise<void> {
  if (to.trim() === '') throw new UsageError('--to needs a file path or a postgres:// URL');
  const runtime = await deps.runtime('store copy', { write: false });
  const maintenance = await import('../../lib/runtime/maintenance.js');
  const source = runtime.store;
  // Before the target is opened (a missing file would be made): a store is never copied onto itself.
  if (await maintenance.copiesOntoItself(runtime, to))
    throw new UsageError(`cannot copy the store ${source.location} onto itself: give --to another file or database`);

  if (deps.globals.dryRun) {
    // Nothing is opened or made at the target: what would be copied, from the source's counts.
    const result: CopyResult = {
      from: source.location,
      to: redact(to),
      rows: (await maintenance.storeInfo(runtime)).counts,
    };
    if (!deps.globals.quiet)
      deps.io.err(
        `dry run: would copy ${total(result)} rows from ${result.from} to ${result.to} (which must be empty); nothing written\n`,
      );
    await print(deps, result);
    return;
  }

  const started = Date.now();
  const bar = deps.io.stderrIsTTY && !deps.globals.quiet ? progressBar(deps.io) : undefined;
  let result: CopyResult;
  try {
    result = await maintenance.copyStore(runtime, to, { poolSize: deps.globals.poolSize, onProgress: bar?.update });
  } catch (error) {
    bar?.interrupt();
    if (error instanceof maintenance.CopyRefusedError) throw new UsageError(error.message);
    if (error instanceof Error && STORE_ERRORS.has(error.name)) throw error;
    throw new CliError(`the copy into ${redact(to)} failed and wrote nothing there: ${(error as Error).message}`, 1);
  }
  if (!deps.globals.quiet) {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    deps.io.err(
      `copied ${total(result)} rows in ${Object.keys(result.rows).length} tables from ${result.from} to ${result.to} in ${seconds} s\n`,
    );
  }
  await print(deps, result);
}

const total = (result: CopyResult): number => Object.values(result.rows).reduce((sum, n) => sum + n, 0);

async function print(deps: Deps, result: CopyResult): Promise<void> {
  await renderPlain({ ...result }, deps.globals, deps.io, async () => {
    const { resourceTable, viewOf } = await import('../../lib/output/table.js');
    return resourceTable(
      { type: 'copy', id: result.from, attributes: { to: result.to, ...result.rows } },
      viewOf(deps.globals, deps.io),
      'from',
    );
  });
}

const BAR_WIDTH = 30;

/** One line per table, redrawn in place while it is copied: `customers  [██████░░░░]  600/1000`. */
export function progressLine({ table, copied, total }: CopyProgress, nameWidth = 18): string {
  const filled = total === 0 ? BAR_WIDTH : Math.min(BAR_WIDTH, Math.round((BAR_WIDTH * copied) / total));
  const count = `${copied}/${total}`;
  return `${table.padEnd(nameWidth)} [${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${count}`;
}

function progressBar(io: IO) {
  let open = false;
  return {
    update: (progress: CopyProgress): void => {
      io.err(`\r\u001b[2K${progressLine(progress)}${progress.done ? '\n' : ''}`);
      open = !progress.done;
    },
    /** A failure: end the half-drawn line, so the error starts on its own. */
    interrupt(): void {
      if (open) io.err('\n');
      open = false;
    },
  };
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .requiredOption(
      '--to <path|url>',
      'the store to copy into: a SQLite file (made if missing) or a postgres:// URL; it must be empty',
    )
    .addHelpText(
      'after',
      prose(
        'Copies every table of the store (--db, BILLING_DB) into an empty store of either engine, keeping the ids, in one transaction: a failure leaves the target empty, and a target with any row is refused (exit 2). The target is migrated on open like every store. The source is read in one snapshot; on SQLite its writers wait until the copy ends. A PostgreSQL target gets its planner statistics in the same transaction (ANALYZE), which autovacuum would gather only later. --dry-run shows what would be copied and opens nothing at the target.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing store copy --to ./billing-copy.db',
        'billing --db ./billing.db store copy --to postgres://billing:secret@db.example.com/billing',
        'billing --db postgres://billing@db.example.com/billing store copy --to ./local.db --json',
      ),
    )
    .action((opts: { to: string }, command: Command) => invoke(command, (deps) => run(deps, opts.to)));
}
