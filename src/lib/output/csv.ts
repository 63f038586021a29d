// CSV: every key seen, in first-seen order (RFC 4180 quoting); resources as id then attributes.
import type { ResourceLike } from './columns.js';

export const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

function columnsOf(rows: Record<string, unknown>[]): string[] {
  const names: string[] = [];
  for (const row of rows) for (const name of Object.keys(row)) if (!names.includes(name)) names.push(name);
  return names;
}

const lines = (names: string[], rows: Record<string, unknown>[]): string => rows.map((row) => `${names.map((n) => cell(row[n])).join(',')}\r\n`).join('');

/** CSV of plain objects (not API resources, e.g. accounts): every key seen, in first-seen order. */
export function objectsToCsv(rows: Record<string, unknown>[]): string {
  const names = columnsOf(rows);
  return `${names.join(',')}\r\n${lines(names, rows)}`;
}

const flat = (resource: ResourceLike): Record<string, unknown> => ({ id: resource.id, ...resource.attributes });

export const toCsv = (resources: ResourceLike[]): string => objectsToCsv(resources.map(flat));

/**
 * CSV of a list written page by page. The header is the first page's columns (every key seen in
 * it, in first-seen order), so the text is toCsv's of the whole list: a server renders every
 * resource of a type with the same attributes (those of a sparse fieldset, or whatever the hosted
 * service sends), which a fixed list of our own would not match. A column first seen on a later
 * page cannot join a header already written: it is left out, and named in `dropped`.
 */
export function csvPages(): { page(resources: ResourceLike[]): string; readonly dropped: ReadonlySet<string> } {
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
        return `${names.join(',')}\r\n${lines(names, rows)}`;
      }
      for (const row of rows) for (const name of Object.keys(row)) if (!known!.has(name)) dropped.add(name);
      return lines(names, rows);
    },
  };
}
