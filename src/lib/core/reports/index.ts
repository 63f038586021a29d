// The reports, one use case each: every figure is computed from the store in grouped SQL reads (no
// row is loaded one by one), in the account's time zone, by the store's clock. The definitions of
// the figures are at each report's function, and for people in docs/reports.md.
import type { Grain, ReportName } from '../../schemas/reports.js';
import type { Unit } from '../../store/unit.js';
import { nowIso, type CoreContext } from '../context.js';
import { fail, ok, type Result } from '../result.js';
import { dayAt } from '../schedule.js';
import { collectionsReport } from './collections.js';
import { overdueReport, revenueReport, vatReport } from './invoices.js';
import { resolveRange, type RangeInput } from './range.js';
import type { ReportRows } from './rows.js';
import { mrrReport, subscriptionsReport } from './subscriptions.js';

export type { ReportRows, Row } from './rows.js';
export { monthlyCents } from './subscriptions.js';

export interface Report {
  name: ReportName;
  /** The days asked for (local days); overdue, as of now, has no from and no periods. */
  from: string | null;
  to: string;
  by: Grain | null;
  /** The store's clock when the report was made (UTC). */
  asOf: string;
  rows: ReportRows;
}

const OVER_PERIODS = {
  mrr: mrrReport,
  subscriptions: subscriptionsReport,
  collections: collectionsReport,
  revenue: revenueReport,
  vat: vatReport,
} as const;

/**
 * A report, checked first (a bad range is a failure, before anything is read): the unit that reads
 * it, to run in one read snapshot so its figures agree with each other.
 */
export function prepareReport(ctx: CoreContext, name: ReportName, input: RangeInput): Result<() => Unit<Report>> {
  const now = nowIso(ctx);
  const zone = ctx.account.time_zone;
  const accountId = ctx.account.id;
  if (name === 'overdue') {
    const given = (['from', 'to', 'by'] as const).find((key) => input[key] !== undefined);
    if (given)
      return fail({
        kind: 'invalid_parameter',
        parameter: `filter[${given}]`,
        detail: `the overdue report is as of now: it takes no filter[${given}]`,
      });
    return ok(function* () {
      return {
        name,
        from: null,
        to: dayAt(now, zone),
        by: null,
        asOf: now,
        rows: yield* overdueReport(accountId, now, zone),
      };
    });
  }
  const range = resolveRange(input, now, zone);
  if (!range.ok) return range;
  const { from, to, by } = range.value;
  return ok(function* () {
    return { name, from, to, by, asOf: now, rows: yield* OVER_PERIODS[name](accountId, range.value) };
  });
}
