// The rules of an invoice, read top to bottom: finalising a draft (by request, PATCH
// /invoices/{id}/finalise, or by due work once its invoice_date has ended), then the invoice
// following its transaction (paid, charged back, cancelled). Every status change goes through
// INVOICE_TRANSITIONS. Free of zod: `billing invoices finalise 42` is the command a support person
// types most, and loading the request schemas would be most of its start-up.
//
// Finalising runs on a Ledger that holds the invoices locked, the account's invoice counter locked,
// and the subscriptions whose transactions a total is collected by. The number of a reference comes
// from accounts.next_invoice_number, read under its row lock (FOR UPDATE; SQLite has one writer) and
// written back in the same transaction as the invoices that took numbers: numbers are given in the
// order invoices are finalised, each once, with no gap, and a refused or failed finalisation gives
// none back because it took none.
import { randomBytes } from './random.js';
import { sql } from 'kysely';
import type { AttributeProblem } from '../schemas/common.js';
import { formatAmount } from '../schemas/money.js';
import type { InvoiceStatus } from '../schemas/vocabulary.js';
import type { CustomerRow } from '../store/schema.js';
import { all, get, type MaybePromise, type Unit } from '../store/unit.js';
import { allowsPrivateWebhooks, nowIso, type CoreContext } from './context.js';
import { hostedInvoiceUrl, lineIdsBy, type Invoice, type InvoiceLine } from './invoices.js';
import { flush, Ledger, loadSubscriptions, loadTransactions, RULE_COLUMNS, type Inv, type Txn } from './ledger.js';
import { DEFAULT_BASE_URL, invoiceEmail } from './notifications.js';
import { fail, invalidAttributes, notFound, ok, type Result } from './result.js';
import { addDays, dayAt, midnight } from './schedule.js';
import { addManualTransaction, cancelTransaction } from './transaction-rules.js';
import { canMove, INVOICE_TRANSITIONS, OPEN_STATUSES, TransitionError } from './transitions.js';

// ---- finalising ----

export interface InvoiceWithLines {
  invoice: Invoice;
  lineIds: InvoiceLine['id'][];
}

/** The body's attributes: send_email alone, true or false (the strings too, as everywhere). */
function readSendEmail(attributes: Record<string, unknown>): { sendEmail?: boolean; problems: AttributeProblem[] } {
  const problems: AttributeProblem[] = [];
  let sendEmail: boolean | undefined;
  for (const [name, value] of Object.entries(attributes)) {
    if (name !== 'send_email')
      problems.push({ attribute: name, detail: 'is not a known attribute (finalising takes send_email only)' });
    else if (value === true || value === 'true') sendEmail = true;
    else if (value === false || value === 'false') sendEmail = false;
    else problems.push({ attribute: name, detail: 'must be true or false' });
  }
  return { sendEmail, problems };
}

/**
 * Run as Store.work: on PostgreSQL, READ COMMITTED, so concurrent finalisers queue on the account's
 * counter row and each reads the number the one before left, where SERIALIZABLE would fail all but
 * one of them. It locks the invoice and the counter only: the subscription is read (light), so a
 * finaliser never waits for due work collecting that subscription, nor due work for it. A refusal
 * takes no number: nothing is written before every rule holds.
 */
export function finaliseInvoice(
  ctx: CoreContext,
  id: number,
  attributes?: Record<string, unknown>,
): MaybePromise<Result<InvoiceWithLines>> {
  const { sendEmail, problems } = readSendEmail(attributes ?? {});
  if (problems.length) return invalidAttributes(problems);
  return ctx.store.work(
    function* () {
      const l = new Ledger(allowsPrivateWebhooks(ctx));
      const invoicing = newInvoicing();
      const originals = yield* originalsOf([id]);
      yield* loadInvoices(l, invoicing, [id, ...originals], ctx.account.id, { light: true });
      yield* loadCredited(l, invoicing, originals);
      const invoice = l.invoices.get(id);
      if (!invoice) return notFound<InvoiceWithLines>(`no invoice with id ${id}`);
      if (invoice.status !== 'draft') return notDraft<InvoiceWithLines>(invoice, 'it can be finalised');
      const refusal = finalise(l, invoicing, invoice, nowIso(ctx), ctx.baseUrl ?? DEFAULT_BASE_URL, sendEmail);
      if (refusal) return fail<InvoiceWithLines>({ kind: 'invalid_state', detail: `invoice ${id}: ${refusal}` });
      yield* flush(l);
      // The invoice as written (its lines cannot change while it is locked).
      return ok({ invoice, lineIds: (yield* lineIdsBy([id])).get(id)! });
    },
    (result) => result.ok,
  );
}

/**
 * Due work at `dueAt` (invoice.finalise): a draft whose invoice date has ended is finalised; one that no longer
 * is (finalised by hand, its date moved or cleared, no lines yet) stays as it is.
 */
export function finaliseDue(l: Ledger, invoicing: Invoicing, id: number, dueAt: string, baseUrl: string): void {
  const invoice = l.invoices.get(id);
  if (invoice?.status !== 'draft' || invoice.invoice_date === null) return;
  if (endOfDay(invoice.invoice_date, l.zone(invoice.account_id)) > dueAt) return;
  finalise(l, invoicing, invoice, dueAt, baseUrl);
}

/** The end of an invoice date's day in the zone: when a draft with that date is finalised by itself. */
export const endOfDay = (instant: string, timeZone: string): string =>
  midnight(addDays(dayAt(instant, timeZone), 1), timeZone);

/**
 * Finalises a draft at `at`: its reference, its dates, and (a total above zero) a transaction for
 * the total under the subscription's mandate; zero or less completes it. Gives the refusal, or
 * undefined when done. `sendEmail` overrides the invoice's own choice.
 */
function finalise(
  l: Ledger,
  inv: Invoicing,
  invoice: Inv,
  at: string,
  baseUrl: string,
  sendEmail?: boolean,
): string | undefined {
  if (invoice.status !== 'draft') return `the invoice is ${invoice.status}: only a draft can be finalised`;
  if (!((inv.lineCounts.get(invoice.id) ?? 0) > 0))
    return 'the invoice has no lines: add at least one before finalising';
  const credit = creditRules(l, inv, invoice, at);
  if (typeof credit === 'string') return credit;
  const zone = l.zone(invoice.account_id);
  const today = midnight(dayAt(at, zone), zone);
  const counter = l.counters.get(invoice.account_id)!;
  invoice.number = counter.next++;
  invoice.reference = `${counter.prefix}${invoice.number}`;
  invoice.hosted_token = randomBytes(24).toString('base64url');
  invoice.finalised_at = at;
  invoice.invoice_date ??= today;
  if (sendEmail !== undefined) invoice.send_email = sendEmail ? 1 : 0;
  const total = invoice.amount_excl_cents + invoice.tax_amount_cents;
  if (total <= 0) {
    moveInvoice(l, invoice, 'completed', at);
  } else {
    moveInvoice(l, invoice, 'open', at);
    const sub = l.subs.get(invoice.subscription_id)!;
    // Collected under the mandate of an active subscription only; otherwise it stays open, to be paid by hand.
    if (sub.status === 'active') {
      const wanted = invoice.transaction_date === null ? today : midnight(dayAt(invoice.transaction_date, zone), zone);
      const due = wanted > today ? wanted : today;
      // The date of the transaction made: a past one (finalised late) is today's.
      invoice.transaction_date = due;
      const plan = l.plans.get(sub.subscription_plan_id)!;
      invoice.transaction_id = addManualTransaction(
        l,
        sub,
        at,
        total,
        due,
        `${invoice.reference} ${plan.name}`,
        invoice.id,
      ).id;
      l.fullyCredited.set(invoice.id, false);
    }
  }
  credit?.();
  if (invoice.send_email === 1) {
    const customer = inv.customers.get(invoice.customer_id)!;
    l.notifications.push(invoiceEmail(invoice, customer, hostedInvoiceUrl(baseUrl, invoice)!, at));
  }
  return undefined;
}

/**
 * A credit invoice (one naming an original) is finalised only while the finalised credits of its
 * original, this one included, come to no more than the original's total. Credited in full while
 * not yet collected (open, its transaction queued or scheduled, or none), the original is
 * cancelled with its transaction: the customer is never charged for what was credited. Collected
 * or paid, it stays as it is, and the credit is owed back (refund due). Gives the refusal, or what
 * to do once the credit is finalised.
 */
function creditRules(l: Ledger, inv: Invoicing, invoice: Inv, at: string): string | (() => void) | undefined {
  if (invoice.original_invoice_id === null) return undefined;
  const original = l.invoices.get(invoice.original_invoice_id);
  if (!original) return `its original invoice ${invoice.original_invoice_id} is not found`;
  if (original.original_invoice_id !== null)
    return `its original, invoice ${original.id}, is a credit invoice: a credit invoice cannot be credited`;
  const own = invoice.amount_excl_cents + invoice.tax_amount_cents;
  const owed = original.amount_excl_cents + original.tax_amount_cents;
  // A credit takes its original back toward zero: of the other sign, or zero. One of the same sign
  // (its lines changed to a charge) would be collected as a second charge.
  if (owed >= 0 ? own > 0 : own < 0)
    return `a credit of invoice ${original.id} (${formatAmount(owed)}) must come to zero or ${owed >= 0 ? 'less' : 'more'}, and this one comes to ${formatAmount(own)}`;
  const before = inv.credited.get(original.id) ?? 0;
  const after = before + own;
  if (Math.abs(after) > Math.abs(owed))
    return `the credits of invoice ${original.id} would come to ${formatAmount(Math.abs(after))}, more than its ${formatAmount(Math.abs(owed))} (${formatAmount(Math.abs(before))} credited already)`;
  const tx = original.transaction_id === null ? undefined : l.txns.get(original.transaction_id);
  const uncollected = tx === undefined || (OPEN_STATUSES as readonly string[]).includes(tx.status);
  const cancels = -after === owed && owed > 0 && original.status === 'open' && uncollected;
  // Its file may be at the bank: cancelled now, the customer could still be charged.
  if (cancels && tx?.collection_id != null)
    return `its original, invoice ${original.id}, is being collected in collection batch ${tx.collection_id}: wait for the bank's report, or cancel the batch before its export (billing collections cancel ${tx.collection_id})`;
  return () => {
    inv.credited.set(original.id, after);
    if (!cancels) return;
    if (tx) cancelTransaction(l, tx, at);
    moveInvoice(l, original, 'cancelled', at);
  };
}

export type Recipient = Pick<CustomerRow, 'first_name' | 'middle_name' | 'last_name' | 'language' | 'email'> & {
  id: number;
};

/** What finalising needs besides the ledger's own: line counts and the customers an email goes to. */
export interface Invoicing {
  lineCounts: Map<number, number>;
  customers: Map<number, Recipient>;
  /** Per original invoice: the totals of its finalised credits (zero or less). */
  credited: Map<number, number>;
}

export const newInvoicing = (): Invoicing => ({ lineCounts: new Map(), customers: new Map(), credited: new Map() });

/**
 * The originals of the credit drafts among `ids`, read without a lock: they are then locked with
 * the drafts, in id order, as every writer takes invoices.
 */
export function* originalsOf(ids: number[]): Unit<number[]> {
  if (ids.length === 0) return [];
  const rows = yield* all((q) =>
    q
      .selectFrom('invoices')
      .select('original_invoice_id')
      .where('id', 'in', ids)
      .where('status', '=', 'draft')
      .where('original_invoice_id', 'is not', null),
  );
  return [...new Set(rows.map((r) => r.original_invoice_id!))];
}

/**
 * For originals loaded (locked) in the ledger: what their finalised credits credit, and their
 * transactions (a credit in full cancels one not yet collected). Read under the originals' locks,
 * which every finaliser of a credit takes: no two credits of one invoice pass the check at once.
 */
export function* loadCredited(l: Ledger, inv: Invoicing, originals: number[]): Unit<void> {
  const loaded = originals.filter((id) => l.invoices.has(id));
  if (loaded.length === 0) return;
  for (const row of yield* all((q) =>
    q
      .selectFrom('invoices')
      .select((eb) => [
        'original_invoice_id',
        eb.fn.sum<number>('amount_excl_cents').as('excl'),
        eb.fn.sum<number>('tax_amount_cents').as('tax'),
      ])
      .where('original_invoice_id', 'in', loaded)
      .where('status', '<>', 'draft')
      .groupBy('original_invoice_id'),
  ))
    inv.credited.set(row.original_invoice_id!, Number(row.excl) + Number(row.tax));
  const txIds = loaded.map((id) => l.invoices.get(id)!.transaction_id).filter((id): id is string => id !== null);
  yield* loadTransactions(l, txIds);
}

/**
 * For the invoices of the ledger's transactions: whether each is credited in full, so a return of
 * its collection is not retried (retryOrEnd). Read after the transactions' locks, which a credit's
 * finaliser takes too: a credit finalised first is seen, one finalised after sees the return.
 */
export function* loadFullCredits(l: Ledger): Unit<void> {
  const ids = new Set<number>();
  for (const tx of l.txns.values())
    if (tx.invoice_id !== null && !l.fullyCredited.has(tx.invoice_id)) ids.add(tx.invoice_id);
  if (ids.size === 0) return;
  for (const id of ids) l.fullyCredited.set(id, false);
  for (const row of yield* all((q) =>
    q
      .selectFrom('invoices as o')
      .innerJoin('invoices as c', 'c.original_invoice_id', 'o.id')
      .select('o.id')
      .where('o.id', 'in', [...ids])
      .where('c.status', '<>', 'draft')
      .groupBy(['o.id', 'o.amount_excl_cents', 'o.tax_amount_cents'])
      .having(
        (eb) => sql<number>`-sum(${eb.ref('c.amount_excl_cents')} + ${eb.ref('c.tax_amount_cents')})`,
        '>=',
        (eb) => sql<number>`${eb.ref('o.amount_excl_cents')} + ${eb.ref('o.tax_amount_cents')}`,
      ),
  ))
    l.fullyCredited.set(row.id, true);
}

/**
 * Loads invoices (locked), their line counts, customers and subscriptions, and the invoice counters
 * of their accounts (locked, after the invoices: every writer takes invoices before the counter, so
 * none waits for another in a circle). `light`: the subscriptions are read, not locked (a request
 * finalising one invoice, which only adds a transaction; see loadSubscriptions).
 */
export function* loadInvoices(
  l: Ledger,
  inv: Invoicing,
  ids: Iterable<number>,
  accountId?: number,
  options: { light?: boolean } = {},
): Unit<void> {
  const wanted = [...new Set(ids)].filter((id) => !l.invoices.has(id));
  if (wanted.length === 0) return;
  const rows = (yield* all((q, d) => {
    let query = q.selectFrom('invoices').selectAll().where('id', 'in', wanted).orderBy('id');
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    return d.locked(query);
  })) as Inv[];
  if (rows.length === 0) return;
  for (const row of rows) l.invoices.set(row.id, row);
  const found = rows.map((r) => r.id);
  for (const row of yield* all((q) =>
    q
      .selectFrom('invoice_lines')
      .select((eb) => ['invoice_id', eb.fn.countAll<number>().as('n')])
      .where('invoice_id', 'in', found)
      .groupBy('invoice_id'),
  )) {
    inv.lineCounts.set(row.invoice_id, Number(row.n));
  }
  const customerIds = [...new Set(rows.map((r) => r.customer_id))];
  for (const c of yield* all((q) =>
    q
      .selectFrom('customers')
      .select(['id', 'first_name', 'middle_name', 'last_name', 'language', 'email'])
      .where('id', 'in', customerIds),
  )) {
    inv.customers.set(c.id, c);
  }
  yield* loadSubscriptions(
    l,
    rows.map((r) => r.subscription_id),
    undefined,
    options,
  );
  const accounts = [...new Set(rows.map((r) => r.account_id))].filter((id) => !l.counters.has(id));
  if (accounts.length) {
    const counters = yield* all((q, d) =>
      d.locked(
        q
          .selectFrom('accounts')
          .select([...RULE_COLUMNS, 'next_invoice_number', 'invoice_prefix'])
          .where('id', 'in', accounts)
          .orderBy('id'),
      ),
    );
    for (const { next_invoice_number, invoice_prefix, ...rules } of counters) {
      l.counters.set(rules.id, { next: next_invoice_number, read: next_invoice_number, prefix: invoice_prefix });
      l.useAccount(rules);
    }
  }
}

/** The invoice, locked for the rest of the transaction (line writes and finalising take it first). */
export function* lockInvoice(ctx: CoreContext, id: number): Unit<Invoice | undefined> {
  return yield* get((q, d) =>
    d.locked(q.selectFrom('invoices').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id)),
  );
}

export const notDraft = <T>(invoice: Invoice, doing: string, attribute?: string): Result<T> =>
  fail({
    kind: 'invalid_state',
    attribute,
    detail:
      `invoice ${invoice.id} is ${invoice.status} (${invoice.reference}): ${doing} only while it is a draft; ` +
      'a finalised invoice never changes (credit it instead)',
  });

// ---- invoices following their transactions ----

export function moveInvoice(l: Ledger, inv: Inv, to: InvoiceStatus, at: string): void {
  if (!canMove(INVOICE_TRANSITIONS, inv.status as InvoiceStatus, to))
    throw new TransitionError(`invoice ${inv.id} cannot go from ${inv.status} to ${to}`);
  inv.status = to;
  inv.updated_at = at;
  l.changedInvoices.add(inv);
  l.count(`invoice.${to}`);
}

/** What an invoice becomes when its transaction ends so: funds in, failed for good (after every retry), canceled. */
const FOLLOWS: Partial<Record<string, InvoiceStatus>> = {
  fulfilled: 'paid',
  failed: 'charged_back',
  canceled: 'cancelled',
};

/**
 * Invoices follow their transactions, by where each transaction ended up in this ledger (a failure
 * followed by a storno retry is not an end). A move the table does not allow (an invoice paid by
 * hand whose transaction is then canceled) leaves the invoice as it is.
 */
export function* followInvoices(l: Ledger): Unit<void> {
  const follow: Txn[] = [];
  for (const tx of [...l.created, ...l.changedTxns])
    if (tx.invoice_id !== null && FOLLOWS[tx.status] !== undefined) follow.push(tx);
  if (follow.length === 0) return;
  const missing = [...new Set(follow.map((tx) => tx.invoice_id!))].filter((id) => !l.invoices.has(id));
  if (missing.length) {
    for (const row of (yield* all((q, d) =>
      d.locked(q.selectFrom('invoices').selectAll().where('id', 'in', missing).orderBy('id')),
    )) as Inv[])
      l.invoices.set(row.id, row);
  }
  for (const tx of follow) {
    const inv = l.invoices.get(tx.invoice_id!);
    const to = FOLLOWS[tx.status]!;
    if (inv && inv.status !== to && canMove(INVOICE_TRANSITIONS, inv.status as InvoiceStatus, to))
      moveInvoice(l, inv, to, tx.updated_at);
  }
}
