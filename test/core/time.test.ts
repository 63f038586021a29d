// Dates at the edges: parsing API date input, and showing instants with the account zone's offset.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatInstant,
  formatNullableInstant,
  isValidTimeZone,
  localDate,
  parseDateInput,
  zonedToUtc,
} from '../../src/lib/core/time.js';

const AMS = 'Europe/Amsterdam';
const KOLKATA = 'Asia/Kolkata';

describe('parseDateInput', () => {
  it.each([
    ['2026-12-01', AMS, '2026-11-30T23:00:00.000Z'], // winter, +01:00
    ['2026-07-01', AMS, '2026-06-30T22:00:00.000Z'], // summer, +02:00
    ['2026-03-29', AMS, '2026-03-28T23:00:00.000Z'], // the day clocks go forward, at 02:00: midnight is still +01:00
    ['2026-10-25', AMS, '2026-10-24T22:00:00.000Z'], // the day clocks go back, at 03:00: midnight is still +02:00
    ['2026-12-01', KOLKATA, '2026-11-30T18:30:00.000Z'],
    ['2026-12-01', 'UTC', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01', 'America/New_York', '2026-12-01T05:00:00.000Z'],
    ['2024-02-29', AMS, '2024-02-28T23:00:00.000Z'], // a leap day
    ['2000-02-29', 'UTC', '2000-02-29T00:00:00.000Z'], // divisible by 400: leap
  ])('when given the date %s in %s, gives midnight there: %s', (input, zone, utc) => {
    expect(parseDateInput(input, zone)).toBe(utc);
  });

  it.each([
    ['2026-12-01T09:30:00+01:00', '2026-12-01T08:30:00.000Z'],
    ['2026-12-01T09:30:00Z', '2026-12-01T09:30:00.000Z'],
    ['2026-12-01t09:30:00z', '2026-12-01T09:30:00.000Z'],
    ['2026-12-01T09:30:00-05:00', '2026-12-01T14:30:00.000Z'],
    ['2026-12-01T09:30:00+0530', '2026-12-01T04:00:00.000Z'],
    ['2026-12-01T09:30Z', '2026-12-01T09:30:00.000Z'],
    ['2026-12-01 09:30:00+00:00', '2026-12-01T09:30:00.000Z'],
    ['2026-12-01T09:30:00.123Z', '2026-12-01T09:30:00.123Z'],
    ['2026-12-31T23:30:00-01:00', '2027-01-01T00:30:00.000Z'],
  ])('when given the datetime %s, gives that instant whatever the zone', (input, utc) => {
    expect(parseDateInput(input, AMS)).toBe(utc);
    expect(parseDateInput(input, KOLKATA)).toBe(utc);
  });

  it.each([
    ['a 30th of February', '2026-02-30'],
    ['a 29th of February outside a leap year', '2026-02-29'],
    ['a 29th of February in 1900 (not a leap year)', '1900-02-29'],
    ['a 31st of April', '2026-04-31'],
    ['month 13', '2026-13-01'],
    ['month 0', '2026-00-10'],
    ['day 0', '2026-01-00'],
    ['hour 24', '2026-12-01T24:00:00Z'],
    ['minute 60', '2026-12-01T10:60:00Z'],
    ['second 60', '2026-12-01T10:00:60Z'],
    ['a datetime without an offset', '2026-12-01T10:00:00'],
    ['an impossible offset', '2026-12-01T10:00:00+99:99'],
    ['a date without zero padding', '2026-1-1'],
    ['a date without dashes', '20261201'],
    ['a date in another order', '01-12-2026'],
    ['a word', 'tomorrow'],
    ['an empty string', ''],
    ['a date with spaces around it', ' 2026-12-01 '],
  ])('when given %s, gives null', (_situation, input) => {
    expect(parseDateInput(input, AMS)).toBeNull();
  });
});

describe('formatInstant', () => {
  it.each([
    ['2026-01-15T12:00:00.000Z', AMS, '2026-01-15T13:00:00+01:00'],
    ['2026-07-15T12:00:00.000Z', AMS, '2026-07-15T14:00:00+02:00'],
    // Spring forward in Amsterdam: 2026-03-29 at 01:00 UTC, 02:00 local becomes 03:00.
    ['2026-03-29T00:59:59.000Z', AMS, '2026-03-29T01:59:59+01:00'],
    ['2026-03-29T01:00:00.000Z', AMS, '2026-03-29T03:00:00+02:00'],
    // Fall back: 2026-10-25 at 01:00 UTC, 03:00 local becomes 02:00; 02:30 occurs twice.
    ['2026-10-25T00:30:00.000Z', AMS, '2026-10-25T02:30:00+02:00'],
    ['2026-10-25T00:59:59.000Z', AMS, '2026-10-25T02:59:59+02:00'],
    ['2026-10-25T01:00:00.000Z', AMS, '2026-10-25T02:00:00+01:00'],
    ['2026-10-25T01:30:00.000Z', AMS, '2026-10-25T02:30:00+01:00'],
    // Across midnight and the year.
    ['2026-12-31T23:30:00.000Z', AMS, '2027-01-01T00:30:00+01:00'],
    // Offsets that are not whole hours, east and west, with and without DST.
    ['2026-11-21T10:00:00.000Z', KOLKATA, '2026-11-21T15:30:00+05:30'],
    ['2026-06-21T10:00:00.000Z', KOLKATA, '2026-06-21T15:30:00+05:30'],
    ['2026-11-30T20:00:00.000Z', KOLKATA, '2026-12-01T01:30:00+05:30'],
    ['2026-01-15T12:00:00.000Z', 'Asia/Kathmandu', '2026-01-15T17:45:00+05:45'],
    ['2026-01-15T12:00:00.000Z', 'America/St_Johns', '2026-01-15T08:30:00-03:30'],
    ['2026-07-15T12:00:00.000Z', 'America/St_Johns', '2026-07-15T09:30:00-02:30'],
    ['2026-01-15T12:00:00.000Z', 'Pacific/Chatham', '2026-01-16T01:45:00+13:45'],
    ['2026-07-15T12:00:00.000Z', 'Australia/Lord_Howe', '2026-07-15T22:30:00+10:30'],
    ['2026-01-15T12:00:00.000Z', 'Australia/Lord_Howe', '2026-01-15T23:00:00+11:00'],
    // Zero offsets are written +00:00, never -00:00.
    ['2026-01-15T12:00:00.000Z', 'UTC', '2026-01-15T12:00:00+00:00'],
    ['2026-01-15T12:00:00.000Z', 'Europe/London', '2026-01-15T12:00:00+00:00'],
    // Milliseconds are dropped, not rounded.
    ['2026-01-15T12:00:00.999Z', AMS, '2026-01-15T13:00:00+01:00'],
  ])('when showing %s in %s, writes %s', (utc, zone, shown) => {
    expect(formatInstant(utc, zone)).toBe(shown);
  });

  it('when switching between zones call after call, each call uses its own zone', () => {
    const utc = '2026-01-15T12:00:00.000Z';
    expect([AMS, KOLKATA, AMS, 'America/St_Johns', KOLKATA].map((z) => formatInstant(utc, z))).toEqual([
      '2026-01-15T13:00:00+01:00',
      '2026-01-15T17:30:00+05:30',
      '2026-01-15T13:00:00+01:00',
      '2026-01-15T08:30:00-03:30',
      '2026-01-15T17:30:00+05:30',
    ]);
  });

  it('when the instant is null, formatNullableInstant gives null', () => {
    expect(formatNullableInstant(null, AMS)).toBeNull();
    expect(formatNullableInstant('2026-01-15T12:00:00.000Z', AMS)).toBe('2026-01-15T13:00:00+01:00');
  });

  it('when asked for the local date, gives the calendar day in that zone', () => {
    expect(localDate('2026-11-30T23:30:00.000Z', AMS)).toBe('2026-12-01');
    expect(localDate('2026-11-30T23:30:00.000Z', 'America/New_York')).toBe('2026-11-30');
    expect(localDate('2026-11-30T18:29:59.000Z', KOLKATA)).toBe('2026-11-30');
    expect(localDate('2026-11-30T18:30:00.000Z', KOLKATA)).toBe('2026-12-01');
  });
});

describe('zonedToUtc', () => {
  it('when a wall time occurs twice (clocks go back), gives the earlier instant', () => {
    expect(zonedToUtc(2026, 10, 25, 2, 30, 0, 'Europe/Amsterdam').toISOString()).toBe('2026-10-25T00:30:00.000Z');
  });

  it('when a wall time does not exist (clocks jump forward), moves forward by the gap', () => {
    expect(zonedToUtc(2026, 3, 29, 2, 30, 0, 'Europe/Amsterdam').toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  it('when a day has no midnight (America/Santiago in September), the date starts at its first instant, on that day', () => {
    const utc = parseDateInput('2026-09-06', 'America/Santiago')!;
    expect(formatInstant(utc, 'America/Santiago')).toBe('2026-09-06T01:00:00-03:00');
    expect(localDate(utc, 'America/Santiago')).toBe('2026-09-06');
  });

  it('when the wall-clock time occurs once, gives it', () => {
    expect(zonedToUtc(2026, 3, 29, 3, 0, 0, AMS).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(zonedToUtc(2026, 3, 29, 1, 59, 59, AMS).toISOString()).toBe('2026-03-29T00:59:59.000Z');
    expect(zonedToUtc(2026, 12, 1, 0, 0, 0, 'Asia/Kathmandu').toISOString()).toBe('2026-11-30T18:15:00.000Z');
  });
});

describe('isValidTimeZone', () => {
  it.each([AMS, KOLKATA, 'UTC', 'America/St_Johns', 'US/Pacific'])('when given %s, accepts it', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });
  it.each(['Mars/Olympus_Mons', '', 'Europe/Amsterdamm', 'GMT+25'])('when given %j, refuses it', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });
});

describe('properties', () => {
  const ZONES = [
    AMS,
    KOLKATA,
    'UTC',
    'America/New_York',
    'America/St_Johns',
    'Asia/Kathmandu',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'America/Sao_Paulo',
    'Pacific/Apia',
  ];
  const formatters = new Map<string, Intl.DateTimeFormat>();
  /** The same rendering, built independently from Intl (ICU) parts. */
  function viaIntl(ms: number, timeZone: string): string {
    let format = formatters.get(timeZone);
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', {
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
      formatters.set(timeZone, format);
    }
    const parts = Object.fromEntries(format.formatToParts(ms).map((p) => [p.type, p.value]));
    const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.slice(3);
    return `${parts.year.padStart(4, '0')}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
  }

  // 1970 to 2100: the zones used here have whole-minute offsets throughout (older local mean times
  // have seconds, which an ISO offset of hours and minutes cannot show).
  const instant = fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) });
  const zone = fc.constantFrom(...ZONES);

  it('formatInstant agrees with Intl on the local time and offset, for any instant and zone', () => {
    fc.assert(
      fc.property(instant, zone, (ms, tz) => {
        expect(formatInstant(new Date(ms).toISOString(), tz)).toBe(viaIntl(ms, tz));
      }),
      { numRuns: 2000 },
    );
  });

  it("localDate is the day of Intl's local time, for any instant and zone, midnights and DST changes included", () => {
    const edges = ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-04-05T15:00:00Z', '2026-11-30T23:00:00Z'];
    const near = fc
      .tuple(fc.constantFrom(...edges.map(Date.parse)), fc.integer({ min: -3_600_000, max: 3_600_000 }))
      .map(([at, delta]) => at + delta);
    fc.assert(
      fc.property(fc.oneof(instant, near), zone, (ms, tz) => {
        expect(localDate(new Date(ms).toISOString(), tz)).toBe(viaIntl(ms, tz).slice(0, 10));
      }),
      { numRuns: 3000 },
    );
  });

  it('formatInstant agrees with Intl within an hour of each DST change in 2026', () => {
    const changes = [
      '2026-03-29T01:00:00Z',
      '2026-10-25T01:00:00Z',
      '2026-03-08T07:00:00Z',
      '2026-11-01T06:00:00Z',
      '2026-04-05T15:00:00Z',
      '2026-10-04T15:30:00Z',
    ].map(Date.parse);
    fc.assert(
      fc.property(
        fc.constantFrom(...changes),
        fc.integer({ min: -3_600_000, max: 3_600_000 }),
        zone,
        (at, delta, tz) => {
          expect(formatInstant(new Date(at + delta).toISOString(), tz)).toBe(viaIntl(at + delta, tz));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('parsing what formatInstant writes gives the instant back, to the second', () => {
    fc.assert(
      fc.property(instant, zone, (ms, tz) => {
        const truncated = new Date(Math.floor(ms / 1000) * 1000).toISOString();
        expect(parseDateInput(formatInstant(new Date(ms).toISOString(), tz), tz)).toBe(truncated);
      }),
      { numRuns: 1000 },
    );
  });

  it('a date parsed in a zone whose midnights all exist is midnight of that same day there', () => {
    const day = fc
      .integer({ min: 0, max: 365 * 120 })
      .map((n) => new Date(Date.UTC(1970, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
    fc.assert(
      fc.property(day, fc.constantFrom(AMS, KOLKATA, 'UTC', 'America/New_York', 'Asia/Kathmandu'), (date, tz) => {
        const utc = parseDateInput(date, tz);
        expect(utc).not.toBeNull();
        expect(formatInstant(utc!, tz).slice(0, 19)).toBe(`${date}T00:00:00`);
      }),
      { numRuns: 1000 },
    );
  });
});
