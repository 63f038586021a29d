// Property: whatever history a client and an operator make with the store's clock (subscriptions
// started on every kind of plan, activated, paused, resumed, cancelled at once or on a date; invoices
// with lines at several tax rates finalised, credited and paid; collections charged back and failed
// with SEPA reason codes, retried), every report over any range and grain equals a plain
// recomputation from what `--all` exports show: the events, the transactions with their histories,
// the invoices with their lines. The recomputation walks each subscription's events and each
// transaction's history itself (the previous status is the one before in the list), so it shares no
// SQL and no stored previous status with the reports; and the VAT report reconciles to the cent with
// the finalised invoices' tax_rates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/core/clock.js';
import { addDays, addMonths, dayAt, midnight } from '../../src/lib/core/schedule.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import { formatAmount, parseAmount } from '../../src/lib/schemas/money.js';
import type { TestCore as EmbeddedCore } from '../helpers/store.js';
import { testCore } from '../helpers/store.js';
import { context, createCustomer, makePlan, send, type Answer, type Doc } from '../api/support.js';

const TZ = 'Europe/Amsterdam';
const START = '2026-01-10T08:00:00.000Z';
const HOUR = 3_600_000;

/** Amounts whose monthly share is a fraction of a cent, some of them exactly half a cent (89.01 / 6, 240.06 / 12). */
const PLANS = [
  { name: 'Weekly', amount: '17.50', frequency: 'weekly', storno_retries: 1 },
  { name: 'Monthly', amount: '12.50', frequency: 'monthly', storno_retries: 2 },
  { name: 'Quarterly', amount: '39.95', frequency: 'quarterly', storno_retries: 0 },
  { name: 'Half-yearly', amount: '89.01', frequency: 'half_yearly', storno_retries: 1 },
  { name: 'Yearly', amount: '240.06', frequency: 'yearly', storno_retries: 2 },
  { name: 'Once', amount: '45.00', frequency: 'once', storno_retries: 0 },
];

// ---- the history ----

const KINDS = [
  'subscribe',
  'subscribe',
  'activate',
  'pause',
  'resume',
  'cancel',
  'cancel-later',
  'invoice',
  'invoice',
  'credit',
  'pay',
  'charge-back',
  'fail',
] as const;

const stepArbitrary = fc.record({
  hours: fc.integer({ min: 0, max: 14 * 24 }),
  kind: fc.constantFrom(...KINDS),
  pick: fc.nat({ max: 1000 }),
  unverified: fc.boolean(),
  lines: fc.array(
    fc.record({
      cents: fc.integer({ min: -2_000, max: 30_000 }),
      rate: fc.constantFrom(0, 600, 900, 2100),
      quantity: fc.integer({ min: 1, max: 3 }),
      included: fc.boolean(),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  finalise: fc.boolean(),
  later: fc.integer({ min: 0, max: 20 }),
  code: fc.constantFrom('AM04', 'MD06', 'AC04', 'MS02'),
});
type Step = typeof stepArbitrary extends fc.Arbitrary<infer T> ? T : never;

const doc = (type: string, attributes: Record<string, unknown>, id?: string) => ({
  data: { type, ...(id ? { id } : {}), attributes },
});

/** All pages of a collection, as `billing ... list --all` reads them. */
async function every(core: EmbeddedCore, path: string): Promise<Doc[]> {
  const rows: Doc[] = [];
  for (let page = 1; ; page++) {
    const answer = await send(core, 'GET', path, { query: `page[size]=100&page[number]=${page}` });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    rows.push(...answer.body.data);
    if (answer.body.data.length < 100) return rows;
  }
}

const refusedOrDone = (answer: Answer): void => expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);

async function play(core: EmbeddedCore, planIds: number[], steps: Step[]): Promise<void> {
  const ctx = await context(core);
  const today = () => dayAt(core.clock.now().toISOString(), TZ);
  const subs = async (status?: string) =>
    (await every(core, '/subscriptions')).filter((s) => status === undefined || s.attributes.status === status);
  const pickOf = <T>(list: T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);
  let customers = 0;
  for (const step of steps) {
    const moved = await setClock(core, new Date(core.clock.now().getTime() + step.hours * HOUR).toISOString());
    if (!moved.ok) throw new Error(JSON.stringify(moved.failure));
    switch (step.kind) {
      case 'subscribe': {
        const customer = await createCustomer(core, {
          first_name: `First${++customers}`,
          last_name: `Last${customers}`,
          email: `c${customers}@example.com`,
        });
        const accepted = step.unverified
          ? {}
          : { status: 'active', mandate_accepted: true, mandate_accepted_date: today() };
        refusedOrDone(
          await send(core, 'POST', '/subscriptions', {
            body: doc('subscription', {
              customer_id: customer,
              subscription_plan_id: pickOf(planIds, step.pick),
              ...accepted,
            }),
          }),
        );
        break;
      }
      case 'activate':
      case 'pause':
      case 'resume':
      case 'cancel':
      case 'cancel-later': {
        const from = {
          activate: 'unverified',
          pause: 'active',
          resume: 'paused',
          cancel: undefined,
          'cancel-later': 'active',
        }[step.kind];
        const sub = pickOf(
          (await subs(from)).filter((s) => s.attributes.status !== 'cancelled'),
          step.pick,
        );
        if (!sub) break;
        const attributes = {
          activate: { status: 'active', mandate_accepted: true, mandate_accepted_date: today() },
          pause:
            step.later > 3 ? { status: 'paused', resume_date: addDays(today(), step.later) } : { status: 'paused' },
          resume: { status: 'active' },
          cancel: { status: 'cancelled' },
          'cancel-later': { cancel_date: addDays(today(), step.later) },
        }[step.kind];
        refusedOrDone(
          await send(core, 'PATCH', `/subscriptions/${sub.id}`, { body: doc('subscription', attributes, sub.id) }),
        );
        break;
      }
      case 'invoice': {
        const sub = pickOf(await subs(), step.pick);
        if (!sub) break;
        const dates = step.later > 10 ? { transaction_date: addDays(today(), step.later) } : {};
        const made = await send(core, 'POST', '/invoices', {
          body: doc('invoice', { subscription_id: sub.id, ...dates }),
        });
        expect(made.status, JSON.stringify(made.body)).toBe(201);
        for (const line of step.lines) {
          const body = doc('invoice-line', {
            invoice_id: Number(made.body.data.id),
            description: 'Item',
            amount: formatAmount(line.cents),
            tax_rate: formatAmount(line.rate),
            quantity: line.quantity,
            tax_included: line.included,
          });
          expect((await send(core, 'POST', '/invoice-lines', { body })).status).toBe(201);
        }
        if (step.finalise) refusedOrDone(await send(core, 'PATCH', `/invoices/${made.body.data.id}/finalise`));
        break;
      }
      case 'credit':
      case 'pay': {
        const invoices = (await every(core, '/invoices')).filter((i) =>
          step.kind === 'credit'
            ? i.attributes.status !== 'draft' && !i.relationships['original-invoice']?.data
            : ['open', 'charged_back'].includes(i.attributes.status),
        );
        const invoice = pickOf(invoices, step.pick);
        if (!invoice) break;
        if (step.kind === 'pay') refusedOrDone(await send(core, 'PATCH', `/invoices/${invoice.id}/pay`));
        else {
          // An invoice credited in full already is refused (docs/credits.md).
          const credit = await send(core, 'POST', `/invoices/${invoice.id}/credit`);
          refusedOrDone(credit);
          if (credit.status === 200)
            refusedOrDone(await send(core, 'PATCH', `/invoices/${credit.body.data.id}/finalise`));
        }
        break;
      }
      case 'charge-back':
      case 'fail': {
        const wanted = step.kind === 'fail' ? ['scheduled', 'rescheduled'] : ['succeeded', 'fulfilled'];
        const sub = pickOf(await subs(), step.pick);
        if (!sub) break;
        const tx = pickOf(
          (await every(core, `/subscriptions/${sub.id}/transactions`)).filter((t) =>
            wanted.includes(t.attributes.status),
          ),
          step.pick,
        );
        if (tx) await simulateOutcome(ctx, tx.id, step.kind === 'fail' ? 'failed' : 'charged_back', step.code);
        break;
      }
    }
  }
}

// ---- the plain recomputation, from the exports ----

interface Exported {
  plans: Map<string, { cents: number; frequency: string }>;
  subscriptions: Doc[];
  events: Doc[];
  transactions: Doc[];
  invoices: Doc[];
  lines: Map<string, Doc[]>;
  customers: Map<string, Doc>;
}

async function exported(core: EmbeddedCore): Promise<Exported> {
  const subscriptions = await every(core, '/subscriptions');
  const invoices = await every(core, '/invoices');
  const lines = new Map<string, Doc[]>();
  for (const invoice of invoices)
    if (invoice.attributes.status !== 'draft')
      lines.set(invoice.id, await every(core, `/invoices/${invoice.id}/lines`));
  return {
    plans: new Map(
      (await every(core, '/subscription-plans')).map((p) => [
        p.id,
        { cents: parseAmount(p.attributes.amount)!, frequency: p.attributes.frequency },
      ]),
    ),
    subscriptions,
    events: await every(core, '/events'),
    transactions: (
      await Promise.all(subscriptions.map((s) => every(core, `/subscriptions/${s.id}/transactions`)))
    ).flat(),
    invoices,
    lines,
    customers: new Map((await every(core, '/customers')).map((c) => [c.id, c])),
  };
}

interface Period {
  key: string;
  start: number;
  end: number;
}

/** Calendar periods from `from` to `to`, those begun by `today`, each from local midnight to local midnight. */
function periodsOf(from: string, to: string, by: 'month' | 'quarter' | 'year', today: string): Period[] {
  const periods: Period[] = [];
  const months = { month: 1, quarter: 3, year: 12 }[by];
  for (let day = from; day <= to && day <= today;) {
    const month = Number(day.slice(5, 7));
    const firstMonth = by === 'month' ? month : by === 'quarter' ? month - ((month - 1) % 3) : 1;
    const first = `${day.slice(0, 4)}-${String(firstMonth).padStart(2, '0')}-01`;
    const next = addMonths(first, months);
    const last = addDays(next, -1) < to ? addDays(next, -1) : to;
    const key =
      by === 'month'
        ? first.slice(0, 7)
        : by === 'year'
          ? first.slice(0, 4)
          : `${first.slice(0, 4)}-Q${Math.ceil(firstMonth / 3)}`;
    periods.push({ key, start: Date.parse(midnight(day, TZ)), end: Date.parse(midnight(addDays(last, 1), TZ)) });
    day = next;
  }
  return periods;
}

const PER_YEAR: Record<string, number> = { weekly: 52, monthly: 12, quarterly: 4, half_yearly: 2, yearly: 1, once: 0 };
/** Half a cent up: amounts are positive. */
const monthly = (plan: { cents: number; frequency: string }): number =>
  Math.floor((2 * plan.cents * PER_YEAR[plan.frequency] + 12) / 24);
const money = (cents: number): string => formatAmount(cents);
const share = (part: number, whole: number): string | null => {
  if (whole === 0) return null;
  const n = Math.floor((2 * part * 10_000 + whole) / (2 * whole));
  return `${Math.floor(n / 10_000)}.${String(n % 10_000).padStart(4, '0')}`;
};
const at = (instant: string): number => Date.parse(instant);

/** Each subscription's status changes in order, with the status before each (null for its first). */
function subscriptionChanges(data: Exported) {
  const last = new Map<string, string>();
  return data.events
    .filter((e) => e.attributes.transaction_id === null)
    .map((e) => {
      const sub = e.attributes.subscription_id as string;
      const change = {
        sub,
        status: e.attributes.status as string,
        before: last.get(sub) ?? null,
        at: at(e.attributes.occurred_at),
      };
      last.set(sub, change.status);
      return change;
    });
}

function expectedMrr(data: Exported, periods: Period[]) {
  const changes = subscriptionChanges(data);
  const planOf = new Map(
    data.subscriptions.map((s) => [s.id as string, data.plans.get(s.relationships['subscription-plan'].data.id)!]),
  );
  const statusAt = (sub: string, instant: number) =>
    changes.filter((c) => c.sub === sub && c.at < instant).at(-1)?.status;
  const activeAt = (instant: number) =>
    data.subscriptions.filter((s) => statusAt(s.id, instant) === 'active' && planOf.get(s.id)!.frequency !== 'once');
  const mrrAt = (instant: number) => activeAt(instant).reduce((sum, s) => sum + monthly(planOf.get(s.id)!), 0);
  return periods.map((p) => {
    const moved = { new: 0, reactivated: 0, paused: 0, churned: 0 };
    for (const c of changes.filter((c) => c.at >= p.start && c.at < p.end)) {
      const value = monthly(planOf.get(c.sub)!);
      if (c.status === 'active') moved[c.before === 'paused' ? 'reactivated' : 'new'] += value;
      else if (c.before === 'active' && c.status === 'paused') moved.paused += value;
      else if (c.before === 'active' && c.status === 'cancelled') moved.churned += value;
    }
    const net = mrrAt(p.end) - mrrAt(p.start);
    return {
      period: p.key,
      mrr: money(mrrAt(p.end)),
      new: money(moved.new),
      reactivated: money(moved.reactivated),
      paused: money(moved.paused),
      churned: money(moved.churned),
      repriced: money(0),
      net: money(net),
      active: activeAt(p.end).length,
    };
  });
}

function expectedSubscriptions(data: Exported, periods: Period[]) {
  const changes = subscriptionChanges(data);
  const countAt = (status: string, instant: number) =>
    data.subscriptions.filter((s) => changes.filter((c) => c.sub === s.id && c.at < instant).at(-1)?.status === status)
      .length;
  return periods.map((p) => {
    const inPeriod = changes.filter((c) => c.at >= p.start && c.at < p.end);
    const churned = inPeriod.filter(
      (c) => c.status === 'cancelled' && (c.before === 'active' || c.before === 'paused'),
    ).length;
    return {
      period: p.key,
      active: countAt('active', p.end),
      paused: countAt('paused', p.end),
      unverified: countAt('unverified', p.end),
      cancelled: countAt('cancelled', p.end),
      new: inPeriod.filter((c) => c.before === null).length,
      paused_in_period: inPeriod.filter((c) => c.before !== null && c.status === 'paused').length,
      cancelled_in_period: inPeriod.filter((c) => c.status === 'cancelled').length,
      churned,
      churn_rate: share(churned, countAt('active', p.start)),
    };
  });
}

/** Every status change of every transaction from its history: the status before is the item before (queued first). */
function transactionChanges(data: Exported) {
  return data.transactions.flatMap((tx) => {
    let before = 'queued';
    return (tx.attributes.history as { status: string; recorded_on: string; reason_code: string | null }[]).map(
      (item) => {
        const change = {
          status: item.status,
          before,
          at: at(item.recorded_on),
          code: item.reason_code,
          cents: parseAmount(tx.attributes.amount)!,
        };
        before = item.status;
        return change;
      },
    );
  });
}

const kindOf = (status: string, before: string): 'collected' | 'returned' | 'failed' | undefined =>
  status === 'succeeded'
    ? 'collected'
    : ['succeeded', 'fulfilled'].includes(before) && ['charged_back', 'failed'].includes(status)
      ? 'returned'
      : status === 'failed' && ['scheduled', 'rescheduled'].includes(before)
        ? 'failed'
        : undefined;

function expectedCollections(data: Exported, periods: Period[]) {
  const changes = transactionChanges(data);
  const rows = periods.map((p) => {
    const sum = { collected: [0, 0], returned: [0, 0], failed: [0, 0], recovered: [0, 0] } as Record<
      string,
      [number, number]
    >;
    for (const c of changes.filter((c) => c.at >= p.start && c.at < p.end)) {
      const kind = kindOf(c.status, c.before);
      if (kind) sum[kind] = [sum[kind][0] + 1, sum[kind][1] + c.cents];
      if (kind === 'collected' && c.before === 'rescheduled')
        sum.recovered = [sum.recovered[0] + 1, sum.recovered[1] + c.cents];
    }
    return {
      period: p.key,
      collected: money(sum.collected[1]),
      collected_count: sum.collected[0],
      returned: money(sum.returned[1]),
      returned_count: sum.returned[0],
      failed: money(sum.failed[1]),
      failed_count: sum.failed[0],
      net: money(sum.collected[1] - sum.returned[1]),
      success_rate: share(sum.collected[0], sum.collected[0] + sum.failed[0]),
      recovered: money(sum.recovered[1]),
      recovered_count: sum.recovered[0],
    };
  });
  const codes = new Map<string, { returned_count: number; returned: number; failed_count: number; failed: number }>();
  for (const c of changes.filter((c) => c.at >= periods[0].start && c.at < periods.at(-1)!.end)) {
    const kind = kindOf(c.status, c.before);
    if (kind !== 'returned' && kind !== 'failed') continue;
    const entry = codes.get(c.code!) ?? { returned_count: 0, returned: 0, failed_count: 0, failed: 0 };
    entry[`${kind}_count`]++;
    entry[kind] += c.cents;
    codes.set(c.code!, entry);
  }
  const reasons = [...codes.entries()]
    .sort(([a, x], [b, y]) => y.returned_count + y.failed_count - x.returned_count - x.failed_count || (a < b ? -1 : 1))
    .map(([code, e]) => ({
      reason_code: code,
      reason: expect.any(String),
      returned_count: e.returned_count,
      returned: money(e.returned),
      failed_count: e.failed_count,
      failed: money(e.failed),
    }));
  return { rows, reasons };
}

const finalised = (data: Exported) => data.invoices.filter((i) => i.attributes.status !== 'draft');
const isCredit = (invoice: Doc) => Boolean(invoice.relationships['original-invoice']?.data);
const cents = (text: string) => parseAmount(text)!;

function expectedRevenue(data: Exported, periods: Period[]) {
  return periods.map((p) => {
    const dated = finalised(data).filter(
      (i) => at(i.attributes.invoice_date) >= p.start && at(i.attributes.invoice_date) < p.end,
    );
    const total = (list: Doc[], name: string) => list.reduce((sum, i) => sum + cents(i.attributes[name]), 0);
    const [invoiced, credited] = [dated.filter((i) => !isCredit(i)), dated.filter(isCredit)];
    return {
      period: p.key,
      invoices: invoiced.length,
      invoiced_excl: money(total(invoiced, 'amount_excl')),
      invoiced_tax: money(total(invoiced, 'tax_amount')),
      invoiced_incl: money(total(invoiced, 'amount_incl')),
      credit_invoices: credited.length,
      credited_excl: money(total(credited, 'amount_excl')),
      credited_tax: money(total(credited, 'tax_amount')),
      credited_incl: money(total(credited, 'amount_incl')),
      net_excl: money(total(dated, 'amount_excl')),
      net_tax: money(total(dated, 'tax_amount')),
      net_incl: money(total(dated, 'amount_incl')),
    };
  });
}

function expectedVat(data: Exported, periods: Period[]) {
  const rows: { period: string; rate: string; base: string; tax: string; invoices: number }[] = [];
  for (const p of periods) {
    const perRate = new Map<number, { base: number; tax: number; invoices: Set<string>; fromTaxRates: number }>();
    for (const invoice of finalised(data).filter(
      (i) => at(i.attributes.invoice_date) >= p.start && at(i.attributes.invoice_date) < p.end,
    )) {
      for (const line of data.lines.get(invoice.id)!) {
        const rate = cents(line.attributes.tax_rate);
        const entry = perRate.get(rate) ?? { base: 0, tax: 0, invoices: new Set(), fromTaxRates: 0 };
        entry.base += line.attributes.quantity * cents(line.attributes.amount_excl);
        entry.tax += line.attributes.quantity * cents(line.attributes.tax_amount);
        entry.invoices.add(invoice.id);
        perRate.set(rate, entry);
      }
      for (const { rate, amount } of invoice.attributes.tax_rates as { rate: string; amount: string }[])
        perRate.get(cents(rate))!.fromTaxRates += cents(amount);
    }
    for (const [rate, e] of [...perRate].sort((a, b) => b[0] - a[0])) {
      // The reconciliation: the lines' tax of a rate is the invoices' tax_rates entry of it, to the cent.
      expect(e.tax, `${p.key} ${rate}`).toBe(e.fromTaxRates);
      rows.push({
        period: p.key,
        rate: money(rate),
        base: money(e.base),
        tax: money(e.tax),
        invoices: e.invoices.size,
      });
    }
  }
  return rows;
}

function expectedOverdue(data: Exported, now: string) {
  const today = dayAt(now, TZ);
  const credits = new Map<string, number>();
  for (const credit of finalised(data).filter(isCredit)) {
    const original = credit.relationships['original-invoice'].data.id as string;
    credits.set(original, (credits.get(original) ?? 0) + cents(credit.attributes.amount_incl));
  }
  const owing = data.invoices
    .filter((i) => ['open', 'charged_back'].includes(i.attributes.status))
    .map((i) => {
      const since = dayAt(new Date(at(i.attributes.transaction_date ?? i.attributes.invoice_date)).toISOString(), TZ);
      return {
        customer: i.relationships.customer.data.id as string,
        owed: cents(i.attributes.amount_incl) + (credits.get(i.id) ?? 0),
        days: Math.round((Date.parse(today) - Date.parse(since)) / 86_400_000),
      };
    })
    .filter((i) => i.owed > 0);
  const buckets = [
    ['not-due', -Infinity, -1],
    ['0-30', 0, 30],
    ['31-60', 31, 60],
    ['61-90', 61, 90],
    ['91+', 91, Infinity],
  ] as const;
  const rows = buckets.map(([bucket, low, high]) => {
    const inside = owing.filter((i) => i.days >= low && i.days <= high);
    return {
      bucket,
      invoices: inside.length,
      amount: money(inside.reduce((s, i) => s + i.owed, 0)),
      customers: new Set(inside.map((i) => i.customer)).size,
    };
  });
  const byCustomer = new Map<string, { invoices: number; owed: number; oldest: number }>();
  for (const i of owing.filter((i) => i.days >= 0)) {
    const entry = byCustomer.get(i.customer) ?? { invoices: 0, owed: 0, oldest: -1 };
    byCustomer.set(i.customer, {
      invoices: entry.invoices + 1,
      owed: entry.owed + i.owed,
      oldest: Math.max(entry.oldest, i.days),
    });
  }
  const customers = [...byCustomer]
    .sort(([a, x], [b, y]) => y.owed - x.owed || Number(a) - Number(b))
    .slice(0, 10)
    .map(([id, e]) => {
      const c = data.customers.get(id)!.attributes;
      return {
        customer_id: id,
        name: `${c.first_name} ${c.last_name}`,
        invoices: e.invoices,
        amount: money(e.owed),
        oldest_days: e.oldest,
      };
    });
  return { rows, customers };
}

// ---- the property ----

const rangeArbitrary = fc.record({
  by: fc.constantFrom('month', 'quarter', 'year', undefined),
  fromBack: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
  toBack: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
});

async function reportOf(core: EmbeddedCore, name: string, query: Record<string, string | undefined>): Promise<Doc> {
  const text = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `filter[${k}]=${v}`)
    .join('&');
  const answer = await send(core, 'GET', `/reports/${name}`, { query: text || undefined });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.meta;
}

describe('every report equals a plain recomputation from the exports', () => {
  it('over random histories made with the clock, and any range and grain', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArbitrary, { minLength: 20, maxLength: 45 }),
        fc.array(rangeArbitrary, { minLength: 2, maxLength: 3 }),
        async (steps, ranges) => {
          const core = await testCore({ clock: fixedClock(START) });
          const planIds: number[] = [];
          for (const plan of PLANS) planIds.push(await makePlan(core, plan));
          await play(core, planIds, steps);
          const data = await exported(core);
          const now = core.clock.now().toISOString();
          const today = dayAt(now, TZ);

          const overdue = await reportOf(core, 'overdue', {});
          const expected = expectedOverdue(data, now);
          expect(overdue.rows).toEqual(expected.rows);
          expect(overdue.customers).toEqual(expected.customers);

          for (const range of ranges) {
            const to = range.toBack === undefined ? undefined : addDays(today, -range.toBack);
            const from = range.fromBack === undefined ? undefined : addDays(to ?? today, -range.fromBack);
            const by = range.by;
            const query = { from, to, by };
            const mrr = await reportOf(core, 'mrr', query);
            const periods = periodsOf(mrr.from, mrr.to, mrr.by, today);
            expect(mrr.rows).toEqual(expectedMrr(data, periods));
            expect((await reportOf(core, 'subscriptions', query)).rows).toEqual(expectedSubscriptions(data, periods));
            const collections = await reportOf(core, 'collections', query);
            const { rows, reasons } = expectedCollections(data, periods);
            expect(collections.rows).toEqual(rows);
            expect(collections.reasons).toEqual(reasons);
            expect((await reportOf(core, 'revenue', query)).rows).toEqual(expectedRevenue(data, periods));
            expect((await reportOf(core, 'vat', query)).rows).toEqual(expectedVat(data, periods));
          }
        },
      ),
      { numRuns: 6, endOnFailure: true },
    );
  }, 600_000);
});
