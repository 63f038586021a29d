// GET /reports/{name}: an extension of this implementation. The figures of one report over
// filter[from], filter[to] (days, in the account's time zone) and filter[by] (month, quarter or
// year), as one document whose meta holds the rows (reportDocument).
import { prepareReport } from '../../core/reports/index.js';
import { GRAINS, REPORT_NAMES, type ReportName } from '../../schemas/reports.js';
import type { Unit } from '../../store/unit.js';
import { reportDocument, type Rendering } from '../documents.js';
import { failureResponse, simpleError } from '../errors.js';
import type { ApiResponse } from '../http.js';
import { collectionQuery, DAY_FILTER, filtersOf, oneOf, pageUrl, type GetQuery } from '../query.js';
import { answered, respond, withQuery, type RequestContext } from './context.js';

const QUERY = collectionQuery({
  include: [],
  filter: { from: DAY_FILTER, to: DAY_FILTER, by: oneOf(GRAINS) },
  sort: [],
  keyset: false,
  resources: false,
});

export const report = (rc: RequestContext): Unit<ApiResponse> => {
  const name = rc.params.name as ReportName;
  if (!REPORT_NAMES.includes(name))
    return answered(
      simpleError(404, `no report named "${rc.params.name}"; the reports are ${REPORT_NAMES.join(', ')}`),
    );
  return withQuery(rc, QUERY, reading);
};

function* reading(rc: RequestContext, query: GetQuery, r: Rendering): Unit<ApiResponse> {
  const name = rc.params.name as ReportName;
  const prepared = prepareReport(rc.core, name, filtersOf(query, QUERY));
  if (!prepared.ok) return failureResponse(prepared.failure, null);
  return respond(200, reportDocument(yield* prepared.value(), pageUrl(r.baseUrl, `/reports/${name}`, query), r));
}
