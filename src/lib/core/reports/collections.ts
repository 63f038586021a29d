// Collections, from the transactions' status changes (the events table): every change records its
// previous status, the transaction's amount and any SEPA reason code, so what a period collected,
// what came back and why are aggregate reads of those events, through one partial index.
//
// - collected: a collection attempt that succeeded (-> succeeded), in the period it succeeded;
// - returned: collected money that came back (succeeded or fulfilled -> charged_back or failed),
//   in the period of the return, whenever it had been collected; net = collected - returned;
// - failed: an attempt that failed at collection (scheduled or rescheduled -> failed), never collected;
// - the end of a returned collection after its last retry (charged_back -> failed) is neither: its
//   money was counted as returned when it came back;
// - success rate: collected ÷ (collected + failed), by count, of the period's attempts;
// - recovered: what storno retries collected (rescheduled -> succeeded).
//
// Successes are nearly all the rows: they are summed period by period (a plain aggregate over an
// index range, no grouping: a third of the cost of one grouped read). Returns and failures are
// few: one read groups them by period, change and reason code.
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { REASON_CODES } from '../../schemas/sepa.js';
import type { DB } from '../../store/schema.js';
import { all, get, type Unit } from '../../store/unit.js';
import { num, rate, type ReportRows, type Row } from './rows.js';
import { boundsOf, spanOf, type Range } from './range.js';

/** What a return or failure counts as: returned (collected money back), failed (at collection), or neither. */
function kindOf(status: string, from: string | null): 'returned' | 'failed' | undefined {
  if (from === 'succeeded' || from === 'fulfilled') return 'returned';
  if (status === 'failed' && (from === 'scheduled' || from === 'rescheduled')) return 'failed';
  return undefined;
}

type Events = SelectQueryBuilder<DB, 'events', object>;

/** The account's collection events in [from, to): word for word the partial index events_collections' condition. */
const collectionEvents = (query: Events, accountId: number, from: string, to: string): Events =>
  query
    .where('account_id', '=', accountId)
    .where('name', '=', sql.lit('transaction.status'))
    .where('status', 'in', [sql.lit('succeeded'), sql.lit('charged_back'), sql.lit('failed')])
    .where('occurred_at', '>=', from)
    .where('occurred_at', '<', to);

/** The sum of `value` over the rows where `when` holds, 0 where none does. */
const sumWhere = (when: RawBuilder<boolean>, value: Expression<unknown>) =>
  sql<number>`CAST(SUM(CASE WHEN ${when} THEN ${value} ELSE 0 END) AS bigint)`;

export function* collectionsReport(accountId: number, range: Range): Unit<ReportRows> {
  const bounds = boundsOf(range);
  const collected: { n: number; cents: number; recovered: number; recoveredCents: number }[] = [];
  for (let k = 0; k < range.periods.length; k++) {
    const row = yield* get((q) =>
      collectionEvents(q.selectFrom('events'), accountId, bounds[k], bounds[k + 1])
        .where('status', '=', sql.lit('succeeded'))
        .select((eb) => {
          const retry = sql<boolean>`${eb.ref('from_status')} = 'rescheduled'`;
          return [
            eb.fn.countAll<number>().as('n'),
            sql<number>`CAST(SUM(${eb.ref('amount_cents')}) AS bigint)`.as('cents'),
            sumWhere(retry, sql.lit(1)).as('recovered'),
            sumWhere(retry, eb.ref('amount_cents')).as('recovered_cents'),
          ];
        }),
    );
    collected.push({
      n: num(row?.n),
      cents: num(row?.cents),
      recovered: num(row?.recovered),
      recoveredCents: num(row?.recovered_cents),
    });
  }

  const back = yield* all((q) =>
    collectionEvents(q.selectFrom('events'), accountId, bounds[0], bounds[bounds.length - 1])
      .where('status', '<>', sql.lit('succeeded'))
      .select((eb) => [
        spanOf('occurred_at', bounds).as('span'),
        'status',
        'from_status',
        'reason_code',
        eb.fn.countAll<number>().as('n'),
        sql<number>`CAST(SUM(${eb.ref('amount_cents')}) AS bigint)`.as('cents'),
      ])
      .groupBy([sql`1`, sql`2`, sql`3`, sql`4`]),
  );
  const zero = () => ({ returned_count: 0, returned: 0, failed_count: 0, failed: 0 });
  const perPeriod = range.periods.map(zero);
  const byCode = new Map<string, ReturnType<typeof zero>>();
  for (const r of back) {
    const kind = kindOf(r.status, r.from_status);
    if (kind === undefined) continue;
    const code = r.reason_code ?? '';
    if (!byCode.has(code)) byCode.set(code, zero());
    for (const entry of [perPeriod[num(r.span)], byCode.get(code)!]) {
      entry[`${kind}_count`] += num(r.n);
      entry[kind] += num(r.cents);
    }
  }

  const data: Row[] = range.periods.map((period, k) => {
    const got = collected[k];
    const lost = perPeriod[k];
    return {
      period: period.key,
      collected: got.cents,
      collected_count: got.n,
      returned: lost.returned,
      returned_count: lost.returned_count,
      failed: lost.failed,
      failed_count: lost.failed_count,
      net: got.cents - lost.returned,
      success_rate: rate(got.n, got.n + lost.failed_count),
      recovered: got.recoveredCents,
      recovered_count: got.recovered,
    };
  });
  const reasons: Row[] = [...byCode]
    .map(([code, entry]) => ({ reason_code: code || null, reason: REASON_CODES.get(code) ?? null, ...entry }))
    .sort(
      (a, b) =>
        b.returned_count + b.failed_count - (a.returned_count + a.failed_count) ||
        (String(a.reason_code) < String(b.reason_code) ? -1 : 1),
    );
  return { data, reasons };
}
