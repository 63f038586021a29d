// CSV: every key seen, in first-seen order (RFC 4180 quoting); resources as id then attributes.
import type { ResourceLike } from './columns.js';

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** CSV of plain objects (not API resources, e.g. accounts): every key seen, in first-seen order. */
export function objectsToCsv(rows: Record<string, unknown>[]): string {
  const names: string[] = [];
  for (const row of rows) for (const name of Object.keys(row)) if (!names.includes(name)) names.push(name);
  const lines = [names.join(',')];
  for (const row of rows) lines.push(names.map((n) => cell(row[n])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export const toCsv = (resources: ResourceLike[]): string => objectsToCsv(resources.map((r) => ({ id: r.id, ...r.attributes })));
