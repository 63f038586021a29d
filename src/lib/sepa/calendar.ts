// The TARGET2 calendar, on which SEPA direct debits settle: every day but Saturdays, Sundays,
// New Year's Day, Good Friday, Easter Monday, 1 May, 25 and 26 December. Dates are 'YYYY-MM-DD'
// strings: a collection date is a calendar day, never an instant, so no time zone enters here.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a valid 'YYYY-MM-DD'; throws a RangeError naming the text otherwise. */
function dayNumber(date: string): number {
  const match = DATE.exec(date);
  if (match) {
    const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const ms = Date.UTC(y, m - 1, d);
    const back = new Date(ms);
    if (back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d) return ms / DAY_MS;
  }
  throw new RangeError(`not a date (YYYY-MM-DD): "${date}"`);
}

/** Whether text is a real calendar date 'YYYY-MM-DD'. */
export function isCalendarDate(text: string): boolean {
  try {
    dayNumber(text);
    return true;
  } catch {
    return false;
  }
}

function dateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm, Meeus/Jones/Butcher), as a day number. */
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

/** Easter Sunday of a year, 'YYYY-MM-DD'. */
export function easter(year: number): string {
  return dateOf(easterSunday(year));
}

function isOpen(day: number): boolean {
  const weekday = (day + 4) % 7; // 1970-01-01 was a Thursday (4); 0 is Sunday
  if (weekday === 0 || weekday === 6) return false;
  const date = new Date(day * DAY_MS);
  const month = date.getUTCMonth() + 1;
  const dom = date.getUTCDate();
  if ((month === 1 && dom === 1) || (month === 5 && dom === 1) || (month === 12 && (dom === 25 || dom === 26)))
    return false;
  const easterDay = easterSunday(date.getUTCFullYear());
  return day !== easterDay - 2 && day !== easterDay + 1;
}

/** Whether TARGET2 is open on the date. */
export function isTarget2Day(date: string): boolean {
  return isOpen(dayNumber(date));
}

/** The date itself when TARGET2 is open on it, else the next day it is. */
export function nextTarget2Day(date: string): string {
  let day = dayNumber(date);
  while (!isOpen(day)) day++;
  return dateOf(day);
}

/**
 * The `days`-th TARGET2 day after `date` (before it when negative), not counting `date` itself:
 * 1 from a Friday is the Monday. 0 is nextTarget2Day(date).
 */
export function addTarget2Days(date: string, days: number): string {
  if (!Number.isSafeInteger(days)) throw new RangeError(`not a whole number of days: ${days}`);
  let day = dayNumber(date);
  if (days === 0) return nextTarget2Day(date);
  const step = days > 0 ? 1 : -1;
  for (let left = Math.abs(days); left > 0;) {
    day += step;
    if (isOpen(day)) left--;
  }
  return dateOf(day);
}
