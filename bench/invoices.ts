// Invoices at scale (issue 11), on each engine:
//   finalising one invoice of 1,000 lines (the use case, in process), and making its lines and its credit invoice
//   `clock advance P1D` finalising 10,000 drafts whose invoice date is today   target >= 2,000/s (SQLite), >= 500/s (PostgreSQL)
//   peak memory of the process that advances (RSS high-water mark), and a check that the references are gapless
// Seeding (once, on SQLite; PostgreSQL gets a copy): customers, active subscriptions, a plan, and the
// drafts with two lines each, inserted in bulk with their totals (core/tax.ts) and their due work,
// as POST /invoices and /invoice-lines would leave them. Each finalised draft makes a transaction
// that is collected in the same advance (due the day it is finalised).
// Run: npm run bench:invoices   (DRAFTS=10000, LINES=1000, ENGINES=sqlite,postgres; PROFILE=1 profiles the advance)
import { newConfirmationToken } from '../src/lib/core/mandate.js';
import type { Engine } from '../src/lib/store/store.js';
import { all, get, run, writeRows } from '../src/lib/store/unit.js';
import { figure, info, mb, onEachEngine, start, runAdvance } from './advance.js';

const DRAFTS = Number(process.env.DRAFTS ?? 10_000);
const LINES = Number(process.env.LINES ?? 1_000);
const TARGETS = { invoicesPerSecond: { sqlite: 2_000, postgres: 500 } as Record<Engine, number>, peakMb: 200 };
const BULK = 500;

async function seed(path: string): Promise<number> {
  const { openRuntime } = await import('../src/lib/runtime/runtime.js');
  const { createPlan } = await import('../src/lib/core/plan-writes.js');
  const { LINE_INSERT } = await import('../src/lib/core/invoice-writes.js');
  const { endOfDay } = await import('../src/lib/core/invoice-rules.js');
  const { WORK } = await import('../src/lib/core/ledger.js');
  const { dayAt, midnight } = await import('../src/lib/core/schedule.js');
  const { lineUnits, totalsOf } = await import('../src/lib/core/tax.js');
  const started = performance.now();
  const core = await openRuntime({ location: path });
  try {
    const account = await core.account();
    const ctx = { store: core.store, clock: core.clock, account };
    const plan = await createPlan(ctx, {
      name: 'Monthly box',
      amount: '12.50',
      frequency: 'monthly',
      send_invoice: true,
    });
    if (!plan.ok) throw new Error(`createPlan failed: ${JSON.stringify(plan.failure)}`);
    const now = new Date().toISOString();
    const tz = account.time_zone;
    const today = midnight(dayAt(now, tz), tz);
    const lines = [lineUnits(1250, 2100, false), lineUnits(327, 900, true)].map((u, i) => ({
      description: i ? 'Soep' : 'Lunchbox',
      amount_cents: i ? 327 : 1250,
      tax_rate: i ? 900 : 2100,
      tax_included: i,
      quantity: i + 1,
      unit_excl_cents: u.excl,
      unit_tax_cents: u.tax,
    }));
    const totals = totalsOf(lines);
    for (let from = 0; from < DRAFTS + 1; from += BULK) {
      const n = Math.min(BULK, DRAFTS + 1 - from);
      const customers = Array.from({ length: n }, (_, i) => ({
        account_id: account.id,
        first_name: `First${from + i}`,
        last_name: `Last${from + i}`,
        email: `customer${from + i}@example.com`,
        iban: 'NL91ABNA0417164300',
        payment_method: 'directdebit',
        language: 'nl',
        archived: 0,
        search_text: '',
        created_at: now,
        updated_at: now,
      }));
      await core.store.write(function* () {
        const ids = (yield* all((q) => q.insertInto('customers').values(customers).returning('id'))).map((r) =>
          Number(r.id),
        );
        const subs = (yield* all((q) =>
          q
            .insertInto('subscriptions')
            .values(
              ids.map((customer) => ({
                account_id: account.id,
                customer_id: customer,
                subscription_plan_id: plan.value.id,
                mandate_code: `BENCH-${customer}`,
                mandate_accepted: 1,
                mandate_accepted_date: now,
                start_date: today,
                status: 'active',
                cancel_date: null,
                resume_date: null,
                confirmation_sent: 1,
                subscription_webhook_url: null,
                transaction_webhook_url: null,
                success_redirect_url: null,
                metadata: null,
                archived: 0,
                created_at: now,
                updated_at: now,
                cycle_anchor: null,
                next_cycle: 0,
                confirmation_token: newConfirmationToken(),
              })),
            )
            .returning(['id', 'customer_id']),
        )) as { id: number; customer_id: number }[];
        // The first subscription keeps no draft: the invoice of 1,000 lines is made on it.
        const drafted = from === 0 ? subs.slice(1) : subs;
        const invoices = (yield* all((q) =>
          q
            .insertInto('invoices')
            .values(
              drafted.map((s) => ({
                account_id: account.id,
                subscription_id: Number(s.id),
                customer_id: Number(s.customer_id),
                status: 'draft',
                number: null,
                reference: null,
                amount_excl_cents: totals.excl,
                tax_amount_cents: totals.tax,
                tax_rates: JSON.stringify(totals.taxRates),
                invoice_date: today,
                transaction_date: today,
                original_invoice_id: null,
                send_email: 1,
                transaction_id: null,
                hosted_token: null,
                finalised_at: null,
                created_at: now,
                updated_at: now,
              })),
            )
            .returning('id'),
        )).map((r) => Number(r.id));
        yield* writeRows(
          'insert',
          LINE_INSERT,
          invoices.flatMap((invoice) =>
            lines.map((line) => ({
              ...line,
              account_id: account.id,
              invoice_id: invoice,
              created_at: now,
              updated_at: now,
            })),
          ),
        );
        const due = endOfDay(today, tz);
        yield* run((q) =>
          q.insertInto('due_work').values(
            invoices.map((invoice) => ({
              account_id: account.id,
              due_at: due,
              rank: WORK['invoice.finalise'],
              kind: 'invoice.finalise',
              subject: String(invoice),
            })),
          ),
        );
      });
    }
  } finally {
    await core.store.close();
  }
  return performance.now() - started;
}

/** Lines made one by one through the use case, the invoice finalised, then credited: each timed. */
async function bigInvoice(
  location: string,
): Promise<{ linesMs: number; finaliseMs: number; creditMs: number; reference: string; incl: number }> {
  const { openRuntime } = await import('../src/lib/runtime/runtime.js');
  const { createInvoice, creditInvoice } = await import('../src/lib/core/invoice-writes.js');
  const { finaliseInvoice } = await import('../src/lib/core/invoice-rules.js');
  const { createLine } = await import('../src/lib/core/line-writes.js');
  const core = await openRuntime({ location, poolSize: 4 });
  try {
    const ctx = { store: core.store, clock: core.clock, account: await core.account() };
    const subscription = (await core.store.read(() =>
      get((q) => q.selectFrom('subscriptions').select('id').orderBy('id').limit(1)),
    ))!.id;
    const made = await createInvoice(ctx, { subscription_id: subscription });
    if (!made.ok) throw new Error(JSON.stringify(made.failure));
    const id = made.value.invoice.id;
    let started = performance.now();
    for (let i = 0; i < LINES; i++) {
      const line = await createLine(ctx, {
        invoice_id: id,
        description: `Item ${i}`,
        amount: `${(i % 97) + 1}.${String(i % 100).padStart(2, '0')}`,
        tax_rate: [21, 9, 0][i % 3],
        tax_included: i % 2 === 0,
        quantity: (i % 5) + 1,
      });
      if (!line.ok) throw new Error(JSON.stringify(line.failure));
    }
    const linesMs = performance.now() - started;
    started = performance.now();
    const finalised = await finaliseInvoice(ctx, id);
    const finaliseMs = performance.now() - started;
    if (!finalised.ok) throw new Error(JSON.stringify(finalised.failure));
    started = performance.now();
    const credit = await creditInvoice(ctx, id);
    const creditMs = performance.now() - started;
    if (!credit.ok) throw new Error(JSON.stringify(credit.failure));
    const invoice = finalised.value.invoice;
    return {
      linesMs,
      finaliseMs,
      creditMs,
      reference: invoice.reference!,
      incl: invoice.amount_excl_cents + invoice.tax_amount_cents,
    };
  } finally {
    await core.store.close();
  }
}

/** Finalised invoices and their numbers: every draft open, the numbers 1..n with no gap or duplicate. */
async function references(
  location: string,
): Promise<{ open: number; drafts: number; gapless: boolean; transactions: number }> {
  const { openStore } = await import('../src/lib/store/store.js');
  const store = await openStore(location, { poolSize: 2, create: 'nothing' });
  try {
    return await store.read(function* () {
      const count = function* (status: string) {
        return Number(
          (yield* get((q) =>
            q
              .selectFrom('invoices')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('status', '=', status),
          ))!.n,
        );
      };
      const numbers = (yield* all((q) =>
        q.selectFrom('invoices').select('number').where('number', 'is not', null).orderBy('number'),
      )).map((r) => Number(r.number));
      const transactions = Number(
        (yield* get((q) =>
          q
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('invoice_id', 'is not', null),
        ))!.n,
      );
      return {
        open: yield* count('open'),
        drafts: yield* count('draft'),
        gapless: numbers.every((n, i) => n === i + 1),
        transactions,
      };
    });
  } finally {
    await store.close();
  }
}

async function benchEngine(engine: Engine, location: string, seeding: string): Promise<boolean> {
  const big = await bigInvoice(location);
  const advanced = await runAdvance(location, engine, 'P1D', 'invoices-advance');
  const after = await references(location);
  const finalised = advanced.changes['invoice.open'] ?? 0;
  const perSecond = finalised / (advanced.ms / 1000);
  console.log(`\ninvoices on ${engine}`);
  info('seeding', seeding);
  info(
    `${LINES} lines made one by one (use case)`,
    `${(big.linesMs / 1000).toFixed(2)} s (${(big.linesMs / LINES).toFixed(2)} ms each)`,
  );
  info(`finalising the invoice of ${LINES} lines`, `${big.finaliseMs.toFixed(1)} ms`);
  info(`  its reference and total`, `${big.reference}, ${(big.incl / 100).toFixed(2)}`);
  info(`crediting it (a draft of ${LINES} negated lines)`, `${big.creditMs.toFixed(1)} ms`);
  info('advance', `${advanced.from} -> ${advanced.to}`);
  for (const [kind, n] of Object.entries(advanced.changes).sort()) info(`  ${kind}`, String(n));
  info(
    'advance time (CPU time of its process)',
    `${(advanced.ms / 1000).toFixed(2)} s (${(advanced.cpuMs / 1000).toFixed(2)} s)`,
  );
  info('open / still draft / invoice transactions', `${after.open} / ${after.drafts} / ${after.transactions}`);
  const ok = [
    figure(
      'drafts finalised per second',
      `${Math.round(perSecond)}/s`,
      `>= ${TARGETS.invoicesPerSecond[engine]}/s`,
      perSecond >= TARGETS.invoicesPerSecond[engine] && finalised === DRAFTS,
    ),
    figure(
      'peak RSS of the advancing process',
      `${mb(advanced.peakRssKb).toFixed(0)} MB`,
      `<= ${TARGETS.peakMb} MB`,
      mb(advanced.peakRssKb) <= TARGETS.peakMb,
    ),
    figure('references 1..n, no gap, no duplicate', after.gapless ? 'yes' : 'NO', 'yes', after.gapless),
  ];
  info('  its RSS before the advance (tsx, store open)', `${mb(advanced.baseRssKb).toFixed(0)} MB`);
  return ok.every(Boolean);
}

// Seeded once, on SQLite; PostgreSQL gets a copy made before SQLite's run.
start(() =>
  onEachEngine(async (path) => {
    const seedMs = await seed(path);
    return `${(seedMs / 1000).toFixed(1)} s (${DRAFTS} drafts of 2 lines, in bulk)`;
  }, benchEngine),
);
