// Invoice arithmetic, in integer cents and rates in hundredths of a percent (21.00% is 2100).
// Rounding is half away from zero (divideRounded), which is symmetric: a negated amount gives the
// exactly negated unit values, so a credit invoice's totals are exactly the original's negated.
import { divideRounded } from '../schemas/money.js';

export interface Units {
  excl: number;
  tax: number;
  incl: number;
}

/** A line's unit amounts: the amount is the excluding one, or (tax included) the including one. */
export function lineUnits(amountCents: number, rate: number, taxIncluded: boolean): Units {
  if (taxIncluded) {
    const excl = divideRounded(amountCents * 10_000, 10_000 + rate);
    return { excl, tax: amountCents - excl, incl: amountCents };
  }
  const tax = divideRounded(amountCents * rate, 10_000);
  return { excl: amountCents, tax, incl: amountCents + tax };
}

export interface Totals {
  excl: number;
  /** [rate, tax cents] per rate, highest rate first. */
  taxRates: [number, number][];
  tax: number;
  incl: number;
}

export interface LineAmounts {
  quantity: number;
  tax_rate: number;
  unit_excl_cents: number;
  unit_tax_cents: number;
}

/** The invoice's totals: quantity x unit per line, tax summed per rate; incl is excl + tax, always. */
export function totalsOf(lines: Iterable<LineAmounts>): Totals {
  let excl = 0;
  const perRate = new Map<number, number>();
  for (const line of lines) {
    excl += line.quantity * line.unit_excl_cents;
    perRate.set(line.tax_rate, (perRate.get(line.tax_rate) ?? 0) + line.quantity * line.unit_tax_cents);
  }
  const taxRates = [...perRate].sort((a, b) => b[0] - a[0]);
  const tax = taxRates.reduce((sum, [, cents]) => sum + cents, 0);
  return { excl, taxRates, tax, incl: excl + tax };
}
