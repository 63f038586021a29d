// Instants are stored as UTC ISO strings and shown in the account's time zone with its offset.
//
// Offsets come from Date#getTimezoneOffset under process.env.TZ, not from Intl.DateTimeFormat:
// the first Intl formatter with a time zone loads ICU locale data (12-15 ms measured here), which
// alone would break the CLI's start-up budget. This module owns the process's TZ; nothing else in
// billing uses local time (everything else is UTC).
import type { AttributeProblem } from '../schemas/common.js';
import { DATE_MESSAGE } from '../schemas/dates.js';

let activeZone: string | undefined;

/** Minutes east of UTC in timeZone at the instant ms. */
export function offsetMinutes(ms: number, timeZone: string): number {
  if (activeZone !== timeZone) {
    process.env.TZ = timeZone;
    activeZone = timeZone;
  }
  const offset = -new Date(ms).getTimezoneOffset();
  return offset === 0 ? 0 : offset; // never -0
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const offsetTexts = new Map<number, string>();
/** `+01:00` for 60, `-03:30` for -210, `+00:00` for 0. */
function offsetText(offset: number): string {
  let text = offsetTexts.get(offset);
  if (text === undefined) {
    const abs = Math.abs(offset);
    text = `${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
    offsetTexts.set(offset, text);
  }
  return text;
}

/** `2026-12-01T00:00:00+01:00` for a stored UTC instant, in the given IANA time zone. */
export function formatInstant(utcIso: string, timeZone: string): string {
  const ms = Date.parse(utcIso);
  const offset = offsetMinutes(ms, timeZone);
  // Every GET shows two of these, so the common case skips Date arithmetic (see minuteOnItsDay).
  const minute = minuteOnItsDay(utcIso, offset);
  if (minute !== undefined)
    return `${utcIso.slice(0, 11)}${pad(Math.floor(minute / 60))}:${pad(minute % 60)}${utcIso.slice(16, 19)}${offsetText(offset)}`;
  const local = new Date(ms + offset * 60_000);
  return `${dayOf(local)}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${offsetText(offset)}`;
}

/**
 * The local minute of the day of a stored instant (`YYYY-MM-DDTHH:MM:SS.sssZ`) at a whole-minute
 * offset, when it falls on the instant's own calendar day (then only its hours and minutes change);
 * undefined otherwise, or for another form.
 */
function minuteOnItsDay(utcIso: string, offset: number): number | undefined {
  if (utcIso.length !== 24 || utcIso.charCodeAt(10) !== 84 /* T */ || !Number.isInteger(offset)) return undefined;
  const minute = Number(utcIso.slice(11, 13)) * 60 + Number(utcIso.slice(14, 16)) + offset;
  return minute >= 0 && minute < 1440 ? minute : undefined;
}

/** `YYYY-MM-DD` of a Date shifted to local time (its UTC fields read as local). */
const dayOf = (local: Date): string =>
  `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;

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

/**
 * The UTC instant of a local wall-clock time in timeZone. A time that occurs twice (clocks go back)
 * gives the earlier instant; a time that does not exist (clocks jump forward) moves forward by the
 * gap, so a day whose midnight is skipped starts at the first instant it has.
 */
export function zonedToUtc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  timeZone: string,
): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const before = offsetMillis(new Date(wall - 86_400_000 / 2), timeZone);
  const after = offsetMillis(new Date(wall + 86_400_000 / 2), timeZone);
  const fits = (offset: number) => offsetMillis(new Date(wall - offset), timeZone) === offset;
  const candidates = [wall - before, wall - after].filter((utc, i) => fits(i === 0 ? before : after));
  return new Date(candidates.length ? Math.min(...candidates) : wall - before);
}

const offsetMillis = (at: Date, timeZone: string): number => offsetMinutes(at.getTime(), timeZone) * 60_000;

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
  // Not formatInstant's whole text cut short: a batch asks this of every mandate's signature, and
  // the text was 40 MB of its garbage.
  const ms = Date.parse(utcIso);
  const offset = offsetMinutes(ms, timeZone);
  return minuteOnItsDay(utcIso, offset) !== undefined ? utcIso.slice(0, 10) : dayOf(new Date(ms + offset * 60_000));
}

/**
 * The date attributes of a request as UTC instants (a date is 00:00 in the zone): null clears,
 * absent keeps. One problem per date that is not one.
 */
export function readInstants<N extends string>(
  value: Partial<Record<N, string | null>>,
  names: readonly N[],
  timeZone: string,
  problems: AttributeProblem[],
): Partial<Record<N, string | null>> {
  const instants: Partial<Record<N, string | null>> = {};
  for (const name of names) {
    const given = value[name];
    if (given === undefined) continue;
    const instant = given === null ? null : parseDateInput(given, timeZone);
    if (given !== null && instant === null) problems.push({ attribute: name, detail: DATE_MESSAGE });
    else instants[name] = instant;
  }
  return instants;
}
