// POST /collections, PATCH /collections/{id}, GET /collections/{id}/file (an export is a write: it
// marks the batch exported) and POST /bank-reports. Loaded only when one of them is asked for.
import { DEFAULT_PAIN008_FORMAT, exportCollection, PAIN008_FORMATS } from '../../core/collection-file.js';
import { createCollection, updateCollection } from '../../core/collection-writes.js';
import type { Pain008Format } from '../../sepa/pain008.js';
import { midnight } from '../../core/schedule.js';
import { formatInstant } from '../../core/time.js';
import { formatAmount } from '../../schemas/money.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { bankReportResource, collectionResource, singleDocument } from '../documents.js';
import { failureResponse, simpleError } from '../errors.js';
import { XML_TYPES, type ApiResponse } from '../http.js';
import { idParam, respond, unwrap, type RequestContext } from './context.js';
import { readWrite, refused } from './writes.js';

/** 201 with the batch, or 200 without one when nothing could go in; either way meta.left_out lists what was left out, and why. */
export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'collection');
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(createCollection(rc.core, document.attributes), (result) =>
    unwrap(result, document.original, (made) => {
      const tz = rendering.timeZone;
      const meta = {
        until: formatInstant(midnight(made.until, tz), tz),
        left_out: made.leftOut.map((t) => ({
          transaction_id: t.transaction_id,
          subscription_id: String(t.subscription_id),
          due_date: formatInstant(t.due_date, tz),
          amount: formatAmount(t.amount_cents),
          reason: t.reason,
        })),
      };
      if (!made.collection) return respond(200, { data: null, meta });
      const answer = { ...singleDocument(collectionResource(made.collection, rendering)), meta };
      return respond(201, answer, { location: answer.data.links.self });
    }),
  );
}

/** PATCH with status cancelled: the only change a batch takes. */
export function update(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'collection', rc.params.id);
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(updateCollection(rc.core, idParam(rc), document.attributes), (result) =>
    unwrap(result, document.original, (view) => respond(200, singleDocument(collectionResource(view, rendering)))),
  );
}

/** The query of GET /collections/{id}/file: format=pain.008.001.02 (the default) or pain.008.001.08, nothing else. */
function formatOf(query: string | undefined): Pain008Format | ApiResponse {
  let format: Pain008Format = DEFAULT_PAIN008_FORMAT;
  for (const [key, value] of new URLSearchParams(query ?? '')) {
    if (key !== 'format')
      return failureResponse(
        {
          kind: 'invalid_parameter',
          parameter: key,
          detail: `"${key}" is not a parameter of a collection's file; it takes format`,
        },
        null,
      );
    if (!(PAIN008_FORMATS as readonly string[]).includes(value))
      return failureResponse(
        {
          kind: 'invalid_parameter',
          parameter: 'format',
          detail: `format must be ${PAIN008_FORMATS.join(' or ')}, not "${value}"`,
        },
        null,
      );
    format = value as Pain008Format;
  }
  return format;
}

/** The batch's pain.008 file (application/xml), streamed; exporting an open batch marks it exported first. */
export async function file(rc: RequestContext): Promise<ApiResponse> {
  const format = formatOf(rc.query);
  if (typeof format !== 'string') return format;
  const result = await exportCollection(rc.core, idParam(rc), format);
  if (!result.ok) return failureResponse(result.failure, null);
  const { batch, pipe } = result.value;
  return {
    status: 200,
    headers: {
      'content-type': 'application/xml; charset=utf-8',
      'content-disposition': `attachment; filename="${batch.message_id}.xml"`,
    },
    pipe,
  };
}

/** POST /bank-reports: the report's XML as the body; 201 with what it came to, 200 when the same file was imported before. */
export async function importReport(rc: RequestContext): Promise<ApiResponse> {
  const upload = rc.upload;
  if (!upload) return simpleError(415, 'a bank report is sent as its XML file (Content-Type: application/xml)');
  if (!XML_TYPES.has(upload.contentType))
    return simpleError(415, `a bank report is sent as application/xml, not ${upload.contentType}`);
  // The report readers (and their XML parser) load only for an import.
  const { importBankReport } = await import('../../core/bank-reports.js');
  const result = await importBankReport(rc.core, upload.body);
  if (!result.ok) return failureResponse(result.failure, null);
  const r = { baseUrl: rc.baseUrl, timeZone: rc.core.account.time_zone };
  const { report, already } = result.value;
  const document = singleDocument(bankReportResource(report, r));
  if (already) return respond(200, { ...document, meta: { already_imported: true } });
  return respond(201, document, { location: document.data.links.self });
}
