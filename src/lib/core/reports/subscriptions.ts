// MRR and subscription counts, from the subscriptions' status changes (the events table): each
// event records the status a subscription took and the one it left, so a subscription's status at
// any instant is the net of its events before then. One grouped read counts the events per period
// (and per plan, for MRR); the running totals are added up here, over a few hundred groups.
import { sql } from 'kysely';
import { divideRounded } from '../../schemas/money.js';
import { all, type Unit } from '../../store/unit.js';
import type { Frequency } from '../schedule.js';
import { add, num, rate, type ReportRows, type Row } from './rows.js';
import { boundsOf, spanOf, type Range } from './range.js';

/** Collections a year per frequency: a plan collected once has no recurring revenue. */
const PER_YEAR: Readonly<Record<Frequency, number>> = {
  weekly: 52,
  monthly: 12,
  quarterly: 4,
  half_yearly: 2,
  yearly: 1,
  once: 0,
};

/**
 * One subscription's MRR on a plan, in cents: the amount times its collections a year, divided by
 * 12, rounded half away from zero (weekly 12.50 is 54.17). Rounded per subscription, before summing,
 * so every figure of the report is a sum of the same per-subscription cents and they add up exactly.
 */
export const monthlyCents = (amountCents: number, frequency: string): number =>
  divideRounded(amountCents * (PER_YEAR[frequency as Frequency] ?? 0), 12);

interface Change {
  span: number;
  status: string;
  from_status: string | null;
  n: number;
}

/**
 * The account's subscription events before `bounds`' last instant, counted per span of `bounds`,
 * status and previous status (and plan, with `perPlan`; only those entering or leaving active).
 */
function* changes(accountId: number, bounds: readonly string[], perPlan: boolean): Unit<(Change & { plan: number })[]> {
  const rows = yield* all((q) => {
    const query = q
      .selectFrom('events as e')
      .select((eb) => [
        spanOf('e.occurred_at', bounds).as('span'),
        'e.status',
        'e.from_status',
        eb.fn.countAll<number>().as('n'),
      ])
      .where('e.account_id', '=', accountId)
      // Word for word the condition of the partial index events_subscription_changes.
      .where('e.name', '=', sql.lit('subscription.status'))
      .where('e.occurred_at', '<', bounds[bounds.length - 1]);
    if (!perPlan) return query.groupBy([sql`1`, sql`2`, sql`3`]);
    return query
      .innerJoin('subscriptions as s', 's.id', 'e.subscription_id')
      .select('s.subscription_plan_id as plan')
      .where((eb) => eb.or([eb('e.status', '=', sql.lit('active')), eb('e.from_status', '=', sql.lit('active'))]))
      .groupBy([sql`1`, sql`2`, sql`3`, sql`5`]);
  });
  return rows.map((r) => ({ ...r, plan: Number((r as { plan?: number }).plan ?? 0), n: num(r.n), span: num(r.span) }));
}

interface Price {
  amount: number;
  frequency: string;
}

/** A plan's amount and frequency at any instant: its kept prices (each until a change), then its current one. */
class Prices {
  private readonly byPlan = new Map<number, { until: string; price: Price }[]>();
  constructor(
    private readonly current: Map<number, Price>,
    kept: { subscription_plan_id: number; amount_cents: number; frequency: string; until: string }[],
  ) {
    for (const row of kept) {
      const list = this.byPlan.get(row.subscription_plan_id) ?? [];
      list.push({ until: row.until, price: { amount: row.amount_cents, frequency: row.frequency } });
      this.byPlan.set(row.subscription_plan_id, list);
    }
    for (const list of this.byPlan.values()) list.sort((a, b) => (a.until < b.until ? -1 : a.until > b.until ? 1 : 0));
  }

  /** The price at `at`: a change made at that very instant has taken effect. */
  at(plan: number, at: string): Price {
    const kept = this.byPlan.get(plan)?.find((p) => p.until > at);
    return kept?.price ?? this.current.get(plan) ?? { amount: 0, frequency: 'once' };
  }

  /** Instants at which some plan's price changed, strictly between `after` and `before`. */
  changesBetween(after: string, before: string): string[] {
    const instants = new Set<string>();
    for (const list of this.byPlan.values())
      for (const { until } of list) if (until > after && until < before) instants.add(until);
    return [...instants];
  }
}

function* prices(accountId: number, since: string): Unit<Prices> {
  const plans = yield* all((q) =>
    q.selectFrom('subscription_plans').select(['id', 'amount_cents', 'frequency']).where('account_id', '=', accountId),
  );
  const kept = yield* all((q) =>
    q
      .selectFrom('plan_prices')
      .select(['subscription_plan_id', 'amount_cents', 'frequency', 'until'])
      .where('account_id', '=', accountId)
      .where('until', '>', since),
  );
  return new Prices(
    new Map(plans.map((p) => [Number(p.id), { amount: p.amount_cents, frequency: p.frequency }])),
    kept,
  );
}

/** The bounds of each period within a finer list of bounds: the index of its start and of its end. */
function periodSpans(range: Range, bounds: readonly string[]): { first: number; end: number }[] {
  return range.periods.map((p) => ({ first: bounds.indexOf(p.start), end: bounds.indexOf(p.end) }));
}

/**
 * MRR at each period's end: the active subscriptions' plan amounts normalised to a month (see
 * monthlyCents), at the plan's amount of that instant. Its moves in the period, each valued at the
 * plan's amount when it happened: new (first activated), reactivated (resumed from a pause), paused,
 * churned (cancelled while active). Net is the end's MRR less the start's; what the moves leave of
 * it is `repriced`: plans whose amount changed while subscriptions were active on them.
 */
export function* mrrReport(accountId: number, range: Range): Unit<ReportRows> {
  const periodBounds = boundsOf(range);
  const price = yield* prices(accountId, periodBounds[0]);
  // Spans end where a plan's price changed too, so every span has one price per plan.
  const bounds = [...new Set([...periodBounds, ...price.changesBetween(periodBounds[0], periodBounds.at(-1)!)])].sort();
  const rows = yield* changes(accountId, bounds, true);

  const plans = new Set(rows.map((r) => r.plan));
  // The net change of active subscriptions per plan and span (span -1: everything before the first bound).
  const delta = new Map<string, number>();
  const moves = new Map<string, number>();
  for (const r of rows) {
    const entering = r.status === 'active' ? 1 : 0;
    const leaving = r.from_status === 'active' ? 1 : 0;
    add(delta, `${r.plan}:${r.span}`, (entering - leaving) * r.n);
    const kind = entering
      ? r.from_status === 'paused'
        ? 'reactivated'
        : 'new'
      : r.status === 'paused'
        ? 'paused'
        : r.status === 'cancelled'
          ? 'churned'
          : undefined;
    if (kind) add(moves, `${kind}:${r.plan}:${r.span}`, r.n);
  }
  // Active subscriptions per plan at each bound.
  const active = new Map<number, number[]>();
  for (const plan of plans) {
    const counts: number[] = [];
    let running = delta.get(`${plan}:-1`) ?? 0;
    for (let k = 0; k < bounds.length; k++) {
      counts.push(running);
      running += delta.get(`${plan}:${k}`) ?? 0;
    }
    active.set(plan, counts);
  }
  const unit = (plan: number, k: number): number => {
    const p = price.at(plan, bounds[k]);
    return monthlyCents(p.amount, p.frequency);
  };
  const mrrAt = (k: number): number => [...plans].reduce((sum, plan) => sum + active.get(plan)![k] * unit(plan, k), 0);
  const recurringAt = (k: number): number =>
    [...plans].reduce(
      (sum, plan) => sum + (price.at(plan, bounds[k]).frequency === 'once' ? 0 : active.get(plan)![k]),
      0,
    );

  const data: Row[] = periodSpans(range, bounds).map(({ first, end }, i) => {
    const moved = { new: 0, reactivated: 0, paused: 0, churned: 0 };
    for (let k = first; k < end; k++) {
      for (const plan of plans)
        for (const kind of Object.keys(moved) as (keyof typeof moved)[])
          moved[kind] += (moves.get(`${kind}:${plan}:${k}`) ?? 0) * unit(plan, k);
    }
    const mrr = mrrAt(end);
    const net = mrr - mrrAt(first);
    return {
      period: range.periods[i].key,
      mrr,
      ...moved,
      repriced: net - (moved.new + moved.reactivated - moved.paused - moved.churned),
      net,
      active: recurringAt(end),
    };
  });
  return { data };
}

const STATUSES = ['active', 'paused', 'unverified', 'cancelled'] as const;

/**
 * Subscriptions by status at each period's end, and in the period: new (made), paused and cancelled
 * (moves into those statuses), churned (cancelled after being active or paused: a cancelled mandate
 * that never started is no churn), and the churn rate: churned ÷ active at the period's start.
 */
export function* subscriptionsReport(accountId: number, range: Range): Unit<ReportRows> {
  const bounds = boundsOf(range);
  const rows = yield* changes(accountId, bounds, false);
  const delta = new Map<string, number>();
  const moved = new Map<string, number>();
  for (const r of rows) {
    add(delta, `${r.status}:${r.span}`, r.n);
    if (r.from_status !== null) add(delta, `${r.from_status}:${r.span}`, -r.n);
    if (r.from_status === null) add(moved, `new:${r.span}`, r.n);
    else if (r.status === 'paused') add(moved, `paused:${r.span}`, r.n);
    else if (r.status === 'cancelled') {
      add(moved, `cancelled:${r.span}`, r.n);
      if (r.from_status === 'active' || r.from_status === 'paused') add(moved, `churned:${r.span}`, r.n);
    }
  }
  const at = new Map<string, number[]>();
  for (const status of STATUSES) {
    const counts: number[] = [];
    let running = delta.get(`${status}:-1`) ?? 0;
    for (let k = 0; k < bounds.length; k++) {
      counts.push(running);
      running += delta.get(`${status}:${k}`) ?? 0;
    }
    at.set(status, counts);
  }
  const data: Row[] = range.periods.map((period, k) => {
    const churned = moved.get(`churned:${k}`) ?? 0;
    return {
      period: period.key,
      active: at.get('active')![k + 1],
      paused: at.get('paused')![k + 1],
      unverified: at.get('unverified')![k + 1],
      cancelled: at.get('cancelled')![k + 1],
      new: moved.get(`new:${k}`) ?? 0,
      paused_in_period: moved.get(`paused:${k}`) ?? 0,
      cancelled_in_period: moved.get(`cancelled:${k}`) ?? 0,
      churned,
      churn_rate: rate(churned, at.get('active')![k]),
    };
  });
  return { data };
}
