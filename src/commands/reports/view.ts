// A report as the command line shows it: the API's document (rows in meta) as the report document
// people and scripts get ({meta, data, and reasons or customers}); on a terminal a table and a
// chart of its main figure that fit the width; without one, tab-separated rows as the API wrote them.
import { ProtocolError } from '../../lib/transport/types.js';
import { formatMoney, oneLine } from '../../lib/output/format.js';
import { gridTable } from '../../lib/output/table.js';
import { displayWidth, pad, wrap } from '../../lib/output/text.js';
import { terminalWidth, type View } from '../../lib/output/view.js';
import { parseAmount } from '../../lib/schemas/money.js';
import {
  REPORT_NAMES,
  REPORTS,
  type ColumnKind,
  type ReportName,
  type ReportTable,
} from '../../lib/schemas/reports.js';

export type Row = Record<string, string | number | null>;

export interface ReportMeta {
  report: ReportName;
  from: string | null;
  to: string;
  by: string | null;
  time_zone: string;
  as_of: string;
}

/** What `billing reports NAME --json` prints. */
export interface ReportView {
  meta: ReportMeta;
  data: Row[];
  reasons?: Row[];
  customers?: Row[];
}

/** The report document of an API answer (GET /reports/NAME). */
export function reportView(body: unknown): ReportView {
  const meta = (body as { meta?: Record<string, unknown> } | undefined)?.meta;
  const name = meta?.report as ReportName;
  if (!meta || !REPORT_NAMES.includes(name) || !Array.isArray(meta.rows))
    throw new ProtocolError('the service answered a report request with something that is not a report document');
  const { rows, reasons, customers, ...rest } = meta;
  const view: ReportView = { meta: rest as unknown as ReportMeta, data: rows as Row[] };
  if (Array.isArray(reasons)) view.reasons = reasons as Row[];
  if (Array.isArray(customers)) view.customers = customers as Row[];
  return view;
}

export const rowsOf = (view: ReportView, table: ReportTable): Row[] =>
  table.name === 'data' ? view.data : (view[table.name] ?? []);

/** A share (`0.1250`) in percent with two places (`12.50%`). */
function percentOf(share: string): string {
  const match = /^(-?)(\d+)\.(\d{4})$/.exec(share);
  if (!match) return share;
  // Ten-thousandths of one are hundredths of a percent.
  const hundredths = Number(match[2]) * 10_000 + Number(match[3]);
  return `${match[1]}${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}%`;
}

/** A value as people read it: money with thousands separators, shares in percent, nothing for none. */
export function shown(kind: ColumnKind, value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (kind === 'money') return formatMoney(String(value)).replace('€ ', '');
  if (kind === 'rate') return percentOf(String(value));
  return String(value);
}

/** The chart's label of a row: its period (and rate), or its group. */
export const labelOf = (row: Row, table: ReportTable): string =>
  [
    table.columns[0].name === 'period' ? row.period : row[table.columns[0].name],
    row.rate === undefined ? undefined : `${row.rate}%`,
  ]
    .filter((v) => v !== undefined && v !== null)
    .join(' ');

/** A figure as a number to draw (cents for money): never used for arithmetic on money. */
export const plotted = (kind: ColumnKind, value: string | number | null | undefined): number =>
  value === null || value === undefined ? 0 : kind === 'money' ? (parseAmount(value) ?? 0) : Number(value);

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar `length` cells long (in eighths of a cell). */
const bar = (length: number): string => {
  const eighths = Math.round(length * 8);
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
};

/**
 * Horizontal bars of one figure, a row per label, fitted to `width` columns: the label, the bar and
 * the value. With negative values, bars grow left of a zero line and positive ones right of it.
 */
export function barChart(labels: string[], values: number[], texts: string[], width: number): string {
  const labelWidth = Math.max(...labels.map(displayWidth));
  const textWidth = Math.max(...texts.map(displayWidth));
  const room = Math.max(10, Math.min(60, width - labelWidth - textWidth - 4));
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const span = high - low || 1;
  const zero = Math.round((room * -low) / span);
  const axis = zero > 0 ? '│' : '';
  return labels
    .map((label, i) => {
      const length = (Math.abs(values[i]) * room) / span;
      // A bar left of the axis is whole cells: the partial blocks fill from the left.
      const drawn =
        values[i] < 0
          ? `${pad('█'.repeat(Math.min(zero, Math.round(length))), zero, 'right')}${axis}`
          : `${' '.repeat(zero)}${axis}${bar(Math.min(length, room - zero))}`;
      return `${pad(label, labelWidth)} ${pad(drawn, room + axis.length)} ${pad(texts[i], textWidth, 'right')}`;
    })
    .join('\n');
}

/** The report's heading: what, over which days, in which zone. */
export function heading(view: ReportView): string {
  const { meta } = view;
  const range = meta.from === null ? `as of ${meta.as_of.slice(0, 10)}` : `${meta.from} to ${meta.to}, by ${meta.by}`;
  const money = REPORTS[meta.report].tables.some((table) => table.columns.some((c) => c.kind === 'money'));
  return `${REPORTS[meta.report].title}: ${range} (${meta.time_zone}${money ? '; amounts in EUR' : ''})`;
}

/**
 * A report for a terminal: its heading, each table fitted to the width, and a chart of the main
 * figure. Without a terminal, each table as tab-separated lines (values as the API wrote them), with
 * a blank line between tables, and the report's name before it when `named` (all reports at once).
 */
export async function terminalReport(view: ReportView, terminal: View, named = false): Promise<string> {
  const spec = REPORTS[view.meta.report];
  const parts: string[] = [];
  if (terminal.tty) parts.push(`${wrap(oneLine(heading(view)), terminalWidth(terminal)).join('\n')}\n`);
  else if (named) parts.push(`${view.meta.report}\n`);
  for (const table of spec.tables) {
    const rows = rowsOf(view, table);
    if (terminal.tty && table.name !== 'data') parts.push(`${table.title}\n`);
    if (terminal.tty && rows.length === 0) {
      parts.push('(none)\n');
      continue;
    }
    const cells = rows.map((row) =>
      table.columns.map((c) =>
        terminal.tty ? shown(c.kind, row[c.name]) : row[c.name] === null ? '' : String(row[c.name]),
      ),
    );
    const columns = table.columns.map((c) => ({
      priority: c.priority,
      align: c.kind === 'text' ? ('left' as const) : ('right' as const),
      minWidth: Math.min(8, c.header.length),
      truncate: c.kind === 'text' && c.priority > 0,
    }));
    // Without a terminal the headers are the names the rows have in the report document, for scripts.
    parts.push(
      await gridTable(
        columns,
        table.columns.map((c) => (terminal.tty ? c.header : c.name)),
        cells,
        terminal,
      ),
    );
    if (terminal.tty && table.figure && rows.length > 0) {
      const figure = table.columns.find((c) => c.name === table.figure)!;
      parts.push(
        `${figure.header}\n${barChart(
          rows.map((row) => oneLine(labelOf(row, table))),
          rows.map((row) => plotted(figure.kind, row[figure.name])),
          rows.map((row) => shown(figure.kind, row[figure.name])),
          terminalWidth(terminal),
        )}\n`,
      );
    }
  }
  return parts.join('\n');
}
