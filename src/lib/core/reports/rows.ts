// What a report computes, before the API writes it: rows of plain values, money in integer cents,
// rates as integer ten-thousandths (0.0525 is 525), tax rates in hundredths of a percent (21.00% is
// 2100). The column names and kinds are in schemas/reports.ts.
import { divideRounded } from '../../schemas/money.js';

export type Value = string | number | null;
export type Row = Record<string, Value>;

export interface ReportRows {
  data: Row[];
  reasons?: Row[];
  customers?: Row[];
}

/** part ÷ whole as ten-thousandths, rounded half away from zero; null when whole is 0 (no rate). */
export const rate = (part: number, whole: number): number | null =>
  whole === 0 ? null : divideRounded(part * 10_000, whole);

/** Sums counts and cents kept by key: `add(map, key, n)`. */
export function add<K>(map: Map<K, number>, key: K, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

/** The engines return aggregates as numbers, or (PostgreSQL, for a sum of nothing) null. */
export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
