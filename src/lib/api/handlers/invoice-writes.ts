// Writes of invoices and invoice lines. Loaded only when a request writes.
import { creditInvoice, createInvoice, deleteInvoice, finaliseInvoice, payInvoice, updateInvoice, type InvoiceWithLines } from '../../core/invoice-writes.js';
import { createLine, deleteLine, updateLine } from '../../core/line-writes.js';
import type { InvoiceLine } from '../../core/invoices.js';
import type { Result } from '../../core/result.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { invoiceResource, lineResource, singleDocument, type Rendering } from '../documents.js';
import { failureResponse } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { parseGetQuery } from '../query.js';
import { respond, unwrap, type RequestContext } from './context.js';
import { readWrite, refused } from './writes.js';

const rendered = (status: number, document: ReturnType<typeof singleDocument>) => respond(status, document, status === 201 ? { location: document.data.links.self } : {});
const invoice = (r: Rendering, status: number) => ({ invoice, lineIds }: InvoiceWithLines) => rendered(status, singleDocument(invoiceResource(invoice, lineIds, r)));
const line = (r: Rendering, status: number) => (row: InvoiceLine) => rendered(status, singleDocument(lineResource(row, r)));
const id = (rc: RequestContext) => Number(rc.params.id);

/** A write without a document (finalise without a body, credit, pay, delete): only fields[...] may be asked. */
function bodiless<T>(rc: RequestContext, write: () => MaybePromise<Result<T>>, answer: (r: Rendering) => (value: T) => ApiResponse): MaybePromise<ApiResponse> {
  const query = parseGetQuery(rc.query, []);
  if (!query.ok) return failureResponse(query.failure, null);
  const r: Rendering = { baseUrl: rc.baseUrl, timeZone: rc.core.account.time_zone, fields: query.value.fields };
  return andThen(write(), (result) => unwrap(result, null, answer(r)));
}

const noContent = () => (): ApiResponse => ({ status: 204, headers: {} });

export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'invoice');
  if (refused(request)) return request;
  return andThen(createInvoice(rc.core, request.document.attributes), (result) => unwrap(result, request.document.original, invoice(request.rendering, 201)));
}

export function update(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'invoice', rc.params.id);
  if (refused(request)) return request;
  return andThen(updateInvoice(rc.core, id(rc), request.document.attributes), (result) => unwrap(result, request.document.original, invoice(request.rendering, 200)));
}

/** The body is optional: none, or an invoice document with send_email. */
export function finalise(rc: RequestContext): MaybePromise<ApiResponse> {
  if (rc.body === undefined || rc.body.trim() === '') return bodiless(rc, () => finaliseInvoice(rc.core, id(rc)), (r) => invoice(r, 200));
  const request = readWrite(rc, 'invoice', rc.params.id);
  if (refused(request)) return request;
  return andThen(finaliseInvoice(rc.core, id(rc), request.document.attributes), (result) => unwrap(result, request.document.original, invoice(request.rendering, 200)));
}

export const credit = (rc: RequestContext) => bodiless(rc, () => creditInvoice(rc.core, id(rc)), (r) => invoice(r, 200));
export const pay = (rc: RequestContext) => bodiless(rc, () => payInvoice(rc.core, id(rc)), (r) => invoice(r, 200));
export const remove = (rc: RequestContext) => bodiless(rc, () => deleteInvoice(rc.core, id(rc)), noContent);

export function createInvoiceLine(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'invoice-line');
  if (refused(request)) return request;
  return andThen(createLine(rc.core, request.document.attributes), (result) => unwrap(result, request.document.original, line(request.rendering, 201)));
}

export function updateInvoiceLine(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'invoice-line', rc.params.id);
  if (refused(request)) return request;
  return andThen(updateLine(rc.core, id(rc), request.document.attributes), (result) => unwrap(result, request.document.original, line(request.rendering, 200)));
}

export const removeInvoiceLine = (rc: RequestContext) => bodiless(rc, () => deleteLine(rc.core, id(rc)), noContent);
