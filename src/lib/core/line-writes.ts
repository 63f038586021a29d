// Invoice lines: created, changed and deleted only while their invoice is a draft. Each write holds
// the invoice (lockInvoice), so it cannot interleave with finalising it, and sums the invoice's
// totals again from its lines in the same transaction. So each runs READ COMMITTED on PostgreSQL
// (transactLocked): the lines it sums nobody else changes while it holds the invoice, where
// SERIALIZABLE's predicate locks on the lines' index pages failed writes to other invoices' lines.
import { sql } from 'kysely';
import { validateAttributes, type AttributeProblem } from '../schemas/common.js';
import { formatAmount, MONEY_MAX } from '../schemas/money.js';
import {
  lineCreateSchema,
  lineUpdateSchema,
  LINE_READ_ONLY_ON_CREATE,
  LINE_READ_ONLY_ON_UPDATE,
} from '../schemas/invoice.js';
import { all, get, run, type MaybePromise, type Unit } from '../store/unit.js';
import { nowIso, transactLocked, type CoreContext } from './context.js';
import { lockInvoice, notDraft } from './invoice-rules.js';
import { finaliseWhenDue } from './invoice-writes.js';
import { findLine, type Invoice, type InvoiceLine } from './invoices.js';
import { invalidAttributes, notFound, ok, type Result } from './result.js';
import { lineUnits } from './tax.js';

/** The invoice's totals summed again from its lines: exact integers, tax per rate, highest rate first. */
function* sumLines(invoice: Invoice, now: string): Unit<void> {
  const rows = yield* all((q) =>
    q
      .selectFrom('invoice_lines')
      .select([
        'tax_rate',
        sql<number>`CAST(SUM(quantity * unit_excl_cents) AS BIGINT)`.as('excl'),
        sql<number>`CAST(SUM(quantity * unit_tax_cents) AS BIGINT)`.as('tax'),
      ])
      .where('invoice_id', '=', invoice.id)
      .groupBy('tax_rate')
      .orderBy('tax_rate', 'desc'),
  );
  const excl = rows.reduce((sum, row) => sum + Number(row.excl), 0);
  const tax = rows.reduce((sum, row) => sum + Number(row.tax), 0);
  const taxRates = JSON.stringify(rows.map((row) => [row.tax_rate, Number(row.tax)]));
  yield* run((q) =>
    q
      .updateTable('invoices')
      .set({ amount_excl_cents: excl, tax_amount_cents: tax, tax_rates: taxRates, updated_at: now })
      .where('id', '=', invoice.id),
  );
}

type Amounts = Pick<InvoiceLine, 'amount_cents' | 'tax_rate' | 'tax_included' | 'quantity'>;

/** A line's stored amounts, or the problem when the invoice's totals would leave the exact range. */
function priced(line: Amounts, invoice: Invoice, replacing: InvoiceLine | undefined, problems: AttributeProblem[]) {
  const units = lineUnits(line.amount_cents, line.tax_rate, line.tax_included === 1);
  const was = replacing
    ? lineUnits(replacing.amount_cents, replacing.tax_rate, replacing.tax_included === 1)
    : { excl: 0, tax: 0 };
  const excl = invoice.amount_excl_cents + line.quantity * units.excl - (replacing?.quantity ?? 0) * was.excl;
  const tax = invoice.tax_amount_cents + line.quantity * units.tax - (replacing?.quantity ?? 0) * was.tax;
  if (Math.abs(excl) > MONEY_MAX || Math.abs(tax) > MONEY_MAX || Math.abs(excl + tax) > MONEY_MAX) {
    problems.push({
      attribute: 'quantity',
      detail: `the invoice's total would pass ${formatAmount(MONEY_MAX)} euro either way`,
    });
  }
  return { unit_excl_cents: units.excl, unit_tax_cents: units.tax };
}

/** After a line changes: the totals, and a draft whose invoice date has already ended is finalised now that it has lines. */
function* afterChange(ctx: CoreContext, invoice: Invoice, now: string, added: boolean): Unit<void> {
  yield* sumLines(invoice, now);
  if (added && invoice.invoice_date !== null) yield* finaliseWhenDue(ctx, invoice);
}

export function createLine(ctx: CoreContext, attributes: Record<string, unknown>): MaybePromise<Result<InvoiceLine>> {
  const prepared = prepareLine(ctx, attributes);
  return prepared.ok ? transactLocked(ctx.store, prepared.value) : prepared;
}

/** createLine in two halves (see prepareSubscription): the unit refuses before its first write. */
export function prepareLine(
  ctx: CoreContext,
  attributes: Record<string, unknown>,
): Result<() => Unit<Result<InvoiceLine>>> {
  const { value, problems } = validateAttributes(lineCreateSchema, attributes, { readOnly: LINE_READ_ONLY_ON_CREATE });
  if (problems.length) return invalidAttributes(problems);
  return ok(function* () {
    const now = nowIso(ctx);
    const invoice = yield* lockInvoice(ctx, value.invoice_id);
    if (!invoice)
      return invalidAttributes<InvoiceLine>([
        { attribute: 'invoice_id', detail: `no invoice with id ${value.invoice_id}` },
      ]);
    if (invoice.status !== 'draft') return notDraft<InvoiceLine>(invoice, 'lines can be added', 'invoice_id');
    const amounts: Amounts = {
      amount_cents: value.amount,
      tax_rate: value.tax_rate,
      tax_included: value.tax_included ? 1 : 0,
      quantity: value.quantity ?? 1,
    };
    const found: AttributeProblem[] = [];
    const units = priced(amounts, invoice, undefined, found);
    if (found.length) return invalidAttributes<InvoiceLine>(found);
    const line = (yield* get((q) =>
      q
        .insertInto('invoice_lines')
        .values({
          account_id: ctx.account.id,
          invoice_id: invoice.id,
          description: value.description,
          ...amounts,
          ...units,
          created_at: now,
          updated_at: now,
        })
        .returningAll(),
    )) as InvoiceLine;
    yield* afterChange(ctx, invoice, now, true);
    return ok(line);
  });
}

/** The line and its invoice (locked), or why not. */
function* lineAndDraft(
  ctx: CoreContext,
  id: number,
  doing: string,
): Unit<Result<{ line: InvoiceLine; invoice: Invoice }>> {
  const line = yield* findLine(ctx, id);
  if (!line) return notFound(`no invoice line with id ${id}`);
  const invoice = (yield* lockInvoice(ctx, line.invoice_id))!;
  if (invoice.status !== 'draft') return notDraft(invoice, doing);
  return ok({ line, invoice });
}

export function updateLine(
  ctx: CoreContext,
  id: number,
  attributes: Record<string, unknown>,
): MaybePromise<Result<InvoiceLine>> {
  return transactLocked(ctx.store, function* () {
    const now = nowIso(ctx);
    const found = yield* lineAndDraft(ctx, id, 'its lines can be changed');
    if (!found.ok) return found;
    const { line, invoice } = found.value;
    const { value, problems } = validateAttributes(lineUpdateSchema, attributes, {
      readOnly: LINE_READ_ONLY_ON_UPDATE,
      unchanged: (name, sent) => name === 'invoice_id' && String(sent).trim() === String(line.invoice_id),
    });
    if (problems.length) return invalidAttributes<InvoiceLine>(problems);
    const amounts: Amounts = {
      amount_cents: value.amount ?? line.amount_cents,
      tax_rate: value.tax_rate ?? line.tax_rate,
      tax_included: value.tax_included === undefined ? line.tax_included : value.tax_included ? 1 : 0,
      quantity: value.quantity ?? line.quantity,
    };
    const units = priced(amounts, invoice, line, problems);
    if (problems.length) return invalidAttributes<InvoiceLine>(problems);
    const changed = { ...amounts, ...units, description: value.description ?? line.description, updated_at: now };
    yield* run((q) => q.updateTable('invoice_lines').set(changed).where('id', '=', id));
    yield* afterChange(ctx, invoice, now, false);
    return ok({ ...line, ...changed });
  });
}

export function deleteLine(ctx: CoreContext, id: number): MaybePromise<Result<null>> {
  return transactLocked(ctx.store, function* () {
    const found = yield* lineAndDraft(ctx, id, 'its lines can be deleted');
    if (!found.ok) return found;
    yield* run((q) => q.deleteFrom('invoice_lines').where('id', '=', id));
    yield* afterChange(ctx, found.value.invoice, nowIso(ctx), false);
    return ok(null);
  });
}
