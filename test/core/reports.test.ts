// The reports' definitions, each in a small history whose figures are known: the periods a range
// makes (the account's zone, cut to the days asked, the current period so far), MRR's normalisation
// and rounding and its moves, a plan's amount at a past date, what collections count where, revenue
// and VAT with a credit invoice, overdue ages and credits, and one account never counting another's.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import type { CoreContext } from '../../src/lib/core/context.js';
import { monthlyCents, prepareReport } from '../../src/lib/core/reports/index.js';
import { MAX_PERIODS, resolveRange } from '../../src/lib/core/reports/range.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import type { ReportName } from '../../src/lib/schemas/reports.js';
import { run } from '../../src/lib/store/unit.js';
import { testCore } from '../helpers/store.js';
import { context, createCustomer, makePlan, send } from '../api/support.js';

const TZ = 'Europe/Amsterdam';

describe('the periods of a range', () => {
  const NOW = '2027-03-31T10:00:00.000Z';
  const range = (input: Parameters<typeof resolveRange>[0], now = NOW, zone = TZ) => {
    const resolved = resolveRange(input, now, zone);
    if (!resolved.ok) throw new Error(JSON.stringify(resolved.failure));
    return resolved.value;
  };

  it('by default: the last 12 months, by month, up to today', () => {
    const r = range({});
    expect([r.from, r.to, r.by]).toEqual(['2026-04-01', '2027-03-31', 'month']);
    expect(r.periods.map((p) => p.key)).toEqual([
      '2026-04',
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-11',
      '2026-12',
      '2027-01',
      '2027-02',
      '2027-03',
    ]);
  });

  it('by quarter or year without --from: the periods that hold the last 12 months', () => {
    expect(range({ by: 'quarter' }).periods.map((p) => p.key)).toEqual(['2026-Q2', '2026-Q3', '2026-Q4', '2027-Q1']);
    expect(range({ by: 'year' }).periods.map((p) => p.key)).toEqual(['2026', '2027']);
    expect(range({ by: 'quarter', to: '2027-02-10' }, NOW).from).toBe('2026-01-01');
  });

  it('runs each period from 00:00 of its first day to 00:00 after its last, in the zone (summer time too)', () => {
    const r = range({ from: '2027-03-01', to: '2027-04-30' }, '2027-05-02T10:00:00.000Z');
    expect(r.periods).toEqual([
      { key: '2027-03', start: '2027-02-28T23:00:00.000Z', end: '2027-03-31T22:00:00.000Z' },
      { key: '2027-04', start: '2027-03-31T22:00:00.000Z', end: '2027-04-30T22:00:00.000Z' },
    ]);
    expect(range({ from: '2027-01-01', to: '2027-01-01' }, NOW, 'America/New_York').periods).toEqual([
      { key: '2027-01', start: '2027-01-01T05:00:00.000Z', end: '2027-01-02T05:00:00.000Z' },
    ]);
  });

  it('cuts the first and last period to --from and --to', () => {
    const r = range({ from: '2026-11-15', to: '2027-01-10', by: 'quarter' });
    expect(r.periods).toEqual([
      { key: '2026-Q4', start: '2026-11-14T23:00:00.000Z', end: '2026-12-31T23:00:00.000Z' },
      { key: '2027-Q1', start: '2026-12-31T23:00:00.000Z', end: '2027-01-10T23:00:00.000Z' },
    ]);
  });

  it('leaves out the periods that have not begun, and keeps the current one (so far)', () => {
    const r = range({ from: '2027-01-01', to: '2027-06-30' });
    expect(r.periods.map((p) => p.key)).toEqual(['2027-01', '2027-02', '2027-03']);
    expect([r.from, r.to]).toEqual(['2027-01-01', '2027-06-30']);
  });

  it.each([
    [{ from: '2027-02-30' }, 'filter[from]', /YYYY-MM-DD/],
    [{ to: '31-03-2027' }, 'filter[to]', /YYYY-MM-DD/],
    [{ from: '2027-03-02', to: '2027-03-01' }, 'filter[from]', /on or before/],
    [{ from: '2027-04-01', to: '2027-05-01' }, 'filter[from]', /after today \(2027-03-31\)/],
    [{ from: '1990-01-01' }, 'filter[from]', new RegExp(`more than ${MAX_PERIODS} periods`)],
  ])('refuses %j, naming %s', (input, parameter, detail) => {
    const resolved = resolveRange(input, NOW, TZ);
    expect(resolved.ok).toBe(false);
    if (!resolved.ok)
      expect(resolved.failure).toEqual({ kind: 'invalid_parameter', parameter, detail: expect.stringMatching(detail) });
  });
});

describe('MRR normalisation', () => {
  it('is the amount times its collections a year over 12, rounded half away from zero, per subscription', () => {
    expect(monthlyCents(1750, 'weekly')).toBe(7583); // 75.8333
    expect(monthlyCents(1250, 'monthly')).toBe(1250);
    expect(monthlyCents(3995, 'quarterly')).toBe(1332); // 13.3166
    expect(monthlyCents(8901, 'half_yearly')).toBe(1484); // 14.835: half a cent, up
    expect(monthlyCents(24006, 'yearly')).toBe(2001); // 20.005: half a cent, up
    expect(monthlyCents(4500, 'once')).toBe(0);
  });
});

// ---- histories ----

const doc = (type: string, attributes: Record<string, unknown>, id?: string) => ({
  data: { type, ...(id ? { id } : {}), attributes },
});

async function history(start: string) {
  const core = await testCore({ clock: fixedClock(start) });
  const ctx = await context(core);
  let customers = 0;
  const h = {
    core,
    ctx,
    async to(iso: string) {
      const moved = await setClock(core, iso);
      if (!moved.ok) throw new Error(JSON.stringify(moved.failure));
    },
    async subscribe(plan: number, attributes: Record<string, unknown> = {}) {
      const customer = await createCustomer(core, {
        first_name: `First${++customers}`,
        last_name: `Last${customers}`,
        email: `c${customers}@example.com`,
      });
      const today = core.clock.now().toISOString().slice(0, 10);
      const answer = await send(core, 'POST', '/subscriptions', {
        body: doc('subscription', {
          customer_id: customer,
          subscription_plan_id: plan,
          status: 'active',
          mandate_accepted: true,
          mandate_accepted_date: today,
          ...attributes,
        }),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body.data.id as string;
    },
    async change(id: string, attributes: Record<string, unknown>) {
      const answer = await send(core, 'PATCH', `/subscriptions/${id}`, { body: doc('subscription', attributes, id) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    },
    async transactions(id: string) {
      return (await send(core, 'GET', `/subscriptions/${id}/transactions`, { query: 'page[size]=100' })).body.data as {
        id: string;
        attributes: { status: string; due_date: string };
      }[];
    },
    async outcome(id: string, status: string, outcome: 'charged_back' | 'failed', code: string) {
      const tx = (await h.transactions(id)).find((t) => t.attributes.status === status)!;
      const result = await simulateOutcome(ctx, tx.id, outcome, code);
      expect(result.ok, JSON.stringify(result)).toBe(true);
    },
    async invoice(subscription: string, lines: Record<string, unknown>[], attributes: Record<string, unknown> = {}) {
      const made = await send(core, 'POST', '/invoices', {
        body: doc('invoice', { subscription_id: subscription, ...attributes }),
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      for (const line of lines)
        expect(
          (
            await send(core, 'POST', '/invoice-lines', {
              body: doc('invoice-line', { invoice_id: Number(made.body.data.id), description: 'Item', ...line }),
            })
          ).status,
        ).toBe(201);
      const finalised = await send(core, 'PATCH', `/invoices/${made.body.data.id}/finalise`);
      expect(finalised.status, JSON.stringify(finalised.body)).toBe(200);
      return finalised.body.data.id as string;
    },
    async credit(invoice: string) {
      const credit = await send(core, 'POST', `/invoices/${invoice}/credit`);
      expect((await send(core, 'PATCH', `/invoices/${credit.body.data.id}/finalise`)).status).toBe(200);
      return credit.body.data.id as string;
    },
    async report(
      name: ReportName,
      input: { from?: string; to?: string; by?: 'month' | 'quarter' | 'year' } = {},
      on: CoreContext = ctx,
    ) {
      const prepared = prepareReport(on, name, input);
      if (!prepared.ok) throw new Error(JSON.stringify(prepared.failure));
      return on.store.read(prepared.value);
    },
  };
  return h;
}

const pick = (rows: Record<string, unknown>[], ...names: string[]) =>
  rows.map((row) => Object.fromEntries(names.map((n) => [n, row[n]])));

describe('MRR', () => {
  it('counts new, paused, resumed and churned in their periods, valued per subscription, and the net adds up', async () => {
    const h = await history('2026-01-10T09:00:00.000Z');
    const monthly = await makePlan(h.core, { name: 'Monthly', amount: '12.50', frequency: 'monthly' });
    const weekly = await makePlan(h.core, { name: 'Weekly', amount: '17.50', frequency: 'weekly' });
    const once = await makePlan(h.core, { name: 'Once', amount: '45.00', frequency: 'once' });
    const a = await h.subscribe(monthly);
    const b = await h.subscribe(weekly);
    await h.subscribe(once);
    await h.to('2026-02-15T09:00:00.000Z');
    await h.change(a, { status: 'paused' });
    await h.to('2026-03-05T09:00:00.000Z');
    await h.change(a, { status: 'active' });
    await h.to('2026-04-20T09:00:00.000Z');
    await h.change(b, { status: 'cancelled' });
    const report = await h.report('mrr', { from: '2026-01-01', to: '2026-04-30' });
    expect(report.rows.data).toEqual([
      {
        period: '2026-01',
        mrr: 8833,
        new: 8833,
        reactivated: 0,
        paused: 0,
        churned: 0,
        repriced: 0,
        net: 8833,
        active: 2,
      },
      {
        period: '2026-02',
        mrr: 7583,
        new: 0,
        reactivated: 0,
        paused: 1250,
        churned: 0,
        repriced: 0,
        net: -1250,
        active: 1,
      },
      {
        period: '2026-03',
        mrr: 8833,
        new: 0,
        reactivated: 1250,
        paused: 0,
        churned: 0,
        repriced: 0,
        net: 1250,
        active: 2,
      },
      {
        period: '2026-04',
        mrr: 1250,
        new: 0,
        reactivated: 0,
        paused: 0,
        churned: 7583,
        repriced: 0,
        net: -7583,
        active: 1,
      },
    ]);
  });

  it("values each instant at the plan's amount of that instant: a changed amount is repriced from then on", async () => {
    const h = await history('2026-01-10T09:00:00.000Z');
    const plan = await makePlan(h.core, { name: 'Monthly', amount: '10.00', frequency: 'monthly' });
    await h.subscribe(plan);
    const b = await h.subscribe(plan);
    // What the credit-rules branch makes possible: a plan's amount changed (here straight in the store, as its use case will).
    await h.to('2026-03-10T09:00:00.000Z');
    const changedAt = h.core.clock.now().toISOString();
    await h.ctx.store.write(() =>
      run((q) =>
        q.updateTable('subscription_plans').set({ amount_cents: 1500, updated_at: changedAt }).where('id', '=', plan),
      ),
    );
    await h.to('2026-04-02T09:00:00.000Z');
    await h.change(b, { status: 'cancelled' });
    const report = await h.report('mrr', { from: '2026-01-01', to: '2026-04-30' });
    expect(pick(report.rows.data, 'period', 'mrr', 'new', 'churned', 'repriced', 'net')).toEqual([
      { period: '2026-01', mrr: 2000, new: 2000, churned: 0, repriced: 0, net: 2000 },
      { period: '2026-02', mrr: 2000, new: 0, churned: 0, repriced: 0, net: 0 },
      { period: '2026-03', mrr: 3000, new: 0, churned: 0, repriced: 1000, net: 1000 },
      { period: '2026-04', mrr: 1500, new: 0, churned: 1500, repriced: 0, net: -1500 },
    ]);
  });
});

describe('subscriptions', () => {
  it('counts statuses at each end, moves in each period, and churn as churned / active at the start', async () => {
    const h = await history('2026-01-10T09:00:00.000Z');
    const plan = await makePlan(h.core, { name: 'Monthly', amount: '10.00', frequency: 'monthly' });
    const [a, b] = [await h.subscribe(plan), await h.subscribe(plan), await h.subscribe(plan), await h.subscribe(plan)];
    const unverified = await h.subscribe(plan, {
      status: undefined,
      mandate_accepted: undefined,
      mandate_accepted_date: undefined,
    });
    await h.to('2026-02-03T09:00:00.000Z');
    await h.change(a, { status: 'paused' });
    await h.change(unverified, { status: 'cancelled' });
    await h.to('2026-02-20T09:00:00.000Z');
    await h.change(a, { status: 'cancelled' });
    await h.change(b, { status: 'cancelled' });
    const report = await h.report('subscriptions', { from: '2026-01-01', to: '2026-02-28' });
    expect(report.rows.data).toEqual([
      {
        period: '2026-01',
        active: 4,
        paused: 0,
        unverified: 1,
        cancelled: 0,
        new: 5,
        paused_in_period: 0,
        cancelled_in_period: 0,
        churned: 0,
        churn_rate: null,
      },
      // A never-started (unverified) subscription cancelled is cancelled, not churn: 2 churned of 4 active at the start.
      {
        period: '2026-02',
        active: 2,
        paused: 0,
        unverified: 0,
        cancelled: 3,
        new: 0,
        paused_in_period: 1,
        cancelled_in_period: 3,
        churned: 2,
        churn_rate: 5000,
      },
    ]);
  });
});

describe('collections', () => {
  it('counts a return in the period it came back, a failed attempt apart, a recovery by a storno retry, and the end of a return once', async () => {
    // A monthly plan with one storno retry; collections at 00:00 of the 10th, fulfilled 3 days later.
    const h = await history('2026-01-09T09:00:00.000Z');
    const plan = await makePlan(h.core, {
      name: 'Monthly',
      amount: '10.00',
      frequency: 'monthly',
      storno_retries: 1,
      start_date: '2026-01-10',
    });
    const sub = await h.subscribe(plan);
    await h.to('2026-02-02T09:00:00.000Z'); // January's 10.00 collected on the 10th and fulfilled
    await h.outcome(sub, 'fulfilled', 'charged_back', 'MD06'); // returned in February; retried on the 5th and collected: recovered
    await h.outcome(sub, 'scheduled', 'failed', 'AM04'); // February's collection (the 10th) fails at collection; its retry on the 13th succeeds
    await h.to('2026-03-01T09:00:00.000Z');
    // March 1: February's collection returned; its one retry is used, so it ends failed at once (not counted again).
    await h.outcome(sub, 'fulfilled', 'charged_back', 'AC04');
    await h.outcome(sub, 'scheduled', 'failed', 'AM04'); // March 10 fails at collection ...
    await h.to('2026-03-11T09:00:00.000Z');
    await h.outcome(sub, 'rescheduled', 'failed', 'AM04'); // ... and at its retry on the 13th
    await h.to('2026-03-20T09:00:00.000Z');
    const report = await h.report('collections', { from: '2026-01-01', to: '2026-03-31' });
    expect(report.rows.data).toEqual([
      {
        period: '2026-01',
        collected: 1000,
        collected_count: 1,
        returned: 0,
        returned_count: 0,
        failed: 0,
        failed_count: 0,
        net: 1000,
        success_rate: 10000,
        recovered: 0,
        recovered_count: 0,
      },
      // January's return (Feb 2) and its recovery (Feb 5); Feb 10 failed, recovered on the 13th.
      {
        period: '2026-02',
        collected: 2000,
        collected_count: 2,
        returned: 1000,
        returned_count: 1,
        failed: 1000,
        failed_count: 1,
        net: 1000,
        success_rate: 6667,
        recovered: 2000,
        recovered_count: 2,
      },
      {
        period: '2026-03',
        collected: 0,
        collected_count: 0,
        returned: 1000,
        returned_count: 1,
        failed: 2000,
        failed_count: 2,
        net: -1000,
        success_rate: 0,
        recovered: 0,
        recovered_count: 0,
      },
    ]);
    expect(report.rows.reasons).toEqual([
      {
        reason_code: 'AM04',
        reason: 'Insufficient funds',
        returned_count: 0,
        returned: 0,
        failed_count: 3,
        failed: 3000,
      },
      { reason_code: 'AC04', reason: 'Account closed', returned_count: 1, returned: 1000, failed_count: 0, failed: 0 },
      {
        reason_code: 'MD06',
        reason: 'Refund requested by the debtor',
        returned_count: 1,
        returned: 1000,
        failed_count: 0,
        failed: 0,
      },
    ]);
  });
});

describe('revenue and VAT', () => {
  it('counts invoices by invoice date, credits apart and in their own period; VAT per rate from the lines, credits netted', async () => {
    const h = await history('2026-01-09T09:00:00.000Z');
    const plan = await makePlan(h.core, { name: 'Monthly', amount: '10.00', frequency: 'monthly' });
    const sub = await h.subscribe(plan);
    const first = await h.invoice(sub, [
      { amount: '100.00', tax_rate: '21', quantity: 2 },
      { amount: '10.90', tax_rate: '9', tax_included: true },
      { amount: '-5.00', tax_rate: '21' },
    ]);
    await h.to('2026-02-03T09:00:00.000Z');
    await h.invoice(sub, [{ amount: '50.00', tax_rate: '0' }]);
    await h.credit(first);
    const revenue = await h.report('revenue', { from: '2026-01-01', to: '2026-02-28' });
    // January: 195.00 + 10.00 excl, 40.95 + 0.90 tax.
    expect(revenue.rows.data).toEqual([
      {
        period: '2026-01',
        invoices: 1,
        invoiced_excl: 20500,
        invoiced_tax: 4185,
        invoiced_incl: 24685,
        credit_invoices: 0,
        credited_excl: 0,
        credited_tax: 0,
        credited_incl: 0,
        net_excl: 20500,
        net_tax: 4185,
        net_incl: 24685,
      },
      {
        period: '2026-02',
        invoices: 1,
        invoiced_excl: 5000,
        invoiced_tax: 0,
        invoiced_incl: 5000,
        credit_invoices: 1,
        credited_excl: -20500,
        credited_tax: -4185,
        credited_incl: -24685,
        net_excl: -15500,
        net_tax: -4185,
        net_incl: -19685,
      },
    ]);
    expect((await h.report('vat', { from: '2026-01-01', to: '2026-02-28' })).rows.data).toEqual([
      { period: '2026-01', rate: 2100, base: 19500, tax: 4095, invoices: 1 },
      { period: '2026-01', rate: 900, base: 1000, tax: 90, invoices: 1 },
      { period: '2026-02', rate: 2100, base: -19500, tax: -4095, invoices: 1 },
      { period: '2026-02', rate: 900, base: -1000, tax: -90, invoices: 1 },
      { period: '2026-02', rate: 0, base: 5000, tax: 0, invoices: 1 },
    ]);
    // The quarter as a VAT return: the credit nets the invoice out.
    expect((await h.report('vat', { from: '2026-01-01', to: '2026-03-31', by: 'quarter' })).rows.data).toEqual([
      { period: '2026-Q1', rate: 2100, base: 0, tax: 0, invoices: 2 },
      { period: '2026-Q1', rate: 900, base: 0, tax: 0, invoices: 2 },
      { period: '2026-Q1', rate: 0, base: 5000, tax: 0, invoices: 1 },
    ]);
  });
});

describe('overdue', () => {
  it('ages open and charged-back invoices from their transaction date (else invoice date), less their credits', async () => {
    const h = await history('2026-01-05T09:00:00.000Z');
    const plan = await makePlan(h.core, { name: 'Monthly', amount: '10.00', frequency: 'monthly' });
    const sub = await h.subscribe(plan);
    // Open invoices are collected and paid unless something stops them: these are on a paused subscription.
    await h.change(sub, { status: 'paused' });
    await h.invoice(sub, [{ amount: '100.00', tax_rate: '0' }]); // dated Jan 5: 95 days on Apr 10
    await h.to('2026-03-01T09:00:00.000Z');
    const credited = await h.invoice(sub, [{ amount: '40.00', tax_rate: '0' }]);
    await h.credit(credited); // owes nothing: left out
    await h.invoice(sub, [{ amount: '30.00', tax_rate: '0' }]); // Mar 1: 40 days
    await h.invoice(sub, [{ amount: '20.00', tax_rate: '0' }], {
      invoice_date: '2026-03-01',
      transaction_date: '2026-04-20',
    }); // not yet due
    await h.to('2026-04-10T09:00:00.000Z');
    await h.invoice(sub, [{ amount: '5.00', tax_rate: '0' }]); // today: 0 days
    const report = await h.report('overdue');
    expect([report.from, report.to, report.by]).toEqual([null, '2026-04-10', null]);
    expect(report.rows.data).toEqual([
      { bucket: 'not-due', invoices: 1, amount: 2000, customers: 1 },
      { bucket: '0-30', invoices: 1, amount: 500, customers: 1 },
      { bucket: '31-60', invoices: 1, amount: 3000, customers: 1 },
      { bucket: '61-90', invoices: 0, amount: 0, customers: 0 },
      { bucket: '91+', invoices: 1, amount: 10000, customers: 1 },
    ]);
    // The customer's overdue invoices (not the one not yet due); the oldest 95 days past.
    expect(report.rows.customers).toEqual([
      { customer_id: '1', name: 'First1 Last1', invoices: 3, amount: 13500, oldest_days: 95 },
    ]);
  });
});

describe('accounts', () => {
  it("never counts another account's subscriptions, collections or invoices", async () => {
    const h = await history('2026-01-10T09:00:00.000Z');
    const plan = await makePlan(h.core, { name: 'Monthly', amount: '10.00', frequency: 'monthly' });
    const sub = await h.subscribe(plan);
    await h.invoice(sub, [{ amount: '10.00', tax_rate: '21' }]);
    const made = await createAccount(h.ctx.store, h.core.clock, 'other');
    if (!made.ok) throw new Error('account');
    const other: CoreContext = { store: h.ctx.store, clock: h.core.clock, account: made.value.account };
    const range = { from: '2026-01-01', to: '2026-01-31' };
    expect(pick((await h.report('mrr', range, other)).rows.data, 'mrr', 'active')).toEqual([{ mrr: 0, active: 0 }]);
    expect(pick((await h.report('collections', range, other)).rows.data, 'collected_count')).toEqual([
      { collected_count: 0 },
    ]);
    expect(pick((await h.report('revenue', range, other)).rows.data, 'invoices')).toEqual([{ invoices: 0 }]);
    expect((await h.report('vat', range, other)).rows.data).toEqual([]);
    expect(pick((await h.report('mrr', range)).rows.data, 'mrr', 'active')).toEqual([{ mrr: 1000, active: 1 }]);
  });
});
