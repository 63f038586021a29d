// import FILE...: each file is sent as it is to POST /bank-reports, one after the other; each is
// applied whole or not at all. Prints what each came to and the entries that matched nothing
// (exit 0). A file that is not well-formed XML, or no report, is exit 2 once the others are done.
import type { Command } from 'commander';
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import type { Deps } from '../../lib/command/deps.js';
import { ApiError, UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose, refusesDryRun } from '../../lib/command/registry.js';
import { send } from '../../lib/command/resource.js';
import type { ResourceLike } from '../../lib/output/columns.js';
import { oneLine } from '../../lib/output/format.js';
import { render } from '../../lib/output/render.js';
import { BANK_REPORT } from './index.js';

interface Unmatched {
  end_to_end_id: string;
  amount: string;
  outcome: string;
  reason_code: string | null;
  where: string;
  reason: string;
}

type Report = ResourceLike & { meta?: Record<string, unknown> };

/** The reason a file was not taken as a report (400 Invalid Document), or undefined for any other refusal. */
function notAReport(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const first = (error.document as { errors?: { title?: string; detail?: string }[] } | undefined)?.errors?.[0];
  return first?.title === 'Invalid Document' ? (first.detail ?? 'not a bank report') : undefined;
}

export async function run(files: string[], deps: Deps): Promise<void> {
  for (const file of files) {
    try {
      await access(file, constants.R_OK);
    } catch (error) {
      throw new UsageError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    // Readable, but a folder (or a device) would fail only once the files before it were imported.
    if (!(await stat(file)).isFile()) throw new UsageError(`${file}: cannot read it (not a file)`);
  }
  const reports: Report[] = [];
  const refused: string[] = [];
  for (const file of files) {
    let document: { data: Report; meta?: { already_imported?: boolean } };
    try {
      const upload = { contentType: 'application/xml', open: () => createReadStream(file) as AsyncIterable<Buffer> };
      document = (await send(deps, { method: 'POST', path: BANK_REPORT.path, upload })).body as typeof document;
    } catch (error) {
      const reason = notAReport(error);
      if (reason === undefined) throw error;
      refused.push(`${file}: ${reason}`);
      continue;
    }
    const already = document.meta?.already_imported === true;
    reports.push({ ...document.data, meta: { file, already_imported: already } });
    if (!deps.globals.quiet && deps.globals.output === 'table') {
      const a = document.data.attributes ?? {};
      const said = already
        ? `imported before as bank report ${document.data.id}: nothing changed`
        : `${String(a.booked)} booked, ${String(a.rejected)} rejected, ${String(a.returned)} returned, ${String(a.unchanged)} unchanged (settled so before), ${String(a.unmatched)} unmatched`;
      deps.io.err(oneLine(`${file}: ${String(a.format)} ${String(a.message_id)}: ${said}`) + '\n');
    }
  }
  await show(reports, deps);
  if (refused.length)
    throw new UsageError(
      `${refused.length} of ${files.length} files not imported (nothing of them changed):\n${refused.map((line) => `  ${line}`).join('\n')}`,
    );
}

/** The reports, then (as a table) the entries of each that matched no collection. */
async function show(reports: Report[], deps: Deps): Promise<void> {
  if (reports.length === 0) return;
  if (deps.globals.output !== 'table' || deps.globals.query !== undefined)
    return render({ data: reports }, deps.globals, deps.io, { type: BANK_REPORT.type, all: true });
  const { listTable, viewOf } = await import('../../lib/output/table.js');
  const view = viewOf(deps.globals, deps.io);
  deps.io.out(await listTable(reports, BANK_REPORT.type, view));
  const unmatched = reports.flatMap((report) =>
    ((report.attributes?.unmatched_entries as Unmatched[] | undefined) ?? []).map((entry) => ({
      file: String(report.meta?.file),
      ...entry,
    })),
  );
  if (unmatched.length === 0) return;
  if (!deps.globals.quiet)
    deps.io.err(`entries that matched no collection (${unmatched.length}), nothing done with them:\n`);
  const rows = unmatched.map(({ end_to_end_id, ...attributes }) => ({
    type: 'unmatched-entry',
    id: end_to_end_id,
    attributes,
  }));
  deps.io.out(await listTable(rows, 'unmatched-entry', view));
}

export function configure(cmd: Command, invoke: Invoke): void {
  refusesDryRun(
    cmd,
    'reading a report is applying it; each file is applied whole or not at all, and the same file imported again changes nothing',
  )
    .argument(
      '<files...>',
      "the bank's reports: camt.054 (.001.02 or .001.08), camt.053 (.001.02) or pain.002 (.001.03) XML files",
    )
    .addHelpText(
      'after',
      prose(
        "Entries are matched to collections by their EndToEndId (and the batch's MsgId where the report gives it). A booked collection succeeds (fulfilled three days later, its invoice paid); a reject before settlement fails; a return or refund after it is charged back; then the plan's storno retries apply where a retry can cure the reason (AM04, MS02, MS03...), while any other reason (AC04, MD01...) fails at once and flags the subscription's mandate. Each file is applied in one transaction, whole or not at all; a file imported before changes nothing, and says so. Entries that match no collection are listed (exit 0); a file that is not XML or no such report is exit 2, changing nothing.",
      ),
    )
    .addHelpText(
      'after',
      examples('billing collections import camt054-2026-12-02.xml', 'billing collections import reports/*.xml --json'),
    )
    .action((files: string[], _opts: unknown, command: Command) => invoke(command, (deps) => run(files, deps)));
}
