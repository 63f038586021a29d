// Finalising invoices, written once for a request (PATCH /invoices/{id}/finalise) and for due work
// (a draft whose invoice_date has ended). Both run on a Ledger that holds the invoices locked, the
// account's invoice counter locked, and the subscriptions whose transactions a total is collected by.
//
// The number of a reference comes from accounts.next_invoice_number, read under its row lock
// (FOR UPDATE; SQLite has one writer) and written back in the same transaction as the invoices that
// took numbers: numbers are given in the order invoices are finalised, each once, with no gap, and a
// refused or failed finalisation gives none back because it took none.
import { randomBytes } from 'node:crypto';
import type { CustomerRow } from '../store/schema.js';
import { all, type Unit } from '../store/unit.js';
import { addManualTransaction, loadSubscriptions, moveInvoice, RULE_COLUMNS, type AccountRules, type Inv, type Ledger } from './lifecycle.js';
import { hostedInvoiceUrl } from './invoices.js';
import { invoiceEmail } from './notifications.js';
import { addDays, dayAt, midnight } from './schedule.js';

export type Recipient = Pick<CustomerRow, 'first_name' | 'middle_name' | 'last_name' | 'language' | 'email'> & { id: number };

/** What finalising needs besides the ledger's own: line counts and the customers an email goes to. */
export interface Invoicing {
  lineCounts: Map<number, number>;
  customers: Map<number, Recipient>;
}

export const newInvoicing = (): Invoicing => ({ lineCounts: new Map(), customers: new Map() });

/**
 * Loads invoices (locked), their line counts, customers and subscriptions, and the invoice counters
 * of their accounts (locked, after the invoices: every writer takes invoices before the counter, so
 * none waits for another in a circle). `light`: the subscriptions are read, not locked (a request
 * finalising one invoice, which only adds a transaction; see loadSubscriptions).
 */
export function* loadInvoices(l: Ledger, inv: Invoicing, ids: Iterable<number>, accountId?: number, options: { light?: boolean } = {}): Unit<void> {
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
  for (const row of yield* all((q) => q.selectFrom('invoice_lines').select((eb) => ['invoice_id', eb.fn.countAll<number>().as('n')]).where('invoice_id', 'in', found).groupBy('invoice_id'))) {
    inv.lineCounts.set(row.invoice_id, Number(row.n));
  }
  const customerIds = [...new Set(rows.map((r) => r.customer_id))];
  for (const c of yield* all((q) => q.selectFrom('customers').select(['id', 'first_name', 'middle_name', 'last_name', 'language', 'email']).where('id', 'in', customerIds))) {
    inv.customers.set(c.id as number, c as Recipient);
  }
  yield* loadSubscriptions(l, rows.map((r) => r.subscription_id), undefined, options);
  const accounts = [...new Set(rows.map((r) => r.account_id))].filter((id) => !l.counters.has(id));
  if (accounts.length) {
    const counters = yield* all((q, d) => d.locked(q.selectFrom('accounts').select([...RULE_COLUMNS, 'next_invoice_number', 'invoice_prefix']).where('id', 'in', accounts).orderBy('id')));
    for (const { next_invoice_number, invoice_prefix, ...rules } of counters) {
      l.counters.set(rules.id as number, { next: next_invoice_number, read: next_invoice_number, prefix: invoice_prefix });
      l.useAccount(rules as AccountRules);
    }
  }
}

/** The end of an invoice date's day in the zone: when a draft with that date is finalised by itself. */
export const endOfDay = (instant: string, timeZone: string): string => midnight(addDays(dayAt(instant, timeZone), 1), timeZone);

/**
 * Finalises a draft at `at`: its reference, its dates, and (a total above zero) a transaction for
 * the total under the subscription's mandate; zero or less completes it. Gives the refusal, or
 * undefined when done. `sendEmail` overrides the invoice's own choice.
 */
export function finalise(l: Ledger, inv: Invoicing, invoice: Inv, at: string, baseUrl: string, sendEmail?: boolean): string | undefined {
  if (invoice.status !== 'draft') return `the invoice is ${invoice.status}: only a draft can be finalised`;
  if (!((inv.lineCounts.get(invoice.id) ?? 0) > 0)) return 'the invoice has no lines: add at least one before finalising';
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
      invoice.transaction_id = addManualTransaction(l, sub, at, total, due, `${invoice.reference} ${plan.name}`, invoice.id).id;
    }
  }
  if (invoice.send_email === 1) {
    const customer = inv.customers.get(invoice.customer_id)!;
    l.notifications.push(invoiceEmail(invoice, customer, hostedInvoiceUrl(baseUrl, invoice)!, at));
  }
  return undefined;
}
