// `billing import customers|subscriptions|invoices FILE`: rows from NDJSON or CSV, read as a
// stream, each checked by the service's own rules; the rows refused go to a rejects file beside the
// input, in its format, with the reasons. Embedded, batches commit with the file's progress (its
// content hash and offset), so a rerun after a kill goes on where the last commit ended. Remote,
// every row is a POST with an Idempotency-Key made from the file and the row, so a rerun against a
// server that honours keys creates nothing twice.
import type { Command } from 'commander';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Deps } from '../../lib/command/deps.js';
import { ApiError, CliError, errorLines, UsageError } from '../../lib/cli/errors.js';
import { problemPlace, withDecimalCommas, type Shape } from '../../lib/command/flags.js';
import type { Invoke } from '../../lib/command/registry.js';
import { CUSTOMER_READ_ONLY_ON_CREATE, customerCreateShape } from '../../lib/schemas/customer.js';
import { INVOICE_READ_ONLY_ON_CREATE, invoiceCreateShape, lineCreateShape } from '../../lib/schemas/invoice.js';
import { SUBSCRIPTION_READ_ONLY_ON_CREATE, subscriptionCreateShape } from '../../lib/schemas/subscription.js';
import { examples, refusesDryRun } from '../../lib/command/registry.js';
import { safeText } from '../../lib/output/format.js';
import { progressBar } from '../../lib/output/progress.js';
import type { CsvOptions } from '../../lib/output/csv.js';
import { RejectsFile, rejectsPathFor } from '../../lib/import/rejects.js';
import {
  csvHeader,
  formatByExtension,
  hashFile,
  IMPORT_FORMATS,
  readRows,
  spool,
  utf8ProblemIn,
  type Content,
  type ImportFormat,
  type SourceRow,
} from '../../lib/import/source.js';
import { describeUtf8Problem } from '../../lib/schemas/utf8.js';
import type { ImportKind, ImportProgress, RowOutcome } from '../../lib/runtime/imports.js';
import type { TransportResponse } from '../../lib/transport/types.js';

const RESOURCES: Record<ImportKind, { path: string; type: string; noun: string }> = {
  customers: { path: '/customers', type: 'customer', noun: 'customers' },
  subscriptions: { path: '/subscriptions', type: 'subscription', noun: 'subscriptions' },
  invoices: { path: '/invoices', type: 'invoice', noun: 'invoices' },
};

const SHAPES: Record<ImportKind, Shape> = {
  customers: customerCreateShape,
  subscriptions: subscriptionCreateShape,
  invoices: invoiceCreateShape,
};

/** What a create refuses as read-only, the service setting it itself: an export writes these. */
const READ_ONLY: Record<ImportKind, readonly string[]> = {
  customers: CUSTOMER_READ_ONLY_ON_CREATE,
  subscriptions: SUBSCRIPTION_READ_ONLY_ON_CREATE,
  invoices: INVOICE_READ_ONLY_ON_CREATE,
};

const EXPORT_NOTE = "(an export's ids and read-only attributes; an import makes new resources)";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A row as a create's attributes, also when it is what an export wrote. An export holds each
 * resource's id and the attributes the service sets, which a create refuses: an import makes new
 * resources, so it leaves them out (named once at the end) instead of refusing every row. In NDJSON
 * only a resource object is an export's; a plain object is taken as it is, an id in it refused.
 */
function asCreate(job: Job, row: SourceRow): SourceRow {
  const read = row.attributes;
  if (!read) return row;
  if (job.format === 'csv') {
    for (const name of job.ignoredColumns) {
      delete read[name];
      job.ignored.add(name);
    }
    return row;
  }
  if (!('type' in read && 'attributes' in read)) return row;
  const { type, id, attributes, relationships } = read;
  const expected = RESOURCES[job.kind].type;
  const refused = (error: string): SourceRow => ({
    line: row.line,
    lastLine: row.lastLine,
    raw: row.raw,
    end: row.end,
    error,
  });
  if (type !== expected)
    return refused(`type: is ${JSON.stringify(type)}, where billing import ${job.kind} takes "${expected}"`);
  if (!isObject(attributes)) return refused('attributes: must be a JSON object');
  if (id !== undefined) job.ignored.add('id');
  const taken = { ...attributes };
  for (const name of Object.keys(taken))
    if (READ_ONLY[job.kind].includes(name)) {
      delete taken[name];
      job.ignored.add(name);
    }
  // JSON:API puts the related ids a create takes as attributes (customer_id) in the to-one
  // relationships (customer): without them no subscription or invoice export could be imported.
  const related: Record<string, unknown> = {};
  for (const [name, relation] of Object.entries(isObject(relationships) ? relationships : {})) {
    const attribute = `${name.replace(/-/g, '_')}_id`;
    const data = isObject(relation) ? relation.data : undefined;
    if (Object.hasOwn(SHAPES[job.kind], attribute) && isObject(data) && data.id !== undefined)
      related[attribute] = data.id;
  }
  return { ...row, attributes: { ...related, ...taken } };
}

/** A row's attributes with amounts read as flags read them (a decimal comma), an invoice's lines too. */
function readAmounts(kind: ImportKind, attributes: Record<string, unknown>): Record<string, unknown> {
  const read = withDecimalCommas(SHAPES[kind], attributes);
  if (kind === 'invoices' && Array.isArray(read.lines))
    read.lines = read.lines.map((line: unknown) =>
      typeof line === 'object' && line !== null && !Array.isArray(line)
        ? withDecimalCommas(lineCreateShape, line as Record<string, unknown>)
        : line,
    );
  return read;
}

/** Rows per transaction: customers are one bulk insert; the others run their whole create each. */
const BATCH: Record<ImportKind, number> = { customers: 2000, subscriptions: 200, invoices: 200 };

export interface ImportOptions {
  format?: string;
  rejects?: string;
  concurrency?: string;
  batchSize?: string;
}

interface Summary {
  kind: ImportKind;
  file: string;
  imported: number;
  rejected: number;
  /** Rows an earlier run of the same file had done: committed before (embedded) or answered again from their key (remote). */
  already: number;
  rejects_file: string | null;
  seconds: number;
}

/** The rows of one run and where they go: what both modes share. */
interface Job {
  deps: Deps;
  kind: ImportKind;
  path: string;
  format: ImportFormat;
  hash: string;
  size: number;
  rejects: RejectsFile;
  /** How CSV cells are read and rejected ones written: --csv-raw. */
  csv: CsvOptions;
  /** Says a rejected row on stderr and writes it to the rejects file. */
  reject(row: SourceRow, reasons: string[]): void;
  /** CSV: the header's columns an export writes that a create refuses (the id, read-only attributes). */
  ignoredColumns: readonly string[];
  /** What the rows read held that was left out of them, for the note at the end. */
  ignored: Set<string>;
}

const wholeNumber = (text: string | undefined, flag: string, min: number, max: number, fallback: number): number => {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not "${text}"`);
  return Number(text);
};

export async function runImport(deps: Deps, kind: ImportKind, file: string, options: ImportOptions): Promise<void> {
  const started = Date.now();

  const concurrency = wholeNumber(options.concurrency, '--concurrency', 1, 64, 4);
  const batchSize = wholeNumber(options.batchSize, '--batch-size', 1, 10_000, BATCH[kind]);
  if (options.format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(options.format))
    throw new UsageError(`--format must be one of: ${IMPORT_FORMATS.join(', ')}`);
  const stdin = file === '-';
  const format = (options.format as ImportFormat | undefined) ?? (stdin ? undefined : formatByExtension(file));
  if (!format)
    throw new UsageError(
      stdin
        ? 'reading stdin (-) needs --format ndjson or --format csv'
        : `cannot tell the format of ${file} by its extension: name it .ndjson, .jsonl or .csv, or give --format`,
    );
  // Standard input is spooled to a file first (in constant memory): read like any file, hashed, resumable.
  const spooled = stdin ? mkdtempSync(join(tmpdir(), 'billing-import-')) : undefined;
  try {
    const path = spooled ? join(spooled, `stdin.${format}`) : file;
    let content: Content;
    try {
      content = spooled
        ? await spool(deps.io.stdinStream?.() ?? bytesStream(await deps.io.readStdin()), path)
        : await hashFile(path);
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    // Found in the pass that hashed it, before any row is read: nothing of the file is taken.
    if (content.invalidAt >= 0) {
      const where = describeUtf8Problem(await utf8ProblemIn(path, content.invalidAt));
      throw new UsageError(
        `${stdin ? 'standard input (-)' : file} is not UTF-8 text at ${where}: save it as UTF-8 and import it again; nothing was imported`,
      );
    }
    const csv = { raw: deps.globals.csvRaw };
    const head = format === 'csv' ? await csvHeader(path, csv) : undefined;
    // A header the parser cannot read (a quote never closed) leaves no names to read rows by.
    if (head?.error !== undefined)
      throw new UsageError(
        `${stdin ? 'standard input (-)' : file}: its header cannot be read as CSV: ${head.error}; nothing was imported`,
      );
    const header = head?.names;
    const rejectsPath = options.rejects ?? (stdin ? `${kind}.rejects.${format}` : rejectsPathFor(file, format));
    const rejects = new RejectsFile(rejectsPath, format, header, csv);
    const quiet = deps.globals.quiet;
    const job: Job = {
      deps,
      kind,
      path,
      format,
      hash: content.hash,
      size: content.size,
      rejects,
      csv,
      reject(row, reasons) {
        if (!quiet) deps.io.err(safeText(`line ${row.line}: ${reasons.join('; ')}\n`));
        rejects.write(row, `line ${row.line}: ${reasons.join('; ')}`);
      },
      ignoredColumns: (header ?? []).filter((name) => name === 'id' || READ_ONLY[kind].includes(name)),
      ignored: new Set(),
    };
    let summary: Omit<Summary, 'seconds' | 'kind' | 'file' | 'rejects_file'>;
    try {
      summary = deps.settings.mode === 'remote' ? await remote(job, concurrency) : await embedded(job, batchSize);
    } finally {
      rejects.close();
    }
    if (job.ignored.size > 0 && !quiet)
      deps.io.err(
        `ignored ${format === 'csv' ? 'columns' : 'members'}: ${[...job.ignored].join(', ')} ${EXPORT_NOTE}\n`,
      );
    report(deps, {
      kind,
      file,
      ...summary,
      rejects_file: summary.rejected > 0 ? rejectsPath : null,
      seconds: (Date.now() - started) / 1000,
    });
  } finally {
    if (spooled) rmSync(spooled, { recursive: true, force: true });
  }
}

function bytesStream(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  return Readable.from([bytes]);
}

function report(deps: Deps, summary: Summary): void {
  const { io, globals } = deps;
  if (globals.output === 'json' || globals.output === 'ndjson') io.out(`${JSON.stringify(summary)}\n`);
  if (!globals.quiet) {
    const rate =
      summary.seconds > 0
        ? `, ${Math.round((summary.imported + summary.rejected) / summary.seconds).toLocaleString('en')} rows/s`
        : '';
    const parts = [
      `imported ${summary.imported.toLocaleString('en')} ${summary.kind}`,
      `rejected ${summary.rejected.toLocaleString('en')}${summary.rejects_file ? ` (see ${summary.rejects_file})` : ''}`,
    ];
    if (summary.already > 0) parts.push(`${summary.already.toLocaleString('en')} already imported by an earlier run`);
    io.err(safeText(`${parts.join(', ')}; ${summary.seconds.toFixed(2)} s${rate}\n`));
  }
  // Every row was handled; any refused one makes the run a failure a nightly job notices.
  if (summary.rejected > 0)
    throw new CliError(
      `${summary.rejected} of the rows were rejected; fix them in ${summary.rejects_file} and import that file`,
      1,
    );
}

// ---- embedded: batches with the progress in the same transaction ----

/**
 * bin/billing.js runs an import in a process of its own (with heap limits) and names itself in
 * BILLING_IMPORT_LAUNCHER. Killed (SIGKILL), the launcher cannot stop it: the import stops itself
 * before its next batch, as if killed with it, so no rerun ever meets it still committing rows.
 */
function stopWithLauncher(): void {
  const launcher = Number(process.env.BILLING_IMPORT_LAUNCHER ?? 0);
  if (launcher > 0 && process.ppid !== launcher) process.kill(process.pid, 'SIGKILL');
}

async function embedded(job: Job, batchSize: number): Promise<{ imported: number; rejected: number; already: number }> {
  const { deps, kind } = job;
  const { findImport, importBatch } = await import('../../lib/runtime/imports.js');
  const runtime = await deps.runtime(`import ${kind}`, { write: true });
  const before = await findImport(runtime, kind, job.hash);
  if (before?.done) {
    if (!deps.globals.quiet) deps.io.err(`this file was imported before (same content): nothing to do\n`);
    return { imported: 0, rejected: before.rejected, already: before.imported };
  }
  const state: ImportProgress = before ?? {
    offset: 0,
    line: 0,
    imported: 0,
    rejected: 0,
    rejectsBytes: 0,
    done: false,
  };
  job.rejects.keep(state.rejectsBytes);
  const already = state.imported;
  if (state.line > 0 && !deps.globals.quiet)
    deps.io.err(`going on after line ${state.line}: the rows before were committed by an earlier run\n`);
  const bar = await progressBar(deps.io, job.size, kind, deps.globals.quiet);
  let committed = state;
  const flush = async (rows: SourceRow[], last: boolean) => {
    stopWithLauncher();
    const parsed = rows.filter((row) => row.attributes);
    const startBytes = committed.rejectsBytes;
    const next = (outcomes: RowOutcome[]): ImportProgress => {
      // Written before the commit and cut back first, so a run again of the transaction writes them once.
      job.rejects.truncate(startBytes);
      let imported = 0;
      let rejected = 0;
      let at = 0;
      for (const row of rows) {
        const problems = row.attributes ? outcomes[at++] : [{ attribute: '', detail: row.error! }];
        if (problems) {
          rejected++;
          job.reject(
            row,
            problems.map((p) => (p.attribute ? `${problemPlace(p.attribute)}: ${p.detail}` : p.detail)),
          );
        } else imported++;
      }
      const end = rows.at(-1);
      return {
        offset: end?.end ?? committed.offset,
        line: end?.lastLine ?? committed.line,
        imported: committed.imported + imported,
        rejected: committed.rejected + rejected,
        rejectsBytes: job.rejects.size,
        done: last,
      };
    };
    let progress: ImportProgress | undefined;
    await importBatch(
      runtime,
      kind,
      job.hash,
      parsed.map((row) => ({ line: row.line, attributes: readAmounts(kind, row.attributes!) })),
      (outcomes) => (progress = next(outcomes)),
    );
    committed = progress!;
    bar.update(committed.offset, committed.imported + committed.rejected - state.imported - state.rejected);
  };
  try {
    let batch: SourceRow[] = [];
    for await (const row of readRows(job.path, job.format, state, job.csv)) {
      batch.push(asCreate(job, row));
      if (batch.length >= batchSize) {
        await flush(batch, false);
        batch = [];
      }
    }
    await flush(batch, true);
  } finally {
    bar.stop();
  }
  return { imported: committed.imported - state.imported, rejected: committed.rejected, already };
}

// ---- remote: one keyed POST per row, a few at a time ----

interface Sent {
  row: SourceRow;
  /** Refused, with the reasons; undefined when taken. */
  reasons?: string[];
  replayed?: boolean;
  /** Why the run must stop here (unreachable, a 5xx, the key refused). */
  fatal?: unknown;
}

async function remote(job: Job, concurrency: number): Promise<{ imported: number; rejected: number; already: number }> {
  const { deps, kind } = job;
  const transport = await deps.transport();
  const { path, type } = RESOURCES[kind];
  const key = (row: SourceRow, part = '') => `import-${job.hash.slice(0, 32)}-${row.line}${part}`;
  const post = (
    row: SourceRow,
    resourcePath: string,
    resourceType: string,
    attributes: Record<string, unknown>,
    part?: string,
  ) =>
    transport.request({
      method: 'POST',
      path: resourcePath,
      body: { data: { type: resourceType, attributes } },
      idempotencyKey: key(row, part),
    });
  const refusal = (response: TransportResponse): string[] | undefined => {
    if (response.status < 400) return undefined;
    // Not the row's fault: stop, and say so; a rerun goes on safely (every row has its key).
    if (response.status === 401 || response.status === 409 || response.status === 429 || response.status >= 500)
      throw new ApiError(response.status, response.body);
    return errorLines(response.body, response.status);
  };
  const send = async (row: SourceRow): Promise<Sent> => {
    if (!row.attributes) return { row, reasons: [row.error!] };
    try {
      const read = readAmounts(kind, row.attributes);
      const { lines, ...attributes } = read;
      const response = await post(row, path, type, kind === 'invoices' ? attributes : read);
      const refused = refusal(response);
      if (refused) return { row, reasons: refused };
      const replayed = response.headers['idempotent-replayed'] === 'true';
      if (kind === 'invoices' && Array.isArray(lines)) {
        const id = Number((response.body as { data?: { id?: string } }).data?.id);
        for (const [i, line] of lines.entries()) {
          const added = await post(
            row,
            '/invoice-lines',
            'invoice-line',
            { ...(line as Record<string, unknown>), invoice_id: id },
            `-l${i}`,
          );
          const bad = refusal(added);
          if (bad)
            return {
              row,
              reasons: [`invoice ${id} was made as a draft, but its line ${i + 1} was refused: ${bad.join('; ')}`],
            };
        }
      }
      return { row, replayed };
    } catch (fatal) {
      return { row, fatal };
    }
  };

  const bar = await progressBar(deps.io, job.size, kind, deps.globals.quiet);
  let imported = 0;
  let rejected = 0;
  let replayed = 0;
  let fatal: { row: SourceRow; error: unknown } | undefined;
  let done = 0;
  // In flight, oldest first: outcomes are settled in the file's order, so the rejects file is too.
  const window: Promise<Sent>[] = [];
  const settle = (sent: Sent) => {
    if (fatal) return;
    if (sent.fatal !== undefined) fatal = { row: sent.row, error: sent.fatal };
    else if (sent.reasons) {
      rejected++;
      job.reject(sent.row, sent.reasons);
    } else if (sent.replayed) replayed++;
    else imported++;
    done = sent.row.end;
    bar.update(done, imported + rejected + replayed);
  };
  try {
    for await (const row of readRows(job.path, job.format, { offset: 0, line: 0 }, job.csv)) {
      if (fatal) break;
      window.push(send(asCreate(job, row)));
      if (window.length >= concurrency) settle(await window.shift()!);
    }
    while (window.length) settle(await window.shift()!);
  } finally {
    bar.stop();
  }
  if (fatal) {
    const { row, error } = fatal;
    const why =
      error instanceof ApiError ? errorLines(error.document, error.status).join('; ') : (error as Error).message;
    deps.io.err(
      safeText(
        `stopped at line ${row.line}: ${why}\nimported ${imported}, rejected ${rejected}, ${replayed} already imported before; the rows from line ${row.line} on were not all sent. Run the same command again to go on: rows already imported are not imported twice (each carries its Idempotency-Key)\n`,
      ),
    );
    throw error;
  }
  return { imported, rejected, already: replayed };
}

export function configureImport(cmd: Command, invoke: Invoke, kind: ImportKind): void {
  const { noun } = RESOURCES[kind];
  refusesDryRun(
    cmd,
    'every row is checked by the service as it is imported; try it on a snapshot instead: billing store snapshot before-import',
  )
    .argument('<file>', `an NDJSON (.ndjson, .jsonl) or CSV (.csv) file of ${noun}, or - for stdin (with --format)`)
    .option('--format <format>', `ndjson or csv (default: by the file's extension)`)
    .option('--rejects <path>', 'where the rejected rows go (default: beside the input, e.g. customers.rejects.ndjson)')
    .option('--concurrency <n>', 'remote: rows sent at once, 1 to 64 (default 4)')
    .option('--batch-size <n>', `embedded: rows per transaction, 1 to 10000 (default ${BATCH[kind]})`)
    .addHelpText(
      'after',
      examples(
        `billing import ${kind} ${kind}.ndjson`,
        `billing import ${kind} ${kind}.csv --rejects /tmp/${kind}-rejected.csv`,
        `cat ${kind}.ndjson | billing import ${kind} - --format ndjson`,
        `billing --base-url https://billing.example.com import ${kind} ${kind}.ndjson --concurrency 8`,
      ),
    )
    .action((file: string, opts: ImportOptions, command: Command) =>
      invoke(command, (deps) => runImport(deps, kind, file, opts)),
    );
}
