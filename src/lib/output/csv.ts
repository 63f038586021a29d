// CSV of resources: id, then every attribute seen, in first-seen order (RFC 4180 quoting).
import type { ResourceLike } from './columns.js';

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function toCsv(resources: ResourceLike[]): string {
  const names: string[] = [];
  for (const r of resources) for (const name of Object.keys(r.attributes ?? {})) if (!names.includes(name)) names.push(name);
  const lines = [['id', ...names].join(',')];
  for (const r of resources) lines.push([cell(r.id), ...names.map((n) => cell(r.attributes?.[n]))].join(','));
  return `${lines.join('\r\n')}\r\n`;
}
