// The reports as one self-contained HTML page: no script, no external asset; each chart is a
// Vega-Lite specification compiled and rendered to SVG here (vega and vega-lite are loaded only for
// --html), inlined; each table holds the values exactly as the report document has them
// (data-value), shown as on a terminal. Print styles keep a report and its chart on one page.
import type { TopLevelSpec } from 'vega-lite';
import { REPORTS, type ReportTable } from '../../lib/schemas/reports.js';
import { heading, labelOf, plotted, rowsOf, shown, type ReportView, type Row } from './view.js';

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const euros = (cents: number): number => cents / 100;

type Datum = Record<string, string | number>;

/** Rows folded to one value per (label, series): what a stacked or grouped bar chart draws. */
function folded(
  view: ReportView,
  table: ReportTable,
  series: Record<string, string>,
  sign: Record<string, number> = {},
): Datum[] {
  const kinds = new Map(table.columns.map((c) => [c.name, c.kind]));
  return rowsOf(view, table).flatMap((row) =>
    Object.entries(series).map(([name, label]) => {
      const value = plotted(kinds.get(name)!, row[name]);
      return {
        label: labelOf(row, table),
        series: label,
        value: (kinds.get(name) === 'money' ? euros(value) : value) * (sign[name] ?? 1),
      };
    }),
  );
}

const AXIS_X = { field: 'label', type: 'ordinal', title: null, sort: null, axis: { labelAngle: -40 } } as const;

/** The Vega-Lite chart of a report's main table. */
function chartOf(view: ReportView): TopLevelSpec {
  const table = REPORTS[view.meta.report].tables[0];
  const base = {
    width: 640,
    height: 200,
    background: 'white',
    config: { font: 'sans-serif', view: { stroke: null } },
  } as const;
  const y = (title: string) => ({ field: 'value', type: 'quantitative', title }) as const;
  const colour = (title: string) => ({ field: 'series', type: 'nominal', title, sort: null }) as const;
  switch (view.meta.report) {
    case 'mrr':
      return {
        ...base,
        data: { values: folded(view, table, { mrr: 'MRR' }) },
        mark: { type: 'area', line: true, point: true, opacity: 0.3 },
        encoding: { x: AXIS_X, y: y('MRR (EUR)') },
      };
    case 'subscriptions':
      return {
        ...base,
        data: { values: folded(view, table, { active: 'active', paused: 'paused', unverified: 'unverified' }) },
        mark: 'bar',
        encoding: { x: AXIS_X, y: y('subscriptions'), color: colour('status') },
      };
    case 'collections':
      return {
        ...base,
        data: { values: folded(view, table, { collected: 'collected', returned: 'returned', failed: 'failed' }) },
        mark: 'bar',
        encoding: { x: AXIS_X, xOffset: { field: 'series', sort: null }, y: y('EUR'), color: colour('') },
      };
    case 'revenue':
      return {
        ...base,
        data: { values: folded(view, table, { invoiced_excl: 'invoiced', credited_excl: 'credited' }) },
        mark: 'bar',
        encoding: { x: AXIS_X, y: y('EUR, excluding tax'), color: colour('') },
      };
    case 'vat':
      return {
        ...base,
        data: {
          values: rowsOf(view, table).map((row) => ({
            label: String(row.period),
            series: `${row.rate}%`,
            value: euros(plotted('money', row.tax)),
          })),
        },
        mark: 'bar',
        encoding: { x: AXIS_X, y: y('tax (EUR)'), color: colour('rate') },
      };
    case 'overdue':
      return {
        ...base,
        data: { values: folded(view, table, { amount: 'owed' }) },
        mark: 'bar',
        encoding: { x: { ...AXIS_X, title: 'days past due', axis: { labelAngle: 0 } }, y: y('owed (EUR)') },
      };
  }
}

/** A chart as inline SVG: compiled from Vega-Lite to Vega, run headless, rendered to SVG text. */
async function svgOf(spec: TopLevelSpec): Promise<string> {
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

function tableOf(view: ReportView, table: ReportTable): string {
  const rows: Row[] = rowsOf(view, table);
  const numeric = (kind: string) => (kind === 'text' ? '' : ' class="n"');
  const heads = table.columns.map((c) => `<th${numeric(c.kind)}>${escape(c.header)}</th>`).join('');
  const body = rows
    .map((row) => {
      const cells = table.columns.map((c) => {
        const value = row[c.name];
        const data = `data-column="${escape(c.name)}" data-value="${value === null ? '' : escape(String(value))}"`;
        return `<td${numeric(c.kind)} ${data}>${escape(shown(c.kind, value))}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  const empty = rows.length === 0 ? `<tr><td colspan="${table.columns.length}">none</td></tr>` : '';
  const caption = `<caption>${escape(table.title)}</caption>`;
  const head = `<thead><tr>${heads}</tr></thead>`;
  return `<table data-table="${table.name}">${caption}${head}<tbody>${body}${empty}</tbody></table>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; color: #1b1b1b; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: 0.25rem; }
h2 { font-size: 1.2rem; margin: 2.5rem 0 0.25rem; }
.range { color: #555; margin: 0 0 1rem; }
figure { margin: 0 0 1rem; }
svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 0 0 1rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 0.25rem 0; }
th, td { padding: 0.2rem 0.6rem; border-bottom: 1px solid #ddd; text-align: left; white-space: nowrap; }
th { border-bottom: 2px solid #999; font-weight: 600; }
.n { text-align: right; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  section { break-inside: avoid; page-break-inside: avoid; }
  section + section { break-before: page; page-break-before: always; }
  h2 { margin-top: 0; }
}
@page { margin: 15mm; }
`;

/** One page holding every report given, in order. */
export async function reportPage(views: ReportView[]): Promise<string> {
  const sections: string[] = [];
  for (const view of views) {
    const spec = REPORTS[view.meta.report];
    const tables = spec.tables.map((table) => tableOf(view, table)).join('\n');
    const range = `${heading(view).slice(spec.title.length + 2)}, as of ${view.meta.as_of}`;
    sections.push(
      `<section data-report="${spec.name}">\n<h2>${escape(spec.title)}</h2>\n<p class="range">${escape(range)}</p>\n` +
        `<figure>${await svgOf(chartOf(view))}</figure>\n${tables}\n</section>`,
    );
  }
  const title = views.length === 1 ? REPORTS[views[0].meta.report].title : 'Reports';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escape(title)}</h1>
${sections.join('\n')}
</body>
</html>
`;
}
