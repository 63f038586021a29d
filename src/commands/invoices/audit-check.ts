// The audit of invoice references, as pure functions: which finalised invoices break the promise
// that references number 1..N, each number once, whatever the prefix was when it was given.
import { oneLine } from '../../lib/output/format.js';

export interface Referenced {
  id: string;
  status?: unknown;
  reference?: unknown;
}

export interface Named {
  id: string;
  reference: string | null;
}

export interface Audit {
  /** Finalised invoices read (drafts are not counted). */
  invoices: number;
  /** The lowest and highest numbers found; null when there is none. */
  first: number | null;
  last: number | null;
  /** Missing numbers between 1 and `last`, as ranges [from, to]. */
  gaps: [number, number][];
  /** Numbers given to more than one invoice (under any prefix), in order. */
  duplicates: { number: number; invoices: Named[] }[];
  /** References without a number of at least 1 at their end. */
  malformed: Named[];
  ok: boolean;
}

/** The number a reference ends in: INV-7 and OLD-007 are both 7; undefined when it ends otherwise. */
export function referenceNumber(reference: string): number | undefined {
  const digits = /(\d+)$/.exec(reference)?.[1];
  const number = digits === undefined ? NaN : Number(digits);
  return Number.isSafeInteger(number) && number >= 1 ? number : undefined;
}

const isDraft = (invoice: Referenced): boolean =>
  invoice.status === 'draft' || (invoice.status === undefined && invoice.reference === 'DRAFT');

export function auditReferences(invoices: readonly Referenced[]): Audit {
  const byNumber = new Map<number, Named[]>();
  const malformed: Named[] = [];
  let count = 0;
  for (const invoice of invoices) {
    if (isDraft(invoice)) continue;
    count++;
    const named = { id: invoice.id, reference: typeof invoice.reference === 'string' ? invoice.reference : null };
    const number = named.reference === null ? undefined : referenceNumber(named.reference);
    if (number === undefined) malformed.push(named);
    else byNumber.set(number, [...(byNumber.get(number) ?? []), named]);
  }
  const numbers = [...byNumber.keys()].sort((a, b) => a - b);
  // Ranges between the numbers found, never every number: a reference ending in 9999999 costs nothing.
  const gaps: [number, number][] = [];
  let expected = 1;
  for (const number of numbers) {
    if (number > expected) gaps.push([expected, number - 1]);
    expected = number + 1;
  }
  const duplicates = numbers
    .filter((n) => byNumber.get(n)!.length > 1)
    .map((number) => ({ number, invoices: byNumber.get(number)! }));
  return {
    invoices: count,
    first: numbers[0] ?? null,
    last: numbers.at(-1) ?? null,
    gaps,
    duplicates,
    malformed,
    ok: gaps.length === 0 && duplicates.length === 0 && malformed.length === 0,
  };
}

const ranges = (gaps: [number, number][]): string =>
  gaps.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`)).join(', ');
const named = (invoices: Named[]): string =>
  invoices.map((i) => `${oneLine(i.id)} (${i.reference === null ? 'no reference' : oneLine(i.reference)})`).join(', ');
const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`;

/** The audit as a person reads it: a summary line, then one line per kind of problem. */
export function auditReport(audit: Audit): string {
  if (audit.invoices === 0) return 'no finalised invoices: nothing to check\n';
  const range = audit.first === null ? 'no numbered references' : `references ${audit.first} to ${audit.last}`;
  const summary = `${plural(audit.invoices, 'finalised invoice')}, ${range}`;
  if (audit.ok) return `${summary}: no gaps, no duplicates\n`;
  const lines = [summary];
  if (audit.gaps.length) lines.push(`missing: ${ranges(audit.gaps)}`);
  for (const duplicate of audit.duplicates)
    lines.push(`duplicate ${duplicate.number}: invoices ${named(duplicate.invoices)}`);
  if (audit.malformed.length)
    lines.push(`malformed: ${audit.malformed.length === 1 ? 'invoice' : 'invoices'} ${named(audit.malformed)}`);
  return `${lines.join('\n')}\n`;
}

/** What is wrong, in one line: "3 numbers missing, 1 number given twice or more, 1 malformed reference". */
export function auditVerdict(audit: Audit): string {
  const missing = audit.gaps.reduce((sum, [from, to]) => sum + to - from + 1, 0);
  return [
    missing && `${plural(missing, 'number')} missing`,
    audit.duplicates.length && `${plural(audit.duplicates.length, 'number')} given twice or more`,
    audit.malformed.length && plural(audit.malformed.length, 'malformed reference'),
  ]
    .filter(Boolean)
    .join(', ');
}
