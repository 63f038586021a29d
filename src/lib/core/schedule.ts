// Calendar arithmetic on local days (YYYY-MM-DD in the account's time zone): plan cycles, and the
// durations the clock moves by. Days are plain dates; an instant is made of one only at the edge
// (midnight), so a month is a month whatever the offsets do in between.
import { localDate, offsetMinutes, zonedToUtc } from './time.js';

export type Frequency = 'weekly' | 'monthly' | 'quarterly' | 'half_yearly' | 'yearly' | 'once';

const MONTHS: Readonly<Record<Frequency, number>> = {
  weekly: 0,
  monthly: 1,
  quarterly: 3,
  half_yearly: 6,
  yearly: 12,
  once: 0,
};

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const parts = (day: string): [number, number, number] => [
  Number(day.slice(0, 4)),
  Number(day.slice(5, 7)),
  Number(day.slice(8, 10)),
];
const dayOf = (y: number, m: number, d: number): string => `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
const daysIn = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** The day `days` days after day (before, when negative). */
export function addDays(day: string, days: number): string {
  const [y, m, d] = parts(day);
  const t = new Date(Date.UTC(y, m - 1, d + days));
  return dayOf(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

/** The day `months` months after day, on the same day of the month or the month's last day when it is shorter. */
export function addMonths(day: string, months: number, anchorDay = parts(day)[2]): string {
  const [y, m] = parts(day);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return dayOf(year, month, Math.min(anchorDay, daysIn(year, month)));
}

/**
 * The day of plan cycle n (0 is the anchor). Counted from the anchor each time, never from the
 * cycle before: Jan 31, Feb 28, Mar 31 (a month end is kept), not Jan 31, Feb 28, Mar 28.
 */
export function cycleDay(anchor: string, frequency: Frequency, n: number): string | null {
  if (frequency === 'once') return n === 0 ? anchor : null;
  if (frequency === 'weekly') return addDays(anchor, 7 * n);
  return addMonths(anchor, MONTHS[frequency] * n, parts(anchor)[2]);
}

/** The first cycle, from cycle `from` on, whose day is on or after `day`; null for a plan collected once whose cycle is past. */
export function firstCycleOnOrAfter(
  anchor: string,
  frequency: Frequency,
  from: number,
  day: string,
): { n: number; day: string } | null {
  if (frequency === 'once') return from === 0 ? { n: 0, day: anchor < day ? day : anchor } : null;
  // A guess from the distance in days, then corrected: cycles are never more than a year apart.
  const per = frequency === 'weekly' ? 7 : MONTHS[frequency] * 28;
  const distance = (Date.parse(day) - Date.parse(anchor)) / 86_400_000;
  let n = Math.max(from, Math.floor(distance / per) - 2);
  while (n > from && cycleDay(anchor, frequency, n - 1)! >= day) n--;
  while (cycleDay(anchor, frequency, n)! < day) n++;
  return { n, day: cycleDay(anchor, frequency, n)! };
}

/** 00:00 of a local day, as a UTC instant (ISO). */
export const midnight = (day: string, timeZone: string): string => {
  const [y, m, d] = parts(day);
  return zonedToUtc(y, m, d, 0, 0, 0, timeZone).toISOString();
};

/** The local day of an instant. */
export const dayAt = (iso: string, timeZone: string): string => localDate(iso, timeZone);

const DURATION = /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?!$)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i;

/**
 * An instant moved on by an ISO 8601 duration (P1Y2M10DT2H30M, P2W), read as a person means it:
 * years, months and days on the calendar of the time zone (P1M from Jan 31 is Feb 28), then hours,
 * minutes and seconds as elapsed time. Null when the text is not such a duration, or moves nothing.
 */
export function addDuration(fromIso: string, duration: string, timeZone: string): string | null {
  const match = DURATION.exec(duration.trim());
  if (!match) return null;
  const [years, months, weeks, days, hours, minutes, seconds] = match.slice(1).map((v) => Number(v ?? 0));
  if (years + months + weeks + days + hours + minutes + seconds === 0) return null;
  let instant = Date.parse(fromIso);
  if (years || months || weeks || days) {
    // The same wall-clock time on the new day, in the zone.
    const local = new Date(instant + offsetMs(instant, timeZone));
    let day = dayOf(local.getUTCFullYear(), local.getUTCMonth() + 1, local.getUTCDate());
    day = addDays(addMonths(day, years * 12 + months), weeks * 7 + days);
    const [y, m, d] = parts(day);
    instant =
      zonedToUtc(y, m, d, local.getUTCHours(), local.getUTCMinutes(), local.getUTCSeconds(), timeZone).getTime() +
      local.getUTCMilliseconds();
  }
  instant += ((hours * 60 + minutes) * 60 + seconds) * 1000;
  return Number.isFinite(instant) ? new Date(instant).toISOString() : null;
}

const offsetMs = (instant: number, timeZone: string): number => offsetMinutes(instant, timeZone) * 60_000;
