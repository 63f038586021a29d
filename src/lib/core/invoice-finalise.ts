// Finalising one invoice by request (PATCH /invoices/{id}/finalise), kept apart from the other
// invoice writes and free of zod: `billing invoices finalise 42` is the command a support person
// types most, and loading the request schemas would be most of its start-up.
import type { AttributeProblem } from '../schemas/common.js';
import { get, type MaybePromise, type Unit } from '../store/unit.js';
import { allowsPrivateWebhooks, nowIso, type CoreContext } from './context.js';
import { lineIdsBy, type Invoice, type InvoiceLine } from './invoices.js';
import { finalise, loadInvoices, newInvoicing } from './invoicing.js';
import { flush, Ledger } from './lifecycle.js';
import { DEFAULT_BASE_URL } from './notifications.js';
import { fail, invalidAttributes, notFound, ok, type Result } from './result.js';

export interface InvoiceWithLines {
  invoice: Invoice;
  lineIds: InvoiceLine['id'][];
}

/** The invoice, locked for the rest of the transaction (line writes and finalising take it first). */
export function* lockInvoice(ctx: CoreContext, id: number): Unit<Invoice | undefined> {
  return (yield* get((q, d) => d.locked(q.selectFrom('invoices').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id)))) as Invoice | undefined;
}

export const notDraft = <T>(invoice: Invoice, doing: string, attribute?: string): Result<T> =>
  fail({ kind: 'invalid_state', attribute, detail: `invoice ${invoice.id} is ${invoice.status} (${invoice.reference}): ${doing} only while it is a draft; a finalised invoice never changes (credit it instead)` });

/** The body's attributes: send_email alone, true or false (the strings too, as everywhere). */
function readSendEmail(attributes: Record<string, unknown>): { sendEmail?: boolean; problems: AttributeProblem[] } {
  const problems: AttributeProblem[] = [];
  let sendEmail: boolean | undefined;
  for (const [name, value] of Object.entries(attributes)) {
    if (name !== 'send_email') problems.push({ attribute: name, detail: 'is not a known attribute (finalising takes send_email only)' });
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
export function finaliseInvoice(ctx: CoreContext, id: number, attributes?: Record<string, unknown>): MaybePromise<Result<InvoiceWithLines>> {
  const { sendEmail, problems } = readSendEmail(attributes ?? {});
  if (problems.length) return invalidAttributes(problems);
  return ctx.store.work(function* () {
    const l = new Ledger(allowsPrivateWebhooks(ctx));
    const invoicing = newInvoicing();
    yield* loadInvoices(l, invoicing, [id], ctx.account.id, { light: true });
    const invoice = l.invoices.get(id);
    if (!invoice) return notFound<InvoiceWithLines>(`no invoice with id ${id}`);
    if (invoice.status !== 'draft') return notDraft<InvoiceWithLines>(invoice, 'it can be finalised');
    const refusal = finalise(l, invoicing, invoice, nowIso(ctx), ctx.baseUrl ?? DEFAULT_BASE_URL, sendEmail);
    if (refusal) return fail<InvoiceWithLines>({ kind: 'invalid_state', detail: `invoice ${id}: ${refusal}` });
    yield* flush(l);
    // The invoice as written (its lines cannot change while it is locked).
    return ok({ invoice, lineIds: (yield* lineIdsBy([id])).get(id)! });
  }, (result) => result.ok);
}
