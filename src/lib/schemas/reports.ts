// The reports: their names, the columns of their tables and what each column holds. One source for
// the API (which writes the values), the command line (headers, alignment, the chart's figure) and
// the HTML page. Kept free of zod: the read path uses it.

export const REPORT_NAMES = ['mrr', 'subscriptions', 'collections', 'revenue', 'vat', 'overdue'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

export const GRAINS = ['month', 'quarter', 'year'] as const;
export type Grain = (typeof GRAINS)[number];

/**
 * What a column holds, and how the API writes it: money as a decimal string with two places, a
 * count as an integer, a rate (a share) as a decimal string with four places, a tax rate in percent
 * as a decimal string with two places, days as an integer, text as it is.
 */
export type ColumnKind = 'text' | 'money' | 'count' | 'rate' | 'percent' | 'days';

export interface ReportColumn {
  name: string;
  kind: ColumnKind;
  /** The header people read (tables, the page). */
  header: string;
  /** 0 is needed most; on a narrow terminal the highest goes first. */
  priority: number;
}

export interface ReportTable {
  /** Where the rows are in the documents: `data` (the main table), or a named list beside it. */
  name: 'data' | 'reasons' | 'customers';
  title: string;
  columns: readonly ReportColumn[];
  /** The column whose values are drawn in the chart (the main table only). */
  figure?: string;
}

export interface ReportSpec {
  name: ReportName;
  title: string;
  /** One line: what it answers. */
  summary: string;
  /** Whether the report is over periods (--from, --to, --by); overdue is as of now. */
  periods: boolean;
  tables: readonly ReportTable[];
}

const col = (name: string, kind: ColumnKind, header: string, priority = 1): ReportColumn => ({
  name,
  kind,
  header,
  priority,
});
const PERIOD = col('period', 'text', 'period', 0);

export const REPORTS: Readonly<Record<ReportName, ReportSpec>> = {
  mrr: {
    name: 'mrr',
    title: 'Monthly recurring revenue',
    summary: 'monthly recurring revenue at the end of each period, and what moved it',
    periods: true,
    tables: [
      {
        name: 'data',
        title: 'MRR at each period end',
        figure: 'mrr',
        columns: [
          PERIOD,
          col('mrr', 'money', 'MRR', 0),
          col('new', 'money', 'new', 1),
          col('reactivated', 'money', 'resumed', 3),
          col('paused', 'money', 'paused', 2),
          col('churned', 'money', 'churned', 1),
          col('repriced', 'money', 'repriced', 4),
          col('net', 'money', 'net change', 0),
          col('active', 'count', 'active', 2),
        ],
      },
    ],
  },
  subscriptions: {
    name: 'subscriptions',
    title: 'Subscriptions',
    summary: 'subscriptions by status at the end of each period, new, paused and cancelled ones, and churn',
    periods: true,
    tables: [
      {
        name: 'data',
        title: 'Subscriptions by status at each period end, and their moves',
        figure: 'active',
        columns: [
          PERIOD,
          col('active', 'count', 'active', 0),
          col('paused', 'count', 'paused', 1),
          col('unverified', 'count', 'unverified', 3),
          col('cancelled', 'count', 'cancelled', 3),
          col('new', 'count', 'new', 1),
          col('paused_in_period', 'count', 'paused in', 2),
          col('cancelled_in_period', 'count', 'cancelled in', 1),
          col('churned', 'count', 'churned', 2),
          col('churn_rate', 'rate', 'churn rate', 0),
        ],
      },
    ],
  },
  collections: {
    name: 'collections',
    title: 'Collections',
    summary: 'what collections brought in, what came back and why, and what storno retries recovered',
    periods: true,
    tables: [
      {
        name: 'data',
        title: 'Collections in each period',
        figure: 'net',
        columns: [
          PERIOD,
          col('collected', 'money', 'collected', 0),
          col('collected_count', 'count', 'n', 2),
          col('returned', 'money', 'returned', 0),
          col('returned_count', 'count', 'n', 3),
          col('failed', 'money', 'failed', 1),
          col('failed_count', 'count', 'n', 3),
          col('net', 'money', 'net', 0),
          col('success_rate', 'rate', 'success', 1),
          col('recovered', 'money', 'recovered', 2),
          col('recovered_count', 'count', 'n', 4),
        ],
      },
      {
        name: 'reasons',
        title: 'Returns and failures by SEPA reason code',
        columns: [
          col('reason_code', 'text', 'code', 0),
          col('reason', 'text', 'reason', 2),
          col('returned_count', 'count', 'returns', 0),
          col('returned', 'money', 'returned', 0),
          col('failed_count', 'count', 'failures', 1),
          col('failed', 'money', 'failed', 1),
        ],
      },
    ],
  },
  revenue: {
    name: 'revenue',
    title: 'Revenue',
    summary: 'finalised invoices by invoice date, credits apart, and the net',
    periods: true,
    tables: [
      {
        name: 'data',
        title: 'Finalised invoices by invoice date',
        figure: 'net_excl',
        columns: [
          PERIOD,
          col('invoices', 'count', 'invoices', 2),
          col('invoiced_excl', 'money', 'invoiced excl', 1),
          col('invoiced_tax', 'money', 'tax', 4),
          col('invoiced_incl', 'money', 'invoiced incl', 3),
          col('credit_invoices', 'count', 'credits', 3),
          col('credited_excl', 'money', 'credited excl', 1),
          col('credited_tax', 'money', 'tax', 4),
          col('credited_incl', 'money', 'credited incl', 3),
          col('net_excl', 'money', 'net excl', 0),
          col('net_tax', 'money', 'net tax', 2),
          col('net_incl', 'money', 'net incl', 0),
        ],
      },
    ],
  },
  vat: {
    name: 'vat',
    title: 'VAT',
    summary: 'the taxable base and the tax per tax rate, per period (--quarter for a VAT return)',
    periods: true,
    tables: [
      {
        name: 'data',
        title: 'Taxable base and tax per rate',
        figure: 'tax',
        columns: [
          PERIOD,
          col('rate', 'percent', 'rate %', 0),
          col('base', 'money', 'taxable base', 0),
          col('tax', 'money', 'tax', 0),
          col('invoices', 'count', 'invoices', 1),
        ],
      },
    ],
  },
  overdue: {
    name: 'overdue',
    title: 'Overdue invoices',
    summary: 'open and charged-back invoices by age, and the customers owing most',
    periods: false,
    tables: [
      {
        name: 'data',
        title: 'Owed, by days past the transaction date',
        figure: 'amount',
        columns: [
          col('bucket', 'text', 'days past', 0),
          col('invoices', 'count', 'invoices', 0),
          col('amount', 'money', 'owed', 0),
          col('customers', 'count', 'customers', 1),
        ],
      },
      {
        name: 'customers',
        title: 'Customers owing most',
        columns: [
          col('customer_id', 'text', 'customer', 0),
          col('name', 'text', 'name', 1),
          col('invoices', 'count', 'invoices', 1),
          col('amount', 'money', 'owed', 0),
          col('oldest_days', 'days', 'oldest (days)', 0),
        ],
      },
    ],
  },
};

/** The age buckets of overdue invoices, youngest first: days past the transaction date (or invoice date). */
export const AGE_BUCKETS = [
  { bucket: 'not-due', from: -Infinity, to: -1 },
  { bucket: '0-30', from: 0, to: 30 },
  { bucket: '31-60', from: 31, to: 60 },
  { bucket: '61-90', from: 61, to: 90 },
  { bucket: '91+', from: 91, to: Infinity },
] as const;

/** How many customers the overdue report names. */
export const TOP_CUSTOMERS = 10;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether text is a real calendar day, YYYY-MM-DD. */
export function isDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

export const DAY_MESSAGE = 'must be a day, YYYY-MM-DD (2027-01-31)';

/** `2027-Q1` as its first and last day; undefined when the text is not a quarter. */
export function quarterDays(text: string): { from: string; to: string } | undefined {
  const match = /^(\d{4})-Q([1-4])$/i.exec(text.trim());
  if (!match) return undefined;
  const quarter = Number(match[2]);
  const first = `${match[1]}-${String(quarter * 3 - 2).padStart(2, '0')}-01`;
  const lastMonth = quarter * 3;
  const lastDay = new Date(Date.UTC(Number(match[1]), lastMonth, 0)).getUTCDate();
  return { from: first, to: `${match[1]}-${String(lastMonth).padStart(2, '0')}-${lastDay}` };
}

export const QUARTER_MESSAGE = 'must be a quarter, YYYY-Qn (2027-Q1)';

/** A share in ten-thousandths as the API writes it: 525 is "0.0525", 10000 is "1.0000". */
export function formatShare(tenThousandths: number): string {
  const sign = tenThousandths < 0 ? '-' : '';
  const abs = Math.abs(tenThousandths);
  return `${sign}${Math.floor(abs / 10_000)}.${String(abs % 10_000).padStart(4, '0')}`;
}
