// billing reports NAME: a report read through the transport (GET /reports/NAME), so it is the same
// in embedded and remote mode; shown as a table and a chart on a terminal, TSV without one, the
// report document with --json, its rows with -o csv|ndjson, or a self-contained page with --html.
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import { examples, prose, type Invoke, type VerbModule } from '../../lib/command/registry.js';
import { send } from '../../lib/command/resource.js';
import { renderPlain } from '../../lib/output/render.js';
import { viewOf } from '../../lib/output/view.js';
import {
  DAY_MESSAGE,
  GRAINS,
  isDay,
  quarterDays,
  QUARTER_MESSAGE,
  REPORT_NAMES,
  REPORTS,
  type ReportName,
} from '../../lib/schemas/reports.js';
import { reportView, terminalReport, type ReportView } from './view.js';

export interface ReportOptions {
  from?: string;
  to?: string;
  by?: string;
  quarter?: string;
  html?: string;
}

/** The flags as the API's parameters; a bad value is a usage error (exit 2), found before anything is sent. */
export function rangeQuery(opts: ReportOptions): Record<string, string | undefined> {
  for (const flag of ['from', 'to'] as const) {
    const value = opts[flag]?.trim();
    if (value !== undefined && !isDay(value)) throw new UsageError(`--${flag} ${DAY_MESSAGE}, not "${opts[flag]}"`);
  }
  if (opts.by !== undefined && !(GRAINS as readonly string[]).includes(opts.by.trim()))
    throw new UsageError(`--by must be one of ${GRAINS.join(', ')}, not "${opts.by}"`);
  let { from, to, by } = { from: opts.from?.trim(), to: opts.to?.trim(), by: opts.by?.trim() };
  if (opts.quarter !== undefined) {
    const given = (['from', 'to', 'by'] as const).filter((flag) => opts[flag] !== undefined);
    if (given.length) throw new UsageError(`--quarter is a range of its own: give it without --${given.join(', --')}`);
    const days = quarterDays(opts.quarter);
    if (!days) throw new UsageError(`--quarter ${QUARTER_MESSAGE}, not "${opts.quarter}"`);
    ({ from, to } = days);
    by = 'quarter';
  }
  if (from !== undefined && to !== undefined && from > to)
    throw new UsageError(`--from (${from}) must be on or before --to (${to})`);
  return { 'filter[from]': from, 'filter[to]': to, 'filter[by]': by };
}

/** One report through the transport, as its view. */
export async function readReport(
  deps: Deps,
  name: ReportName,
  query: Record<string, string | undefined>,
): Promise<ReportView> {
  return reportView(
    (await send(deps, { method: 'GET', path: `/reports/${name}`, query: REPORTS[name].periods ? query : {} })).body,
  );
}

export async function run(name: ReportName | 'all', opts: ReportOptions, deps: Deps): Promise<void> {
  const { globals, io } = deps;
  const query = rangeQuery(opts);
  const names = name === 'all' ? [...REPORT_NAMES] : [name];
  if (opts.html === undefined && names.length > 1 && (globals.outputExplicit || globals.query !== undefined)) {
    throw new UsageError(
      'billing reports all prints tables, or one page with --html FILE; ' +
        'for --json, -o csv|ndjson or --query, name one report',
    );
  }
  const views: ReportView[] = [];
  for (const each of names) views.push(await readReport(deps, each, query));
  if (opts.html !== undefined) {
    const { reportPage } = await import('./page.js');
    const page = await reportPage(views);
    if (opts.html === '-') io.out(page);
    else {
      await writeFile(opts.html, page);
      if (!globals.quiet) io.err(`wrote ${opts.html} (${views.map((v) => v.meta.report).join(', ')})\n`);
    }
    return;
  }
  if (views.length === 1 && (globals.query !== undefined || globals.output === 'json')) {
    return renderPlain(views[0] as unknown as Record<string, unknown>, globals, io, () => Promise.resolve(''));
  }
  if (views.length === 1 && globals.output !== 'table')
    return renderPlain(views[0].data, globals, io, () => Promise.resolve(''));
  const view = viewOf(globals, io);
  const texts: string[] = [];
  for (const each of views) texts.push(await terminalReport(each, view, views.length > 1));
  io.out(texts.join('\n'));
}

/** Help paragraphs are written in parts, joined with a space. */
const text = (...parts: string[]): string => parts.join(' ');

const RANGE_HELP = text(
  "Periods are calendar months, quarters or years in the account's time zone, cut to --from and --to",
  "(default: the last 12 months, by month, up to today); a figure at a period's end is taken at the end",
  'of its last day, or now for the current period. Money is exact, in euro.',
);

export function verb(name: ReportName | 'all'): VerbModule {
  return {
    configure(cmd: Command, invoke: Invoke) {
      const periods = name === 'all' || REPORTS[name].periods;
      if (periods) {
        cmd
          .option('--from <day>', 'first day, YYYY-MM-DD (default: the start of the period 11 months back)')
          .option('--to <day>', 'last day, YYYY-MM-DD (default: today)')
          .option('--by <period>', `one row per ${GRAINS.join(', ')} (default: month)`)
          .option('--quarter <quarter>', 'one quarter, YYYY-Qn: --from, --to and --by quarter at once (a VAT return)');
      }
      cmd.option('--html <file>', 'write a self-contained HTML page with charts instead (- for stdout)');
      const all = text(
        `Every report (${REPORT_NAMES.join(', ')}), one after the other; the range applies to all but overdue,`,
        `which is as of now. ${RANGE_HELP}`,
      );
      cmd.addHelpText('after', prose(name === 'all' ? all : helpOf(name)));
      cmd.addHelpText('after', examples(...EXAMPLES[name]));
      cmd.action((opts: ReportOptions, command: Command) => invoke(command, (deps) => run(name, opts, deps)));
    },
  };
}

const helpOf = (name: ReportName): string => {
  const second = REPORTS[name].tables[1];
  return text(
    HELP[name],
    ...(REPORTS[name].periods ? [RANGE_HELP] : []),
    'On a terminal: a table and a chart; without one, tab-separated lines; --json prints',
    '{"meta": {"report", "from", "to", "by", "time_zone", "as_of"},',
    `"data": [rows]${second ? `, "${second.name}": [rows]` : ''}},`,
    '-o csv the rows of data. The definitions of every figure: docs/reports.md.',
  );
};

const HELP: Record<ReportName, string> = {
  mrr: text(
    "Monthly recurring revenue at the end of each period: the active subscriptions' plan amounts normalised",
    'to a month (weekly x 52/12, quarterly / 3, half-yearly / 6, yearly / 12; plans collected once are left',
    'out), each rounded to the cent. Then what moved it in the period: new (first activated), resumed,',
    'paused, churned (cancelled while active), repriced (plan amounts changed), and the net change.',
  ),
  subscriptions: text(
    'Subscriptions by status at the end of each period; new ones (made), paused and cancelled ones in the',
    'period; churned (cancelled after being active or paused) and the churn rate: churned / active at the',
    "period's start.",
  ),
  collections: text(
    'Per period: collected (attempts that succeeded), returned (collected money charged back or failed',
    'later, in the period of the return), failed (attempts that failed at collection), net = collected -',
    'returned, the success rate (collected / (collected + failed), by count) and what storno retries',
    'recovered. Then the returns and failures of the whole range by SEPA reason code, with their texts.',
  ),
  revenue: text(
    'Finalised invoices by invoice date: invoiced and credited (credit invoices, apart) excluding tax,',
    'the tax and including tax, and the net.',
  ),
  vat: text(
    'Per period and tax rate, of the finalised invoices dated in it (credits included): the taxable base',
    "and the tax, summed from the invoice lines as the invoices' own totals are, so it reconciles with",
    'their tax_rates to the cent. --quarter 2027-Q1 gives one quarter: the shape of a Dutch or Belgian VAT return.',
  ),
  overdue: text(
    'Open and charged-back invoices as of now, by days past their transaction date (their invoice date',
    'when they have none): not yet due, 0-30, 31-60, 61-90 and 91 or more; what each owes is its total less',
    'its finalised credit invoices. Then the customers owing most on invoices due by today.',
  ),
};

const EXAMPLES: Record<ReportName | 'all', string[]> = {
  mrr: [
    'billing reports mrr',
    'billing reports mrr --from 2026-01-01 --by quarter',
    'billing reports mrr --json --query "data[-1].mrr"',
  ],
  subscriptions: [
    'billing reports subscriptions',
    'billing reports subscriptions --by year --from 2024-01-01',
    'billing reports subscriptions -o csv > subscriptions.csv',
  ],
  collections: [
    'billing reports collections',
    'billing reports collections --quarter 2027-Q1',
    'billing reports collections --json --query reasons',
  ],
  revenue: [
    'billing reports revenue',
    'billing reports revenue --by year --from 2025-01-01',
    'billing reports revenue --html revenue.html',
  ],
  vat: [
    'billing reports vat --quarter 2027-Q1',
    'billing reports vat --from 2027-01-01 --to 2027-12-31 --by year',
    'billing reports vat --quarter 2027-Q1 -o csv',
  ],
  overdue: [
    'billing reports overdue',
    'billing reports overdue --json --query customers',
    'billing reports overdue --html overdue.html',
  ],
  all: [
    'billing reports all',
    'billing reports all --html reports.html',
    'billing reports all --quarter 2027-Q1 --html q1.html',
  ],
};
