// The periods a report covers: calendar months, quarters or years in the account's time zone, cut
// to the days asked for. A period runs from 00:00 of its first day to the end of its last day (00:00
// of the day after), as UTC instants, so the SQL compares stored instants with them and never needs
// the zone itself. A figure at a period's end (MRR, counts) is taken at that instant; nothing is
// recorded after now, so for the current period it is the figure now.
import { sql, type RawBuilder } from 'kysely';
import { DAY_MESSAGE, GRAINS, isDay, type Grain } from '../../schemas/reports.js';
import { fail, ok, type Result } from '../result.js';
import { addDays, addMonths, dayAt, midnight } from '../schedule.js';

export interface Period {
  /** `2027-01`, `2027-Q1` or `2027`. */
  key: string;
  /** From this instant (00:00 of its first day, in the zone) ... */
  start: string;
  /** ... to this one, not included (00:00 of the day after its last day). */
  end: string;
}

export interface Range {
  /** The first and last day asked for (local days). */
  from: string;
  to: string;
  by: Grain;
  /** The periods that have begun by now, in order; they follow each other without a gap. */
  periods: Period[];
}

export interface RangeInput {
  from?: string;
  to?: string;
  by?: Grain;
}

/** The most periods one report shows: twenty years by month. */
export const MAX_PERIODS = 240;

const MONTHS_OF: Readonly<Record<Grain, number>> = { month: 1, quarter: 3, year: 12 };

/** The first day of the period of `grain` that holds `day`. */
function periodStart(day: string, grain: Grain): string {
  const month = Number(day.slice(5, 7));
  const first = grain === 'month' ? month : grain === 'quarter' ? month - ((month - 1) % 3) : 1;
  return `${day.slice(0, 4)}-${String(first).padStart(2, '0')}-01`;
}

function periodKey(start: string, grain: Grain): string {
  if (grain === 'year') return start.slice(0, 4);
  if (grain === 'month') return start.slice(0, 7);
  return `${start.slice(0, 4)}-Q${Math.floor((Number(start.slice(5, 7)) - 1) / 3) + 1}`;
}

const invalid = (parameter: string, detail: string): Result<never> =>
  fail({ kind: 'invalid_parameter', parameter, detail });

/**
 * The range of a report from what was asked (all optional): by month; to today; from the start of
 * the period that holds the first day of the month eleven months before `to`'s (the last 12 months).
 */
export function resolveRange(input: RangeInput, now: string, zone: string): Result<Range> {
  const by = input.by ?? 'month';
  if (!GRAINS.includes(by)) return invalid('filter[by]', `filter[by] must be one of ${GRAINS.join(', ')}`);
  for (const name of ['from', 'to'] as const) {
    const value = input[name];
    if (value !== undefined && !isDay(value))
      return invalid(`filter[${name}]`, `filter[${name}] ${DAY_MESSAGE}, not "${value}"`);
  }
  const today = dayAt(now, zone);
  const to = input.to ?? today;
  const from = input.from ?? periodStart(addMonths(`${to.slice(0, 7)}-01`, -11), by);
  if (from > to && input.to !== undefined)
    return invalid('filter[from]', `filter[from] (${from}) must be on or before filter[to] (${to})`);
  if (from > today)
    return invalid('filter[from]', `filter[from] (${from}) is after today (${today}): nothing is recorded for it yet`);
  const periods: Period[] = [];
  for (let first = from; first <= to && first <= today;) {
    if (periods.length === MAX_PERIODS) {
      return invalid(
        'filter[from]',
        `the range holds more than ${MAX_PERIODS} periods; shorten it or report by a longer period (filter[by])`,
      );
    }
    const next = addMonths(periodStart(first, by), MONTHS_OF[by]);
    const last = addDays(next, -1) < to ? addDays(next, -1) : to;
    periods.push({
      key: periodKey(periodStart(first, by), by),
      start: midnight(first, zone),
      end: midnight(addDays(last, 1), zone),
    });
    first = next;
  }
  return ok({ from, to, by, periods });
}

/**
 * Which of the consecutive spans between `bounds` (sorted instants) a stored instant falls in:
 * -1 before the first, i within [bounds[i], bounds[i + 1]), and bounds.length - 1 from the last on.
 * Written as one CASE over the column, the same on both engines (instants compare as ISO text on
 * SQLite, as timestamptz on PostgreSQL).
 */
export function spanOf(column: string, bounds: readonly string[]): RawBuilder<number> {
  const whens = bounds.map((bound, i) => sql`WHEN ${sql.ref(column)} < ${bound} THEN ${sql.lit(i - 1)}`);
  return sql<number>`CASE ${sql.join(whens, sql` `)} ELSE ${sql.lit(bounds.length - 1)} END`;
}

/** The bounds of a range's periods: each period's start, then the last one's end. */
export const boundsOf = (range: Pick<Range, 'periods'>): string[] => [
  ...range.periods.map((p) => p.start),
  range.periods.at(-1)!.end,
];
