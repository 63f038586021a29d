// Writes of invoices and invoice lines. Loaded only when a request writes.
import { creditInvoice, createInvoice, deleteInvoice, payInvoice, updateInvoice } from '../../core/invoice-writes.js';
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

export const credit = (rc: RequestContext) =>
  bodiless(
    rc,
    () => creditInvoice(rc.core, id(rc)),
    (r) => invoice(r, 200),
  );
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
