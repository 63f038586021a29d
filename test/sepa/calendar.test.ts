import { describe, expect, it } from 'vitest';
import { addTarget2Days, easter, isTarget2Day, nextTarget2Day } from '../../src/lib/sepa/calendar.js';

describe('TARGET2 calendar', () => {
  it('computes Easter Sunday, including the earliest and latest dates it can fall on', () => {
    const known: Record<number, string> = {
      1818: '1818-03-22', // earliest possible
      1943: '1943-04-25', // latest possible
      2000: '2000-04-23',
      2008: '2008-03-23',
      2011: '2011-04-24',
      2019: '2019-04-21',
      2024: '2024-03-31',
      2025: '2025-04-20',
      2026: '2026-04-05',
      2027: '2027-03-28',
      2038: '2038-04-25',
      2285: '2285-03-22',
    };
    for (const [year, date] of Object.entries(known)) expect(easter(Number(year)), year).toBe(date);
  });

  it('closes on weekends, New Year, Good Friday, Easter Monday, 1 May, 25 and 26 December', () => {
    for (const day of [
      '2026-01-01',
      '2026-04-03',
      '2026-04-06',
      '2026-05-01',
      '2026-12-25',
      '2025-12-26',
      '2024-03-29',
      '2024-04-01',
      '2026-03-07',
      '2026-03-08',
      '2285-03-20',
      '2285-03-23',
    ]) {
      expect(isTarget2Day(day), day).toBe(false);
    }
    for (const day of [
      '2026-01-02',
      '2026-04-02',
      '2026-04-07',
      '2026-05-04',
      '2025-12-24',
      '2025-12-31',
      '2026-03-06',
      '2028-02-29',
      '2026-05-14',
      '2026-05-25',
    ]) {
      expect(isTarget2Day(day), day).toBe(true);
    }
  });

  it('opens on the days a year has left after weekends and closing days', () => {
    const count = (year: number) => {
      let open = 0;
      for (
        let d = new Date(Date.UTC(year, 0, 1));
        d.getUTCFullYear() === year;
        d = new Date(d.getTime() + 86_400_000)
      ) {
        if (isTarget2Day(d.toISOString().slice(0, 10))) open++;
      }
      return open;
    };
    // 2024 (leap): 366 days, 104 weekend days, all six closing days on weekdays.
    expect(count(2024)).toBe(256);
    // 2026: 365 days, 104 weekend days, five closing days on weekdays (26 December is a Saturday).
    expect(count(2026)).toBe(256);
    // 2027: 365 days, 104 weekend days; 1 May, 25 and 26 December fall on the weekend.
    expect(count(2027)).toBe(258);
  });

  it('moves a closed day to the next open one, and leaves an open day alone', () => {
    expect(nextTarget2Day('2026-04-03')).toBe('2026-04-07'); // Good Friday, weekend, Easter Monday
    expect(nextTarget2Day('2025-12-25')).toBe('2025-12-29');
    expect(nextTarget2Day('2026-12-25')).toBe('2026-12-28');
    expect(nextTarget2Day('2027-12-31')).toBe('2027-12-31');
    expect(nextTarget2Day('2028-01-01')).toBe('2028-01-03'); // no substitute day for a New Year on Saturday
    expect(nextTarget2Day('2026-03-07')).toBe('2026-03-09');
  });

  it('adds business days, not counting the start, forwards and backwards', () => {
    expect(addTarget2Days('2026-05-08', 1)).toBe('2026-05-11'); // Friday + 1
    expect(addTarget2Days('2026-04-02', 1)).toBe('2026-04-07'); // over Easter
    expect(addTarget2Days('2026-04-04', 1)).toBe('2026-04-07'); // from a closed day
    expect(addTarget2Days('2025-12-24', 2)).toBe('2025-12-30');
    expect(addTarget2Days('2026-03-02', 5)).toBe('2026-03-09');
    expect(addTarget2Days('2026-04-07', -1)).toBe('2026-04-02');
    expect(addTarget2Days('2026-03-09', -5)).toBe('2026-03-02');
    expect(addTarget2Days('2026-03-07', 0)).toBe('2026-03-09');
    expect(addTarget2Days('2026-03-06', 0)).toBe('2026-03-06');
  });

  it('refuses what is not a date', () => {
    for (const bad of ['2026-02-29', '2026-13-01', '2026-1-01', '26-01-01', '2026-01-01T00:00:00Z', '']) {
      expect(() => isTarget2Day(bad), bad).toThrow(RangeError);
    }
    expect(() => addTarget2Days('2026-01-02', 1.5)).toThrow(RangeError);
  });
});
