// Instants are stored as UTC ISO strings and shown in the account's time zone with its offset.
// Formatting uses Intl directly (no date library on the read path: start-up time matters).
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** `2026-12-01T00:00:00+01:00` for a stored UTC instant, in the given IANA time zone. */
export function formatInstant(utcIso: string, timeZone: string): string {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(utcIso))) parts[part.type] = part.value;
  // longOffset is "GMT+01:00", or just "GMT" at offset zero.
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.slice(3);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

export function formatNullableInstant(utcIso: string | null, timeZone: string): string | null {
  return utcIso === null ? null : formatInstant(utcIso, timeZone);
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The UTC instant at which a local wall-clock time in timeZone occurs (earlier one on DST overlaps). */
export function zonedToUtc(year: number, month: number, day: number, hour: number, minute: number, second: number, timeZone: string): Date {
  const guess = Date.UTC(year, month - 1, day, hour, minute, second);
  // Two passes converge for every real zone, including across DST changes.
  let utc = guess - offsetMillis(new Date(guess), timeZone);
  utc = guess - offsetMillis(new Date(utc), timeZone);
  return new Date(utc);
}

function offsetMillis(at: Date, timeZone: string): number {
  const formatted = formatInstant(at.toISOString(), timeZone);
  const match = /([+-])(\d\d):(\d\d)$/.exec(formatted)!;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return (match[1] === '-' ? -minutes : minutes) * 60_000;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Parses date input as the API accepts it: `2026-12-01` (00:00 in the account's time zone) or a
 * datetime with an offset. Returns the UTC ISO string, or null when the input is not such a date.
 */
export function parseDateInput(input: string, timeZone: string): string | null {
  const date = DATE.exec(input);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!isRealDate(y, m, d)) return null;
    return zonedToUtc(y, m, d, 0, 0, 0, timeZone).toISOString();
  }
  const dt = DATETIME.exec(input);
  if (!dt) return null;
  const [y, m, d, h, min, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(dt[i] ?? 0));
  if (!isRealDate(y, m, d) || h > 23 || min > 59 || s > 59) return null;
  const parsed = new Date(input.replace(' ', 'T'));
  return Number.isNaN(parsed.getTime()) ? null : parsed.toISOString();
}

function isRealDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(utcIso: string, timeZone: string): string {
  return formatInstant(utcIso, timeZone).slice(0, 10);
}
