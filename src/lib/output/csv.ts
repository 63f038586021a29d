// CSV: every key seen, in first-seen order (RFC 4180 quoting); resources as id then attributes.
// A cell a spreadsheet would take for a formula is written with a leading ' (unless raw: --csv-raw).
import type { ResourceLike } from './columns.js';
import { textOf } from '../schemas/json.js';

export interface CsvOptions {
  /** Cells exactly as the data has them: no ' before a formula (--csv-raw, for pipelines). */
  raw?: boolean;
}

/**
 * What a spreadsheet runs as a formula: a cell beginning with =, +, -, @, a tab or a carriage
 * return (OWASP's list), also behind any ' already there, so that reading the cell back (unescape)
 * gives exactly the data again. A plain number is left alone: it carries no formula, and -12.50
 * must stay a number in the sheet.
 */
const FORMULA = /^'*[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;
const ESCAPED = /^'+[=+\-@\t\r]/;

/** The text of a cell as written: with a leading ' when a spreadsheet would run it as a formula. */
export const escapeFormula = (text: string): string =>
  FORMULA.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;

/** A cell read back: the ' escapeFormula put before a formula is dropped (the import reads CSV this way). */
export const unescapeFormula = (text: string): string => (ESCAPED.test(text) ? text.slice(1) : text);

export const cell = (value: unknown, options: CsvOptions = {}): string => {
  if (value === null || value === undefined) return '';
  const data = textOf(value);
  const text = options.raw || typeof value === 'number' ? data : escapeFormula(data);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

function columnsOf(rows: Record<string, unknown>[]): string[] {
  const names: string[] = [];
  for (const row of rows) for (const name of Object.keys(row)) if (!names.includes(name)) names.push(name);
  return names;
}

const lines = (names: string[], rows: Record<string, unknown>[], options: CsvOptions): string =>
  rows.map((row) => `${names.map((n) => cell(row[n], options)).join(',')}\r\n`).join('');

/** The header line: the names are cells like any other (an attribute name is data from the service). */
const header = (names: string[], options: CsvOptions): string => `${names.map((n) => cell(n, options)).join(',')}\r\n`;

/** CSV of plain objects (not API resources, e.g. accounts): every key seen, in first-seen order. */
export function objectsToCsv(rows: Record<string, unknown>[], options: CsvOptions = {}): string {
  const names = columnsOf(rows);
  return `${header(names, options)}${lines(names, rows, options)}`;
}

const flat = (resource: ResourceLike): Record<string, unknown> => ({ id: resource.id, ...resource.attributes });

export const toCsv = (resources: ResourceLike[], options: CsvOptions = {}): string =>
  objectsToCsv(resources.map(flat), options);

/**
 * CSV of a list written page by page. The header is the first page's columns (every key seen in
 * it, in first-seen order), so the text is toCsv's of the whole list: a server renders every
 * resource of a type with the same attributes (those of a sparse fieldset, or whatever the hosted
 * service sends), which a fixed list of our own would not match. A column first seen on a later
 * page cannot join a header already written: it is left out, and named in `dropped`.
 */
export function csvPages(options: CsvOptions = {}): {
  page(resources: ResourceLike[]): string;
  readonly dropped: ReadonlySet<string>;
} {
  let names: string[] | undefined;
  let known: Set<string> | undefined;
  const dropped = new Set<string>();
  return {
    dropped,
    page(resources) {
      const rows = resources.map(flat);
      if (names === undefined) {
        names = columnsOf(rows);
        known = new Set(names);
        return `${header(names, options)}${lines(names, rows, options)}`;
      }
      for (const row of rows) for (const name of Object.keys(row)) if (!known!.has(name)) dropped.add(name);
      return lines(names, rows, options);
    },
  };
}
