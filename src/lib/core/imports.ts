// Bulk imports on the embedded store: many rows per transaction, each row checked by the rules of
// its create, and the file's progress written in the same transaction as the rows before it. A
// rerun after any kill finds that progress and goes on from the first row not committed, so every
// row of a file is imported exactly once.
import { CompiledQuery, sql } from 'kysely';
import type { AttributeProblem } from '../schemas/common.js';
import { get, run, writeRows, type Build, type MaybePromise, type RowsSpec, type Unit } from '../store/unit.js';
import { nowIso, type CoreContext } from './context.js';
import { checkCustomer, customerRow } from './customer-writes.js';
import { prepareInvoice } from './invoice-writes.js';
import { prepareLine } from './line-writes.js';
import type { Failure, Result } from './result.js';
import { prepareSubscription } from './subscription-writes.js';

export const IMPORT_KINDS = ['customers', 'subscriptions', 'invoices'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

/** A file's import so far, as committed. */
export interface ImportProgress {
  /** Bytes of the file whose rows are committed (imported or rejected). */
  offset: number;
  /** The last line number committed. */
  line: number;
  imported: number;
  rejected: number;
  /** The size of the rejects file when that was committed: what a rerun keeps of it. */
  rejectsBytes: number;
  done: boolean;
}

export interface ImportRow {
  line: number;
  attributes: Record<string, unknown>;
}

/** Why a row was not imported, one problem per attribute; none when it was. */
export type RowOutcome = AttributeProblem[] | undefined;

export function findImport(
  ctx: CoreContext,
  kind: ImportKind,
  contentHash: string,
): MaybePromise<ImportProgress | undefined> {
  return ctx.store.read(function* () {
    const row = yield* get((q) =>
      q
        .selectFrom('imports')
        .select(['position', 'line', 'imported', 'rejected', 'rejects_bytes', 'done'])
        .where('account_id', '=', ctx.account.id)
        .where('kind', '=', kind)
        .where('content_hash', '=', contentHash),
    );
    return (
      row && {
        offset: row.position,
        line: row.line,
        imported: row.imported,
        rejected: row.rejected,
        rejectsBytes: row.rejects_bytes,
        done: row.done === 1,
      }
    );
  });
}

const CUSTOMER_ROWS: RowsSpec = {
  key: 'import.customers',
  table: 'customers',
  columns: {
    account_id: 'integer',
    first_name: 'text',
    last_name: 'text',
    email: 'text',
    gender: 'text',
    middle_name: 'text',
    company_name: 'text',
    vat_number: 'text',
    bank_holder: 'text',
    iban: 'text',
    payment_method: 'text',
    bank_verification_method: 'text',
    card_holder: 'text',
    card_number: 'text',
    postalcode: 'text',
    house_number: 'text',
    house_number_add: 'text',
    street: 'text',
    city: 'text',
    country_iso2: 'text',
    language: 'text',
    telephone: 'text',
    search_text: 'text',
    archived: 'flag',
    created_at: 'instant',
    updated_at: 'instant',
  },
};

/**
 * Imports one batch, in one transaction that also records the file's progress: `settle` is given
 * each row's outcome, in order, and answers the progress after the batch (it may run more than
 * once: PostgreSQL runs a transaction again after a serialization failure). Customers need nothing
 * from the store and are written with one bulk insert; subscriptions and invoices run their
 * create's unit each, behind a savepoint, so a row refused halfway leaves nothing of itself.
 */
export function importBatch(
  ctx: CoreContext,
  kind: ImportKind,
  contentHash: string,
  rows: readonly ImportRow[],
  settle: (outcomes: RowOutcome[]) => ImportProgress,
): MaybePromise<RowOutcome[]> {
  const now = nowIso(ctx);
  if (kind === 'customers') {
    const outcomes: RowOutcome[] = [];
    const values: Record<string, unknown>[] = [];
    for (const row of rows) {
      const checked = checkCustomer(row.attributes);
      if (checked.ok) values.push(customerRow(ctx.account.id, checked.value, now));
      outcomes.push(checked.ok ? undefined : problemsOf(checked.failure));
    }
    if (ctx.store.engine !== 'sqlite') {
      return ctx.store.write(function* () {
        yield* writeRows('insert', CUSTOMER_ROWS, values);
        yield* saveProgress(ctx, kind, contentHash, settle(outcomes), now);
        return outcomes;
      });
    }
    return ctx.store.write(function* () {
      yield* sqliteCustomerRows(values);
      yield* saveProgress(ctx, kind, contentHash, settle(outcomes), now);
      return outcomes;
    });
  }
  // Checked before the transaction: what needs no store costs it no time.
  const prepared = rows.map((row) =>
    kind === 'subscriptions' ? prepareSubscription(ctx, row.attributes) : prepareInvoiceWithLines(ctx, row.attributes),
  );
  return ctx.store.write(function* () {
    const outcomes: RowOutcome[] = [];
    for (const ready of prepared) {
      if (!ready.ok) {
        outcomes.push(problemsOf(ready.failure));
        continue;
      }
      yield* run(statement('SAVEPOINT import_row'));
      const result: Result<unknown> = yield* ready.value();
      yield* run(statement(result.ok ? 'RELEASE SAVEPOINT import_row' : 'ROLLBACK TO SAVEPOINT import_row'));
      outcomes.push(result.ok ? undefined : problemsOf(result.failure));
    }
    yield* saveProgress(ctx, kind, contentHash, settle(outcomes), now);
    return outcomes;
  });
}

const CUSTOMER_COLUMNS = Object.keys(CUSTOMER_ROWS.columns);
/** Rows per INSERT statement on SQLite (x 25 columns: well under its 32,766 parameters). */
const ROWS_PER_STATEMENT = 128;
const insertText = (rows: number): string => {
  const one = `(${CUSTOMER_COLUMNS.map(() => '?').join(', ')})`;
  return `INSERT INTO customers (${CUSTOMER_COLUMNS.join(', ')}) VALUES ${Array.from({ length: rows }, () => one).join(', ')}`;
};
/** The statements' texts, by their number of rows: 128, then powers of two for the rest of a batch. */
const INSERT_TEXTS = new Map<number, string>();
const insertTextFor = (rows: number): string => {
  let text = INSERT_TEXTS.get(rows);
  if (!text) INSERT_TEXTS.set(rows, (text = insertText(rows)));
  return text;
};
/** A statement and its parameters, compiled as they are (no query builder: a batch has 50,000 of them). */
const withParameters =
  (text: string, parameters: unknown[]): Build<unknown> =>
  () => ({ compile: () => CompiledQuery.raw(text, parameters) });

/**
 * A batch of customers into SQLite, as fast as the store allows without weakening it:
 * - many rows per INSERT statement. The search trigger on customers makes SQLite keep a statement
 *   journal of every page a statement changes (to undo that statement alone); row by row, that is
 *   the five index pages of every row copied again each time. Per statement of 128 rows, a page
 *   once. For the same reason the statement journal stays in memory (temp_store = MEMORY): it
 *   never survives its statement and has nothing to do with the durability of a commit (the WAL).
 * - the search index (FTS5, customers_search) built for the batch with one INSERT ... SELECT,
 *   while search_deferred tells the trigger to leave the rows to it: four times faster than the
 *   trigger row by row, in the same transaction, so a committed row is always searchable.
 */
function* sqliteCustomerRows(values: readonly Record<string, unknown>[]): Unit<void> {
  if (values.length === 0) return;
  yield* run(statement('PRAGMA temp_store = MEMORY'));
  const before = (yield* get((q) => q.selectFrom('customers').select((e) => e.fn.max('id').as('id'))))?.id ?? 0;
  yield* run(statement('INSERT INTO search_deferred (id) VALUES (1)'));
  const width = CUSTOMER_COLUMNS.length;
  for (let at = 0; at < values.length;) {
    let rows = ROWS_PER_STATEMENT;
    while (rows > values.length - at) rows >>= 1;
    const parameters: unknown[] = new Array(rows * width);
    for (let r = 0, k = 0; r < rows; r++) {
      const row = values[at + r];
      for (let c = 0; c < width; c++) parameters[k++] = row[CUSTOMER_COLUMNS[c]];
    }
    yield* run(withParameters(insertTextFor(rows), parameters));
    at += rows;
  }
  yield* run(
    statement(
      `INSERT INTO customers_search (rowid, search_text) SELECT id, search_text FROM customers WHERE id > ${Number(before)}`,
    ),
  );
  yield* run(statement('DELETE FROM search_deferred'));
}

/** An invoice row may carry its lines (`lines`: an array of line attributes): a draft made with them. */
function prepareInvoiceWithLines(
  ctx: CoreContext,
  attributes: Record<string, unknown>,
): Result<() => Unit<Result<unknown>>> {
  const { lines, ...invoice } = attributes;
  if (lines !== undefined && !Array.isArray(lines))
    return {
      ok: false,
      failure: {
        kind: 'invalid_attribute',
        problems: [{ attribute: 'lines', detail: 'must be an array of invoice lines' }],
      },
    };
  const made = prepareInvoice(ctx, invoice);
  if (!made.ok) return made;
  // Each line's own rules first, so a bad line refuses the row before anything is written.
  const lineProblems: AttributeProblem[] = [];
  ((lines as unknown[] | undefined) ?? []).forEach((line, i) => {
    if (typeof line !== 'object' || line === null || Array.isArray(line))
      lineProblems.push({ attribute: `lines/${i}`, detail: 'must be an object of line attributes' });
    else {
      const checked = prepareLine(ctx, { ...(line as Record<string, unknown>), invoice_id: 1 });
      if (!checked.ok)
        for (const p of problemsOf(checked.failure))
          lineProblems.push({ attribute: `lines/${i}/${p.attribute}`, detail: p.detail });
    }
  });
  if (lineProblems.length) return { ok: false, failure: { kind: 'invalid_attribute', problems: lineProblems } };
  return {
    ok: true,
    value: function* () {
      const created = yield* made.value();
      if (!created.ok) return created;
      for (const [i, line] of ((lines as Record<string, unknown>[] | undefined) ?? []).entries()) {
        const unit = prepareLine(ctx, { ...line, invoice_id: created.value.invoice.id });
        const added: Result<unknown> = unit.ok ? yield* unit.value() : unit;
        if (!added.ok)
          return {
            ok: false,
            failure: {
              kind: 'invalid_attribute',
              problems: problemsOf(added.failure).map((p) => ({
                attribute: `lines/${i}/${p.attribute}`,
                detail: p.detail,
              })),
            },
          };
      }
      return created;
    },
  };
}

/** A statement the same on both engines, with no parameters (savepoints). */
const statement =
  (text: string): Build<unknown> =>
  (q) => ({ compile: () => sql.raw(text).compile(q) });

function* saveProgress(
  ctx: CoreContext,
  kind: ImportKind,
  contentHash: string,
  progress: ImportProgress,
  now: string,
): Unit<void> {
  const values = {
    position: progress.offset,
    line: progress.line,
    imported: progress.imported,
    rejected: progress.rejected,
    rejects_bytes: progress.rejectsBytes,
    done: progress.done ? 1 : 0,
    updated_at: now,
  };
  const changed = yield* run((q) =>
    q
      .updateTable('imports')
      .set(values)
      .where('account_id', '=', ctx.account.id)
      .where('kind', '=', kind)
      .where('content_hash', '=', contentHash),
  );
  if (changed === 0)
    yield* run((q) =>
      q
        .insertInto('imports')
        .values({ account_id: ctx.account.id, kind, content_hash: contentHash, ...values, created_at: now }),
    );
}

/** A failure as per-attribute problems, the shape a rejects report gives. */
export function problemsOf(failure: Failure): AttributeProblem[] {
  switch (failure.kind) {
    case 'invalid_attribute':
      return failure.problems;
    case 'invalid_state':
      return [{ attribute: failure.attribute ?? '', detail: failure.detail }];
    case 'not_found':
      return [{ attribute: '', detail: failure.detail ?? 'not found' }];
    case 'invalid_parameter':
      return [{ attribute: failure.parameter, detail: failure.detail }];
    default:
      return [{ attribute: failure.pointer.replace(/^\/data\/attributes\/?/, ''), detail: failure.detail }];
  }
}
