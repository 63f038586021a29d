// Writes of invoices and invoice lines. Loaded only when a request writes.
import {
  creditInvoice,
  createInvoice,
  deleteInvoice,
  markRefunded,
  payInvoice,
  updateInvoice,
  type InvoiceWithLines,
} from '../../core/invoice-writes.js';
import type { Result } from '../../core/result.js';
import { createLine, deleteLine, updateLine } from '../../core/line-writes.js';
import type { InvoiceLine } from '../../core/invoices.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { lineResource, singleDocument, type Rendering } from '../documents.js';
import type { ApiResponse } from '../http.js';
import { noContent, unwrap, type RequestContext } from './context.js';
import { id, invoice, rendered } from './invoice-finalise.js';
import { bodiless, readWrite, refused } from './writes.js';

const line = (r: Rendering, status: number) => (row: InvoiceLine) =>
  rendered(status, singleDocument(lineResource(row, r)));

export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'invoice');
  if (refused(request)) return request;
  return andThen(createInvoice(rc.core, request.document.attributes), (result) =>
    unwrap(result, request.document.original, invoice(request.rendering, 201)),
  );
}

export function update(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'invoice', rc.params.id);
  if (refused(request)) return request;
  return andThen(updateInvoice(rc.core, id(rc), request.document.attributes), (result) =>
    unwrap(result, request.document.original, invoice(request.rendering, 200)),
  );
}

/** A write whose body is optional (an invoice document; data.id may be left out, as finalise's). */
function optionalBody(
  rc: RequestContext,
  write: (attributes?: Record<string, unknown>) => MaybePromise<Result<InvoiceWithLines>>,
): MaybePromise<ApiResponse> {
  if (rc.body === undefined || rc.body.trim() === '')
    return bodiless(
      rc,
      () => write(),
      (r) => invoice(r, 200),
    );
  const request = readWrite(rc, 'invoice', rc.params.id, true);
  if (refused(request)) return request;
  return andThen(write(request.document.attributes), (result) =>
    unwrap(result, request.document.original, invoice(request.rendering, 200)),
  );
}

/** No body: every line, with what is left of it; {"lines": [{"line_id", "quantity"}]}: those. */
export const credit = (rc: RequestContext) =>
  optionalBody(rc, (attributes) => creditInvoice(rc.core, id(rc), attributes));
/** No body: refunded today; {"refunded_on": date}: that day. */
export const refunded = (rc: RequestContext) =>
  optionalBody(rc, (attributes) => markRefunded(rc.core, id(rc), attributes));
export const pay = (rc: RequestContext) =>
  bodiless(
    rc,
    () => payInvoice(rc.core, id(rc)),
    (r) => invoice(r, 200),
  );
export const remove = (rc: RequestContext) =>
  bodiless(
    rc,
    () => deleteInvoice(rc.core, id(rc)),
    () => noContent,
  );

export function createInvoiceLine(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'invoice-line');
  if (refused(request)) return request;
  return andThen(createLine(rc.core, request.document.attributes), (result) =>
    unwrap(result, request.document.original, line(request.rendering, 201)),
  );
}

export function updateInvoiceLine(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'invoice-line', rc.params.id);
  if (refused(request)) return request;
  return andThen(updateLine(rc.core, id(rc), request.document.attributes), (result) =>
    unwrap(result, request.document.original, line(request.rendering, 200)),
  );
}

export const removeInvoiceLine = (rc: RequestContext) =>
  bodiless(
    rc,
    () => deleteLine(rc.core, id(rc)),
    () => noContent,
  );
