// Invoices: create, change and delete drafts, finalise, credit and mark paid. Every rule is checked
// inside one write transaction that holds the invoice; a refusal rolls back whatever was written.
import { validateAttributes, type AttributeProblem } from '../schemas/common.js';
import {
  invoiceCreateSchema,
  invoiceCreditSchema,
  invoiceRefundedSchema,
  invoiceUpdateSchema,
  INVOICE_READ_ONLY_ON_CREATE,
  INVOICE_READ_ONLY_ON_UPDATE,
} from '../schemas/invoice.js';
import { all, get, run, writeRows, type MaybePromise, type RowsSpec, type Unit } from '../store/unit.js';
import { formatAmount } from '../schemas/money.js';
import { allowsPrivateWebhooks, nowIso, transact, transactLocked, type CoreContext } from './context.js';
import { findSubscription } from './subscriptions.js';
import { endOfDay, lockInvoice, moveInvoice, notDraft, type InvoiceWithLines } from './invoice-rules.js';
import { findInvoice, findInvoiceWithLines, refundDue, type Invoice, type InvoiceLine } from './invoices.js';
import { flush, Ledger, loadTransactions, WORK, type Inv } from './ledger.js';
import { getPlan } from './plans.js';
import { fail, invalidAttributes, notFound, ok, type Result } from './result.js';
import { dayAt, midnight } from './schedule.js';
import { lineUnits, totalsOf, type Totals } from './tax.js';
import { readInstants } from './time.js';
import { cancelTransaction } from './transaction-rules.js';
import { OPEN_STATUSES } from './transitions.js';

export type { InvoiceWithLines };

type Dates = { invoice_date?: string | null; transaction_date?: string | null };

/** The answer to a write: the invoice as it now is, with its lines. */
export function* answer(ctx: CoreContext, id: number): Unit<Result<InvoiceWithLines>> {
  return ok((yield* findInvoiceWithLines(ctx, id))!);
}

/**
 * The date rules: a given invoice_date is on or before today; transaction_date is on or after
 * invoice_date (by day, in the account's zone). `given` is what the request set; `final` what the invoice will have.
 */
function checkDates(ctx: CoreContext, given: Dates, final: Dates, problems: AttributeProblem[]): void {
  const tz = ctx.account.time_zone;
  const today = dayAt(nowIso(ctx), tz);
  if (given.invoice_date && dayAt(given.invoice_date, tz) > today)
    problems.push({ attribute: 'invoice_date', detail: `must be on or before today (${today})` });
  if (
    final.invoice_date &&
    final.transaction_date &&
    dayAt(final.transaction_date, tz) < dayAt(final.invoice_date, tz)
  ) {
    problems.push({
      attribute: given.transaction_date ? 'transaction_date' : 'invoice_date',
      detail: `the transaction date must be on or after the invoice date (${dayAt(final.invoice_date, tz)})`,
    });
  }
}

/** The other date copies the one given when it is empty (the reference's rule, on create and update alike). */
function copyDates(given: Dates, current: Dates): Dates {
  const final = {
    invoice_date: given.invoice_date !== undefined ? given.invoice_date : (current.invoice_date ?? null),
    transaction_date:
      given.transaction_date !== undefined ? given.transaction_date : (current.transaction_date ?? null),
  };
  if (given.invoice_date && final.transaction_date === null) final.transaction_date = given.invoice_date;
  if (given.transaction_date && final.invoice_date === null) final.invoice_date = given.transaction_date;
  return final;
}

/** An original invoice must be a finalised invoice of the account (a credit relates to what was invoiced). */
function* checkOriginal(
  ctx: CoreContext,
  id: number | null | undefined,
  self: number | undefined,
  problems: AttributeProblem[],
): Unit<void> {
  if (id === null || id === undefined) return;
  if (id === self) return void problems.push({ attribute: 'original_invoice_id', detail: 'must be another invoice' });
  const original = yield* findInvoice(ctx, id);
  if (!original) problems.push({ attribute: 'original_invoice_id', detail: `no invoice with id ${id}` });
  else if (original.status === 'draft')
    problems.push({
      attribute: 'original_invoice_id',
      detail: `invoice ${id} is a draft: only a finalised invoice can be an original`,
    });
  else if (original.original_invoice_id !== null)
    problems.push({
      attribute: 'original_invoice_id',
      detail: `invoice ${id} is a credit invoice: a credit invoice cannot be credited`,
    });
}

/** Due work: the draft is finalised when its invoice date's day has ended (a day already ended: at once). */
export function* finaliseWhenDue(ctx: CoreContext, invoice: Pick<Invoice, 'id' | 'invoice_date'>): Unit<void> {
  if (invoice.invoice_date === null) return;
  const at = endOfDay(invoice.invoice_date, ctx.account.time_zone);
  const now = nowIso(ctx);
  yield* run((q) =>
    q.insertInto('due_work').values({
      account_id: ctx.account.id,
      due_at: at > now ? at : now,
      rank: WORK['invoice.finalise'],
      kind: 'invoice.finalise',
      subject: String(invoice.id),
    }),
  );
}

type DraftFields = Pick<
  Invoice,
  'subscription_id' | 'customer_id' | 'invoice_date' | 'transaction_date' | 'original_invoice_id' | 'send_email'
> & { totals?: Totals };

/** A new draft: DRAFT, no number, no transaction; totals zero unless given (a credit invoice's). */
function* insertDraft(ctx: CoreContext, now: string, { totals, ...fields }: DraftFields): Unit<Invoice> {
  return (yield* get((q) =>
    q
      .insertInto('invoices')
      .values({
        ...fields,
        account_id: ctx.account.id,
        status: 'draft',
        number: null,
        reference: null,
        amount_excl_cents: totals?.excl ?? 0,
        tax_amount_cents: totals?.tax ?? 0,
        tax_rates: JSON.stringify(totals?.taxRates ?? []),
        transaction_id: null,
        hosted_token: null,
        finalised_at: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll(),
  )) as Invoice;
}

export function createInvoice(
  ctx: CoreContext,
  attributes: Record<string, unknown>,
): MaybePromise<Result<InvoiceWithLines>> {
  const prepared = prepareInvoice(ctx, attributes);
  return prepared.ok ? transact(ctx.store, prepared.value) : prepared;
}

/** createInvoice in two halves (see prepareSubscription): the unit refuses before its first write. */
export function prepareInvoice(
  ctx: CoreContext,
  attributes: Record<string, unknown>,
): Result<() => Unit<Result<InvoiceWithLines>>> {
  const { value, problems } = validateAttributes(invoiceCreateSchema, attributes, {
    readOnly: INVOICE_READ_ONLY_ON_CREATE,
  });
  const given = readInstants(value, ['invoice_date', 'transaction_date'], ctx.account.time_zone, problems);
  const dates = copyDates(given, {});
  checkDates(ctx, given, dates, problems);
  if (problems.length) return invalidAttributes(problems);
  return ok(function* () {
    const now = nowIso(ctx);
    const found: AttributeProblem[] = [];
    const sub = yield* findSubscription(ctx, value.subscription_id);
    if (!sub) found.push({ attribute: 'subscription_id', detail: `no subscription with id ${value.subscription_id}` });
    yield* checkOriginal(ctx, value.original_invoice_id, undefined, found);
    if (found.length) return invalidAttributes<InvoiceWithLines>(found);
    const plan = yield* getPlan(ctx, sub!.subscription_plan_id);
    const invoice = yield* insertDraft(ctx, now, {
      subscription_id: sub!.id,
      customer_id: sub!.customer_id,
      invoice_date: dates.invoice_date ?? null,
      transaction_date: dates.transaction_date ?? null,
      original_invoice_id: value.original_invoice_id ?? null,
      send_email: (value.send_email ?? (plan.ok && plan.value.send_invoice === 1)) ? 1 : 0,
    });
    yield* finaliseWhenDue(ctx, invoice);
    return ok({ invoice, lineIds: [] });
  });
}

export function updateInvoice(
  ctx: CoreContext,
  id: number,
  attributes: Record<string, unknown>,
): MaybePromise<Result<InvoiceWithLines>> {
  return transact(ctx.store, function* () {
    const invoice = yield* lockInvoice(ctx, id);
    if (!invoice) return notFound<InvoiceWithLines>(`no invoice with id ${id}`);
    if (invoice.status !== 'draft') return notDraft<InvoiceWithLines>(invoice, 'it can be changed');
    const { value, problems } = validateAttributes(invoiceUpdateSchema, attributes, {
      readOnly: INVOICE_READ_ONLY_ON_UPDATE,
      unchanged: (name, sent) => name === 'subscription_id' && String(sent).trim() === String(invoice.subscription_id),
    });
    const given = readInstants(value, ['invoice_date', 'transaction_date'], ctx.account.time_zone, problems);
    const dates = copyDates(given, invoice);
    checkDates(ctx, given, dates, problems);
    yield* checkOriginal(ctx, value.original_invoice_id, id, problems);
    if (problems.length) return invalidAttributes<InvoiceWithLines>(problems);
    const changes: Partial<Invoice> = {
      invoice_date: dates.invoice_date ?? null,
      transaction_date: dates.transaction_date ?? null,
      updated_at: nowIso(ctx),
    };
    if (value.original_invoice_id !== undefined) changes.original_invoice_id = value.original_invoice_id;
    if (value.send_email !== undefined) changes.send_email = value.send_email ? 1 : 0;
    yield* run((q) => q.updateTable('invoices').set(changes).where('id', '=', id));
    if (changes.invoice_date !== invoice.invoice_date)
      yield* finaliseWhenDue(ctx, { id, invoice_date: changes.invoice_date! });
    return yield* answer(ctx, id);
  });
}

/** DELETE /invoices/{id}: a draft and its lines. */
export function deleteInvoice(ctx: CoreContext, id: number): MaybePromise<Result<null>> {
  return transact(ctx.store, function* () {
    const invoice = yield* lockInvoice(ctx, id);
    if (!invoice) return notFound<null>(`no invoice with id ${id}`);
    if (invoice.status !== 'draft') return notDraft<null>(invoice, 'it can be deleted');
    yield* run((q) => q.deleteFrom('invoice_lines').where('invoice_id', '=', id));
    yield* run((q) => q.deleteFrom('invoices').where('id', '=', id));
    return ok(null);
  });
}

export const LINE_INSERT: RowsSpec = {
  key: 'invoice_lines.insert',
  table: 'invoice_lines',
  columns: {
    account_id: 'integer',
    invoice_id: 'integer',
    description: 'text',
    amount_cents: 'integer',
    tax_rate: 'integer',
    tax_included: 'flag',
    quantity: 'integer',
    unit_excl_cents: 'integer',
    unit_tax_cents: 'integer',
    credited_line_id: 'integer',
    created_at: 'instant',
    updated_at: 'instant',
  },
};

/** What the credit invoices of an invoice (drafts too) already credit: each line of it, and in all. */
interface Credited {
  credits: Pick<Invoice, 'id' | 'reference' | 'status'>[];
  /** Quantity credited per line of the original (lines made by credit name theirs). */
  perLine: Map<number, number>;
  /** The credits' totals, including tax: zero or less. */
  total: number;
}

function* creditedOf(ctx: CoreContext, id: number): Unit<Credited> {
  const rows = yield* all((q) =>
    q
      .selectFrom('invoices')
      .select(['id', 'reference', 'status', 'amount_excl_cents', 'tax_amount_cents'])
      .where('original_invoice_id', '=', id)
      .where('account_id', '=', ctx.account.id)
      .orderBy('id'),
  );
  const perLine = new Map<number, number>();
  if (rows.length) {
    for (const row of yield* all((q) =>
      q
        .selectFrom('invoice_lines')
        .select((eb) => ['credited_line_id', eb.fn.sum<number>('quantity').as('n')])
        .where(
          'invoice_id',
          'in',
          rows.map((r) => r.id),
        )
        .where('credited_line_id', 'is not', null)
        .groupBy('credited_line_id'),
    ))
      perLine.set(row.credited_line_id!, Number(row.n));
  }
  return {
    credits: rows,
    perLine,
    total: rows.reduce((sum, r) => sum + r.amount_excl_cents + r.tax_amount_cents, 0),
  };
}

const named = (credits: Credited['credits']): string =>
  credits.map((c) => `${c.id} (${c.reference ?? 'a draft'})`).join(', ');

/**
 * POST (or PATCH) /invoices/{id}/credit: a new draft with the original's lines negated (same rates
 * and tax inclusion), its original set, no dates. Without a body every line is credited with what
 * is left of it; with `lines`, the lines chosen. An invoice is credited at most once in full: the
 * credits of an invoice, drafts included, never come to more than it, per line and in all. A credit
 * invoice is never credited. The original is not changed here (finalising the credit may).
 */
export function creditInvoice(
  ctx: CoreContext,
  id: number,
  attributes: Record<string, unknown> = {},
): MaybePromise<Result<InvoiceWithLines>> {
  const { value, problems } = validateAttributes(invoiceCreditSchema, attributes, { readOnly: [] });
  if (problems.length) return invalidAttributes(problems);
  // READ COMMITTED under the original's lock: two credits of one invoice queue, the second sees the first.
  return transactLocked(ctx.store, function* () {
    const now = nowIso(ctx);
    const original = yield* lockInvoice(ctx, id);
    if (!original) return notFound<InvoiceWithLines>(`no invoice with id ${id}`);
    if (original.status === 'draft')
      return fail<InvoiceWithLines>({
        kind: 'invalid_state',
        detail: `invoice ${id} is a draft: change or delete it; only a finalised invoice is credited`,
      });
    if (original.original_invoice_id !== null)
      return fail<InvoiceWithLines>({
        kind: 'invalid_state',
        detail: `invoice ${id} (${original.reference}) is a credit invoice of invoice ${original.original_invoice_id}: a credit invoice cannot be credited`,
      });
    const lines = (yield* all((q) =>
      q.selectFrom('invoice_lines').selectAll().where('invoice_id', '=', id).orderBy('id'),
    )) as InvoiceLine[];
    const credited = yield* creditedOf(ctx, id);
    const left = (line: InvoiceLine) => Math.max(0, line.quantity - (credited.perLine.get(line.id) ?? 0));
    const chosen: { line: InvoiceLine; quantity: number }[] = [];
    const found: AttributeProblem[] = [];
    if (value.lines === undefined) {
      for (const line of lines) if (left(line) > 0) chosen.push({ line, quantity: left(line) });
      if (chosen.length === 0)
        return fail<InvoiceWithLines>({
          kind: 'invalid_state',
          detail: `invoice ${id} (${original.reference}) is credited in full already, by credit invoice ${named(credited.credits)}`,
        });
    } else {
      value.lines.forEach(({ line_id, quantity }, i) => {
        const line = lines.find((l) => l.id === line_id);
        if (!line)
          return void found.push({
            attribute: 'lines',
            path: [i, 'line_id'],
            detail: `invoice ${id} has no line ${line_id}`,
          });
        if (chosen.some((c) => c.line === line))
          return void found.push({
            attribute: 'lines',
            path: [i, 'line_id'],
            detail: `line ${line_id} is named twice`,
          });
        const rest = left(line);
        if (rest === 0)
          return void found.push({
            attribute: 'lines',
            path: [i, 'line_id'],
            detail: `line ${line_id} is credited in full already (credit invoice ${named(credited.credits)})`,
          });
        if (quantity !== undefined && quantity > rest)
          return void found.push({
            attribute: 'lines',
            path: [i, 'quantity'],
            detail: `is more than the ${rest} of line ${line_id} left to credit (of ${line.quantity})`,
          });
        chosen.push({ line, quantity: quantity ?? rest });
      });
    }
    if (found.length) return invalidAttributes<InvoiceWithLines>(found);
    const negated = chosen.map(({ line, quantity }) => {
      const units = lineUnits(-line.amount_cents, line.tax_rate, line.tax_included === 1);
      const { id: lineId, ...rest } = line;
      return {
        ...rest,
        amount_cents: -line.amount_cents,
        quantity,
        unit_excl_cents: units.excl,
        unit_tax_cents: units.tax,
        credited_line_id: lineId,
      };
    });
    const totals = totalsOf(negated);
    // Credits made by hand (lines naming no line of the original) count by amount alone.
    const owed = original.amount_excl_cents + original.tax_amount_cents;
    const remaining = owed + credited.total;
    if (-totals.incl > remaining) {
      const detail = `would credit ${formatAmount(-totals.incl)}, more than the ${formatAmount(Math.max(0, remaining))} of invoice ${id}'s ${formatAmount(owed)} not yet credited (credit invoice ${named(credited.credits)})`;
      return value.lines === undefined
        ? fail<InvoiceWithLines>({ kind: 'invalid_state', detail: `the credit ${detail}: credit chosen lines` })
        : invalidAttributes<InvoiceWithLines>([{ attribute: 'lines', detail }]);
    }
    const credit = yield* insertDraft(ctx, now, {
      subscription_id: original.subscription_id,
      customer_id: original.customer_id,
      invoice_date: null,
      transaction_date: null,
      original_invoice_id: id,
      send_email: original.send_email,
      totals,
    });
    yield* writeRows(
      'insert',
      LINE_INSERT,
      negated.map((line) => ({ ...line, invoice_id: credit.id, created_at: now, updated_at: now })),
    );
    return yield* answer(ctx, credit.id);
  });
}

/**
 * PATCH /invoices/{id}/refunded: a credit invoice owed to the customer (refund due: its original
 * was collected or paid) is marked paid back on `refunded_on` (default today), once.
 */
export function markRefunded(
  ctx: CoreContext,
  id: number,
  attributes: Record<string, unknown> = {},
): MaybePromise<Result<InvoiceWithLines>> {
  const { value, problems } = validateAttributes(invoiceRefundedSchema, attributes, { readOnly: [] });
  const given = readInstants(value, ['refunded_on'], ctx.account.time_zone, problems);
  if (problems.length) return invalidAttributes(problems);
  return transactLocked(ctx.store, function* () {
    const now = nowIso(ctx);
    const invoice = yield* lockInvoice(ctx, id);
    if (!invoice) return notFound<InvoiceWithLines>(`no invoice with id ${id}`);
    const refusal = (detail: string) =>
      fail<InvoiceWithLines>({ kind: 'invalid_state', detail: `invoice ${id}: ${detail}` });
    if (invoice.refunded_on !== null)
      return refusal(`marked refunded already, on ${dayAt(invoice.refunded_on, ctx.account.time_zone)}`);
    if (!(yield* refundDue(ctx, invoice)))
      return refusal(
        `no refund is due: only a finalised credit invoice (completed, below zero) of an invoice that was collected or paid is owed to the customer`,
      );
    const tz = ctx.account.time_zone;
    const today = midnight(dayAt(now, tz), tz);
    const on = given.refunded_on ?? today;
    if (dayAt(on, tz) > dayAt(now, tz))
      return invalidAttributes<InvoiceWithLines>([
        { attribute: 'refunded_on', detail: `must be on or before today (${dayAt(now, tz)})` },
      ]);
    if (dayAt(on, tz) < dayAt(invoice.finalised_at!, tz))
      return invalidAttributes<InvoiceWithLines>([
        {
          attribute: 'refunded_on',
          detail: `must be on or after the day the credit invoice was finalised (${dayAt(invoice.finalised_at!, tz)})`,
        },
      ]);
    yield* run((q) => q.updateTable('invoices').set({ refunded_on: on, updated_at: now }).where('id', '=', id));
    return yield* answer(ctx, id);
  });
}

/**
 * PATCH /invoices/{id}/pay: paid outside the service. An open or charged-back invoice becomes paid,
 * and its transaction, if not yet collected, is canceled: the customer is never charged twice.
 */
export function payInvoice(ctx: CoreContext, id: number): MaybePromise<Result<InvoiceWithLines>> {
  return transact(ctx.store, function* () {
    const now = nowIso(ctx);
    const row = yield* lockInvoice(ctx, id);
    if (!row) return notFound<InvoiceWithLines>(`no invoice with id ${id}`);
    if (row.status !== 'open' && row.status !== 'charged_back') {
      return fail<InvoiceWithLines>({
        kind: 'invalid_state',
        detail: `invoice ${id} is ${row.status}: only an open or charged back invoice can be marked paid`,
      });
    }
    const l = new Ledger(allowsPrivateWebhooks(ctx));
    const invoice: Inv = row;
    l.invoices.set(id, invoice);
    moveInvoice(l, invoice, 'paid', now);
    if (invoice.transaction_id !== null) {
      yield* loadTransactions(l, [invoice.transaction_id], ctx.account.id);
      const tx = l.txns.get(invoice.transaction_id);
      // Collected, its funds not yet settled: paid by hand too, the customer would have paid twice,
      // and a return of the collection would then be retried and collect it again.
      if (tx?.status === 'succeeded') {
        return fail<InvoiceWithLines>({
          kind: 'invalid_state',
          detail: `invoice ${id} is being paid by its collection (transaction ${tx.id} succeeded): it becomes paid when the funds settle; if the bank returns them, mark it paid then`,
        });
      }
      if (tx && (OPEN_STATUSES as readonly string[]).includes(tx.status)) {
        // Its file may be at the bank: marked paid now, the customer would pay twice.
        if (tx.collection_id !== null) {
          return fail<InvoiceWithLines>({
            kind: 'invalid_state',
            detail: `invoice ${id} is being collected in collection batch ${tx.collection_id}: wait for the bank's report, or cancel the batch before its export (billing collections cancel ${tx.collection_id})`,
          });
        }
        cancelTransaction(l, tx, now);
      }
    }
    yield* flush(l);
    return yield* answer(ctx, id);
  });
}
