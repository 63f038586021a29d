// PATCH /invoices/{id}/finalise, loaded apart from the other invoice writes: it needs no request
// schemas (zod), so `billing invoices finalise 42` starts as fast as a read.
import { finaliseInvoice, type InvoiceWithLines } from '../../core/invoice-rules.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { invoiceResource, singleDocument, type Rendering } from '../documents.js';
import type { ApiResponse } from '../http.js';
import { respond, unwrap, type RequestContext } from './context.js';
import { bodiless, readWrite, refused } from './writes.js';

export const rendered = (status: number, document: ReturnType<typeof singleDocument>) =>
  respond(status, document, status === 201 ? { location: document.data.links.self } : {});
export const invoice =
  (r: Rendering, status: number) =>
  ({ invoice, lineIds }: InvoiceWithLines) =>
    rendered(status, singleDocument(invoiceResource(invoice, lineIds, r)));
export const id = (rc: RequestContext) => Number(rc.params.id);

/** The body is optional: none, or an invoice document with send_email (data.id may be left out, as the API reference shows it). */
export function finalise(rc: RequestContext): MaybePromise<ApiResponse> {
  if (rc.body === undefined || rc.body.trim() === '')
    return bodiless(
      rc,
      () => finaliseInvoice(rc.core, id(rc)),
      (r) => invoice(r, 200),
    );
  const request = readWrite(rc, 'invoice', rc.params.id, true);
  if (refused(request)) return request;
  return andThen(finaliseInvoice(rc.core, id(rc), request.document.attributes), (result) =>
    unwrap(result, request.document.original, invoice(request.rendering, 200)),
  );
}
