// Money is integer cents. Parse and format only at the edges; never do arithmetic on floats.
const AMOUNT = /^(-)?(\d+)(?:\.(\d{1,2}))?$/;

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

/** "12.50", "-0.05": the API's decimal string with two places. */
export function formatAmount(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

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
