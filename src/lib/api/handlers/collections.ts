// GET /collections, /collections/{id} and /bank-reports[/{id}] (reads), and GET
// /collections/{id}/file: extensions of this implementation, for collecting by SEPA Direct Debit.
import { getBankReport, listBankReports, listCollections, viewOf } from '../../core/collections.js';
import type { Unit } from '../../store/unit.js';
import {
  bankReportResource,
  collectionDocument,
  collectionResource,
  singleDocument,
  type Rendering,
} from '../documents.js';
import { simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { collectionQuery, type GetQuery } from '../query.js';
import { idParam, respond, withQuery, type RequestContext } from './context.js';

const LIST = collectionQuery({ include: [], filter: {}, sort: [] });

export const list = (rc: RequestContext): Unit<ApiResponse> =>
  withQuery(rc, LIST, function* (rc: RequestContext, query: GetQuery, r: Rendering) {
    const page = yield* listCollections(rc.core, query.page);
    return respond(
      200,
      collectionDocument(
        r,
        '/collections',
        query,
        page,
        page.rows.map((view) => collectionResource(view, r)),
      ),
    );
  });

export const get = (rc: RequestContext): Unit<ApiResponse> =>
  withQuery(rc, [], function* (rc: RequestContext, _query: GetQuery, r: Rendering) {
    const view = yield* viewOf(rc.core, idParam(rc));
    return view
      ? respond(200, singleDocument(collectionResource(view, r)))
      : simpleError(404, `no collection with id ${idParam(rc)}`);
  });

export const reports = (rc: RequestContext): Unit<ApiResponse> =>
  withQuery(rc, LIST, function* (rc: RequestContext, query: GetQuery, r: Rendering) {
    const page = yield* listBankReports(rc.core, query.page);
    return respond(
      200,
      collectionDocument(
        r,
        '/bank-reports',
        query,
        page,
        page.rows.map((row) => bankReportResource(row, r)),
      ),
    );
  });

export const report = (rc: RequestContext): Unit<ApiResponse> =>
  withQuery(rc, [], function* (rc: RequestContext, _query: GetQuery, r: Rendering) {
    const found = yield* getBankReport(rc.core, idParam(rc));
    return found.ok
      ? respond(200, singleDocument(bankReportResource(found.value, r)))
      : simpleError(404, `no bank report with id ${idParam(rc)}`);
  });
