// Views for people. On a terminal: a table with borders that fits the terminal's width (the least
// needed columns dropped, long names and emails ending in "…"), coloured when colour is on. Not on
// a terminal: tab-separated lines with a header row, nothing cut (as gh does). Everything from
// data goes through safeText: no control or bidi character reaches the terminal.
//
// Drawn here rather than with cli-table3: fitting needs the widths decided first anyway, and this
// is smaller and quicker to load.
import { columnsFor, lineTotal, type Column, type ResourceLike } from './columns.js';
import { textOf } from '../schemas/json.js';
import { formatValue, isMoney, label, oneLine, safeText } from './format.js';
import type { Painter } from './paint.js';
import { displayWidth, pad, truncate, wrap } from './text.js';
import { terminalWidth, type View } from './view.js';

export { viewOf, type View } from './view.js';

/** chalk is loaded only when colour is on. */
const painterFor = async (view: View): Promise<Painter | undefined> =>
  view.color ? (await import('./paint.js')).painter() : undefined;

// ---- lists ----

export async function listTable(resources: ResourceLike[], type: string, view: View): Promise<string> {
  const columns = columnsFor(type, resources[0]);
  const cells = resources.map((resource) => columns.map((c) => c.value(resource)));
  // On a terminal a transaction's UUID shows as its shortest start (8 characters or more) that no
  // other row of the table has: `transactions get` takes it. TSV, CSV and --json keep it whole.
  const at = columns.findIndex((c) => c.header === 'id');
  if (type === 'transaction' && view.tty && at >= 0) {
    const short = uniqueStarts(cells.map((row) => row[at]));
    cells.forEach((row, i) => (row[at] = short[i]));
  }
  return gridTable(
    columns,
    columns.map((c) => c.header),
    cells,
    view,
  );
}

/** Each text's shortest start of at least `min` characters that no other text has (never ending in '-'). */
export function uniqueStarts(texts: readonly string[], min = 8): string[] {
  const common = (a: string, b: string) => {
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return n;
  };
  const order = texts.map((_, i) => i).sort((a, b) => (texts[a] < texts[b] ? -1 : texts[a] > texts[b] ? 1 : 0));
  const starts: string[] = new Array<string>(texts.length);
  order.forEach((index, k) => {
    const text = texts[index];
    const before = k > 0 ? common(text, texts[order[k - 1]]) : 0;
    const after = k < order.length - 1 ? common(text, texts[order[k + 1]]) : 0;
    let length = Math.max(min, before + 1, after + 1);
    while (length < text.length && text[length - 1] === '-') length++;
    starts[index] = text.slice(0, length);
  });
  return starts;
}

/** How a column of a grid is laid out: a list's columns, or any table's (a report's). */
export type GridColumn = Pick<Column, 'priority' | 'align' | 'minWidth' | 'truncate' | 'state' | 'hideWhenEmpty'>;

/**
 * Rows of cells under headers: on a terminal, a table with borders fitted to its width (see
 * fitColumns); otherwise tab-separated lines with a header row. Cells are made safe here.
 */
export async function gridTable(
  columns: readonly GridColumn[],
  headerTexts: string[],
  cellTexts: string[][],
  view: View,
): Promise<string> {
  const headers = headerTexts.map(oneLine);
  const rows = cellTexts.map((cells) => cells.map(oneLine));
  const paint = await painterFor(view);
  if (!view.tty) return tsv(columns, headers, rows, paint);

  const shown = columns
    .map((_, i) => i)
    .filter((i) => !columns[i].hideWhenEmpty || rows.some((cells) => cells[i] !== ''));
  const natural = shown.map((i) =>
    rows.reduce((width, cells) => Math.max(width, displayWidth(cells[i])), displayWidth(headers[i])),
  );
  const fitted = fitColumns(
    shown.map((i, k) => ({
      priority: columns[i].priority,
      truncate: columns[i].truncate,
      minWidth: columns[i].minWidth,
      natural: natural[k],
    })),
    terminalWidth(view),
  );
  const kept = fitted.kept.map((k) => shown[k]);
  const widths = fitted.widths;
  const border = paint ? (text: string) => paint.border(text) : (text: string) => text;
  const line = (left: string, join: string, right: string) =>
    border(`${left}${widths.map((w) => '─'.repeat(w + 2)).join(join)}${right}`);
  const row = (cells: string[], header: boolean) => {
    const parts = kept.map((index, k) => {
      const column = columns[index];
      const text = truncate(cells[index], widths[k]);
      let painted = text;
      if (paint && header) painted = paint.header(text);
      else if (paint && column.state) painted = paint.state(cells[index], text);
      const fill = ' '.repeat(widths[k] - displayWidth(text));
      return ` ${column.align === 'right' ? fill + painted : painted + fill} `;
    });
    return `${border('│')}${parts.join(border('│'))}${border('│')}`;
  };
  const lines = [
    line('┌', '┬', '┐'),
    row(headers, true),
    line('├', '┼', '┤'),
    ...rows.map((cells) => row(cells, false)),
    line('└', '┴', '┘'),
  ];
  return `${lines.join('\n')}\n`;
}

function tsv(columns: readonly GridColumn[], headers: string[], rows: string[][], paint: Painter | undefined): string {
  // Colour here only when it was forced (FORCE_COLOR): globals.color is off without a terminal otherwise.
  const header = headers.map((h) => (paint ? paint.header(h) : h)).join('\t');
  const body = rows.map((cells) =>
    cells.map((cell, i) => (paint && columns[i].state ? paint.state(cell, cell) : cell)).join('\t'),
  );
  return `${[header, ...body].join('\n')}\n`;
}

export interface FitSpec {
  /** 0 is needed most; the highest is dropped first. */
  priority: number;
  truncate: boolean;
  minWidth: number;
  /** The widest value or header. */
  natural: number;
}

/** Up to this wide, a flexible (truncatable) column counts as it is when deciding which columns to drop. */
const COMFORTABLE = 30;

/** The space a table's borders and padding take: "│ a │ b │". */
const frame = (count: number): number => 3 * count + 1;
const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/**
 * Which columns to show, and how wide, in a table `available` columns wide. While the table does
 * not fit, the least needed column is dropped; a flexible column (one that may be cut) is cut
 * rather than dropped when cutting flexible columns to their minimum is enough. Then flexible
 * columns are cut, widest first. When deciding, a flexible column counts at most 30 wide, so one
 * 200-character name does not push out every other column. One column is always kept, cut to fit
 * if it must be.
 */
export function fitColumns(specs: FitSpec[], available: number): { kept: number[]; widths: number[] } {
  const kept = specs.map((_, i) => i);
  const total = (width: (spec: FitSpec) => number) => sum(kept.map((i) => width(specs[i]))) + frame(kept.length);
  const comfortable = (spec: FitSpec) =>
    spec.truncate ? Math.min(spec.natural, Math.max(spec.minWidth, COMFORTABLE)) : spec.natural;
  const narrowest = (spec: FitSpec) =>
    spec.truncate ? Math.min(spec.natural, Math.max(1, spec.minWidth)) : spec.natural;
  while (kept.length > 1 && total(comfortable) > available) {
    let least = 0;
    for (let k = 1; k < kept.length; k++) if (specs[kept[k]].priority >= specs[kept[least]].priority) least = k;
    if (specs[kept[least]].truncate && total(narrowest) <= available) break;
    kept.splice(least, 1);
  }

  const widths = kept.map((i) => specs[i].natural);
  let over = sum(widths) + frame(kept.length) - available;
  while (over > 0) {
    let widest = -1;
    for (let k = 0; k < kept.length; k++)
      if (widths[k] > narrowest(specs[kept[k]]) && (widest < 0 || widths[k] > widths[widest])) widest = k;
    if (widest < 0) break;
    widths[widest]--;
    over--;
  }
  // Left over only when a single column is wider than the terminal: it is cut, whatever it is.
  if (over > 0) widths[widths.length - 1] = Math.max(1, widths[widths.length - 1] - over);
  return { kept, widths };
}

// ---- one resource ----

export interface Field {
  label: string;
  value: string;
  money: boolean;
  state: boolean;
}

/** The fields of one resource as a person reads them, empty ones (null, '', no related resources) left out. */
export function fieldsOf(resource: ResourceLike, view: View, idLabel = 'id'): Field[] {
  const fields: Field[] = [{ label: idLabel, value: resource.id, money: false, state: false }];
  const labels = TYPE_LABELS[resource.type];
  for (const [name, value] of Object.entries(resource.attributes ?? {})) {
    const shown = formatValue(name, value);
    if (shown !== '')
      fields.push({
        label: (labels && Object.hasOwn(labels, name) ? labels[name] : undefined) ?? label(name),
        value: shown,
        money: isMoney(name, value),
        state: name === 'status',
      });
    // A line's amounts are per unit: its total follows its quantity.
    if (resource.type === 'invoice-line' && name === 'quantity') {
      const total = lineTotal(resource);
      if (total) fields.push({ label: 'total incl', value: total, money: true, state: false });
    }
  }
  for (const [name, relationship] of Object.entries(resource.relationships ?? {})) {
    const data = relationship?.data as { id?: unknown } | { id?: unknown }[] | null | undefined;
    const idOf = (d: { id?: unknown } | null | undefined) => (d?.id === undefined || d.id === null ? '' : textOf(d.id));
    const shown = !data ? '' : Array.isArray(data) ? data.map(idOf).filter(Boolean).join(', ') : idOf(data);
    if (shown) fields.push({ label: label(name), value: shown, money: false, state: false });
  }
  // What this implementation adds to a resource (a mandate needing attention), after the rest.
  for (const [name, value] of Object.entries(resource.meta ?? {})) {
    const shown = formatValue(name, value);
    if (shown !== '') fields.push({ label: label(name), value: shown, money: false, state: false });
  }
  return fields;
}

/** Labels of one type that say more than the attribute's name: a line's amounts are per unit. */
const TYPE_LABELS: Record<string, Record<string, string>> = {
  'invoice-line': { amount_excl: 'unit excl', amount_incl: 'unit incl', tax_amount: 'unit tax' },
};

/** A URL (or a store's postgres:// location): copied whole, never broken over lines. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;

/**
 * One resource as labelled fields: a two-column table on a terminal, `field<TAB>value` lines
 * otherwise. On a terminal a URL too wide for the value column is never wrapped inside it (a
 * wrapped URL cannot be copied or clicked): it is printed whole under the table, labelled.
 */
export async function resourceTable(resource: ResourceLike, view: View, idLabel = 'id'): Promise<string> {
  const all = fieldsOf(resource, view, idLabel);
  const paint = await painterFor(view);
  if (!view.tty) {
    const lines = all.map((f) => {
      const value = oneLine(f.value);
      return `${paint ? paint.header(oneLine(f.label)) : oneLine(f.label)}\t${paint && f.state ? paint.state(value, value) : value}`;
    });
    return `${lines.join('\n')}\n`;
  }

  const content = Math.max(2, terminalWidth(view) - frame(2));
  // The value column's room: what the labels leave it (they take half at most).
  const room = content - Math.min(Math.max(...all.map((f) => displayWidth(oneLine(f.label)))), Math.floor(content / 2));
  const below = all.filter((f) => URL_LIKE.test(f.value) && displayWidth(oneLine(f.value)) > room);
  const fields = all.filter((f) => !below.includes(f));
  const labels = fields.map((f) => oneLine(f.label));
  // Money right-aligned among itself, so that amounts line up on the decimal point.
  const moneyWidth = Math.max(0, ...fields.filter((f) => f.money).map((f) => displayWidth(oneLine(f.value))));
  const values = fields.map((f) =>
    f.money
      ? [pad(oneLine(f.value), moneyWidth, 'right')]
      : safeText(f.value)
          .split('\n')
          .map((l) => l.replace(/\t/g, ' ')),
  );

  const labelWidth = Math.max(1, Math.min(Math.max(...labels.map(displayWidth)), Math.floor(content / 2)));
  const valueWidth = Math.max(1, Math.min(Math.max(1, ...values.flat().map(displayWidth)), content - labelWidth));
  const border = paint ? (text: string) => paint.border(text) : (text: string) => text;
  const rule = (left: string, join: string, right: string) =>
    border(`${left}${'─'.repeat(labelWidth + 2)}${join}${'─'.repeat(valueWidth + 2)}${right}`);
  const lines = [rule('┌', '┬', '┐')];
  fields.forEach((field, i) => {
    const wrapped = field.money
      ? values[i].map((v) => truncate(v, valueWidth))
      : values[i].flatMap((v) => wrap(v, valueWidth));
    wrapped.forEach((text, n) => {
      const name = n === 0 ? truncate(labels[i], labelWidth) : '';
      const labelCell = (paint && name ? paint.header(name) : name) + ' '.repeat(labelWidth - displayWidth(name));
      const fill = ' '.repeat(Math.max(0, valueWidth - displayWidth(text)));
      const valueCell = (paint && field.state ? paint.state(field.value, text) : text) + fill;
      lines.push(`${border('│')} ${labelCell} ${border('│')} ${valueCell} ${border('│')}`);
    });
  });
  lines.push(rule('└', '┴', '┘'));
  for (const field of below) {
    const name = oneLine(field.label);
    lines.push(`${paint ? paint.header(name) : name}: ${oneLine(field.value)}`);
  }
  return `${lines.join('\n')}\n`;
}
