// Revenue, VAT and overdue invoices, from the invoices and their lines.
//
// A finalised invoice is any invoice that is not a draft (open, paid, charged back, cancelled or
// completed): it was issued, whatever became of its collection. It counts in the period of its
// invoice_date. A credit invoice is one that names an original (original_invoice_id); it counts in
// the period of its own invoice date, apart from the other invoices, and nets against them.
import { sql } from 'kysely';
import { AGE_BUCKETS, TOP_CUSTOMERS } from '../../schemas/reports.js';
import { all, type Unit } from '../../store/unit.js';
import { addDays, dayAt, midnight } from '../schedule.js';
import { num, type ReportRows, type Row } from './rows.js';
import { boundsOf, spanOf, type Range } from './range.js';

/** Finalised invoices by period, credits apart: counts, amounts excluding tax, tax, and the net. */
export function* revenueReport(accountId: number, range: Range): Unit<ReportRows> {
  const bounds = boundsOf(range);
  const rows = yield* all((q) =>
    q
      .selectFrom('invoices')
      .select((eb) => [
        spanOf('invoice_date', bounds).as('span'),
        sql<number>`CASE WHEN ${sql.ref('original_invoice_id')} IS NULL THEN 0 ELSE 1 END`.as('credit'),
        eb.fn.countAll<number>().as('n'),
        sql<number>`CAST(SUM(${sql.ref('amount_excl_cents')}) AS bigint)`.as('excl'),
        sql<number>`CAST(SUM(${sql.ref('tax_amount_cents')}) AS bigint)`.as('tax'),
      ])
      .where('account_id', '=', accountId)
      // Word for word the condition of the partial index invoices_finalised.
      .where('status', '<>', sql.lit('draft'))
      .where('invoice_date', '>=', bounds[0])
      .where('invoice_date', '<', bounds[bounds.length - 1])
      .groupBy([sql`1`, sql`2`]),
  );
  const sums = new Map<string, { n: number; excl: number; tax: number }>();
  for (const r of rows)
    sums.set(`${num(r.span)}:${num(r.credit)}`, { n: num(r.n), excl: num(r.excl), tax: num(r.tax) });
  const data: Row[] = range.periods.map((period, k) => {
    const invoiced = sums.get(`${k}:0`) ?? { n: 0, excl: 0, tax: 0 };
    const credited = sums.get(`${k}:1`) ?? { n: 0, excl: 0, tax: 0 };
    return {
      period: period.key,
      invoices: invoiced.n,
      invoiced_excl: invoiced.excl,
      invoiced_tax: invoiced.tax,
      invoiced_incl: invoiced.excl + invoiced.tax,
      credit_invoices: credited.n,
      credited_excl: credited.excl,
      credited_tax: credited.tax,
      credited_incl: credited.excl + credited.tax,
      net_excl: invoiced.excl + credited.excl,
      net_tax: invoiced.tax + credited.tax,
      net_incl: invoiced.excl + invoiced.tax + credited.excl + credited.tax,
    };
  });
  return { data };
}

/**
 * Per period and tax rate, of the finalised invoices dated in it (credits included, negative): the
 * taxable base (the lines' amounts excluding tax) and the tax, summed from the lines exactly as an
 * invoice's own totals are (quantity × unit amounts, per rate), so the tax of a rate is the sum of
 * that rate's entry in the invoices' tax_rates, to the cent.
 */
export function* vatReport(accountId: number, range: Range): Unit<ReportRows> {
  const bounds = boundsOf(range);
  const rows = yield* all((q) =>
    q
      .selectFrom('invoices as i')
      .innerJoin('invoice_lines as l', 'l.invoice_id', 'i.id')
      .select([
        spanOf('i.invoice_date', bounds).as('span'),
        'l.tax_rate',
        sql<number>`COUNT(DISTINCT ${sql.ref('i.id')})`.as('n'),
        sql<number>`CAST(SUM(${sql.ref('l.quantity')} * ${sql.ref('l.unit_excl_cents')}) AS bigint)`.as('base'),
        sql<number>`CAST(SUM(${sql.ref('l.quantity')} * ${sql.ref('l.unit_tax_cents')}) AS bigint)`.as('tax'),
      ])
      .where('i.account_id', '=', accountId)
      .where('i.status', '<>', sql.lit('draft'))
      .where('i.invoice_date', '>=', bounds[0])
      .where('i.invoice_date', '<', bounds[bounds.length - 1])
      .groupBy([sql`1`, sql`2`]),
  );
  const data: Row[] = rows
    .map((r) => ({ span: num(r.span), rate: num(r.tax_rate), base: num(r.base), tax: num(r.tax), invoices: num(r.n) }))
    .sort((a, b) => a.span - b.span || b.rate - a.rate)
    .map(({ span, ...r }) => ({ period: range.periods[span].key, ...r }));
  return { data };
}

/**
 * Open and charged-back invoices as of now, by days past their transaction date (their invoice date
 * when they have none; not yet due when it is still ahead), and the customers owing most on those
 * due by today. What an invoice owes is its total less what finalised credit invoices naming it
 * took off; an invoice credited in full owes nothing and is left out.
 */
export function* overdueReport(accountId: number, now: string, zone: string): Unit<ReportRows> {
  const today = dayAt(now, zone);
  // An invoice dated on local day d is `days` past due on `today` when midnight(d) is in
  // [midnight(today - days), midnight(today - days + 1)).
  const since = (days: number) => midnight(addDays(today, -days), zone);
  const buckets = [...AGE_BUCKETS].reverse();
  // Oldest first: 91+ before midnight(today - 90); ...; not due from midnight(today + 1) on.
  const bounds = buckets.slice(0, -1).map((b) => since(b.from - 1));
  const owing = (q: Parameters<Parameters<typeof all>[0]>[0]) =>
    q
      .selectFrom('invoices as i')
      .select((eb) => [
        'i.customer_id',
        eb.fn.coalesce('i.transaction_date', 'i.invoice_date').as('since'),
        sql<number>`${sql.ref('i.amount_excl_cents')} + ${sql.ref('i.tax_amount_cents')} + COALESCE((
          SELECT SUM(${sql.ref('c.amount_excl_cents')} + ${sql.ref('c.tax_amount_cents')})
          FROM ${sql.table('invoices')} AS c
          WHERE ${sql.ref('c.original_invoice_id')} = ${sql.ref('i.id')}
            AND ${sql.ref('c.status')} <> 'draft'), 0)`.as('owed'),
      ])
      .where('i.account_id', '=', accountId)
      .where('i.status', 'in', ['open', 'charged_back'])
      .as('o');
  const byBucket = yield* all((q) =>
    q
      .selectFrom(owing(q))
      .select((eb) => [
        spanOf('o.since', bounds).as('span'),
        eb.fn.countAll<number>().as('n'),
        sql<number>`CAST(SUM(${sql.ref('o.owed')}) AS bigint)`.as('owed'),
        sql<number>`COUNT(DISTINCT ${sql.ref('o.customer_id')})`.as('customers'),
      ])
      .where('o.owed', '>', 0)
      .groupBy(sql`1`),
  );
  const found = new Map(byBucket.map((r) => [num(r.span) + 1, r]));
  const data: Row[] = buckets
    .map((b, i) => ({
      bucket: b.bucket,
      invoices: num(found.get(i)?.n),
      amount: num(found.get(i)?.owed),
      customers: num(found.get(i)?.customers),
    }))
    .reverse();

  const top = yield* all((q) =>
    q
      .selectFrom(owing(q))
      .innerJoin('customers as c', 'c.id', 'o.customer_id')
      .select((eb) => [
        'o.customer_id',
        'c.first_name',
        'c.middle_name',
        'c.last_name',
        'c.company_name',
        eb.fn.countAll<number>().as('n'),
        sql<number>`CAST(SUM(${sql.ref('o.owed')}) AS bigint)`.as('owed'),
        eb.fn.min('o.since').as('oldest'),
      ])
      .where('o.owed', '>', 0)
      // Overdue only: due today or before.
      .where('o.since', '<', since(-1))
      .groupBy(['o.customer_id', 'c.first_name', 'c.middle_name', 'c.last_name', 'c.company_name'])
      .orderBy(sql`7`, 'desc')
      .orderBy('o.customer_id')
      .limit(TOP_CUSTOMERS),
  );
  const customers: Row[] = top.map((r) => ({
    customer_id: String(r.customer_id),
    name: [[r.first_name, r.middle_name, r.last_name].filter(Boolean).join(' '), r.company_name]
      .filter(Boolean)
      .join(', '),
    invoices: num(r.n),
    amount: num(r.owed),
    oldest_days: daysBetween(dayAt(String(r.oldest), zone), today),
  }));
  return { data, customers };
}

const daysBetween = (from: string, to: string): number => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
