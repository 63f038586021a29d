// Money is integer cents. Parse and format only at the edges; never do arithmetic on floats.
const AMOUNT = /^(-)?(\d+)(?:\.(\d{1,2}))?$/;

/**
 * The most any amount may be, either way (10,000,000,000.00 euro): an invoice's total, a
 * transaction, a plan's amount. Sums of lines stay exact integers far below 2^53, and every amount
 * up to it has at most 13 significant digits, so the JSON number of its decimal text reads back as
 * exactly that text (a double keeps 15).
 */
export const MONEY_MAX = 1_000_000_000_000;

/** Cents from a number or numeric string with at most two decimals; null when not such an amount. */
export function parseAmount(input: unknown): number | null {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    text = String(input);
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    return null;
  }
  const match = AMOUNT.exec(text);
  if (!match) return null;
  const cents = Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) return null;
  return match[1] && cents !== 0 ? -cents : cents;
}

/** "12.50", "-0.05": the API's decimal string with two places, cut from the digits of the cents (no division). */
export function formatAmount(cents: number): string {
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return `${cents < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * An amount as a JSON number (a transaction's, as the hosted service sends it): 12.5 for 1250
 * cents. Exact within MONEY_MAX; a stored amount beyond it (written before that bound) would come
 * out as another number, so it is given as its decimal string instead.
 */
export const amountNumber = (cents: number): number | string =>
  Math.abs(cents) <= MONEY_MAX ? Number(formatAmount(cents)) : formatAmount(cents);

/** numerator / denominator rounded half away from zero, on integers only. */
export function divideRounded(numerator: number, denominator: number): number {
  if (denominator === 0) throw new RangeError('division by zero');
  const sign = Math.sign(numerator) * Math.sign(denominator);
  const n = Math.abs(numerator);
  const d = Math.abs(denominator);
  const quotient = Math.floor(n / d);
  const remainder = n - quotient * d;
  const rounded = remainder * 2 >= d ? quotient + 1 : quotient;
  return rounded === 0 ? 0 : sign * rounded; // never -0 (0 / -5, or -1 / 3)
}
