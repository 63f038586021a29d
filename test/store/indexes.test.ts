// Finding customers uses the indexes made for it: each statement the core runs for a filter or a
// sort is explained by the engine itself (SQLite: EXPLAIN QUERY PLAN, which needs no statistics;
// PostgreSQL: EXPLAIN over 10,000 customers per account, vacuumed and analysed, with sequential
// scans off), and the plan must name the index.
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import type { CoreContext } from '../../src/lib/core/context.js';
import { listCustomers, type CustomerFind } from '../../src/lib/core/customers.js';
import { Ledger, loadSubscriptions, loadTransactions } from '../../src/lib/core/ledger.js';
import { copyStore } from '../../src/lib/store/copy.js';
import { listTransactions, type AccountTransactionFind } from '../../src/lib/core/transactions.js';
import { listPlans, type PlanFind } from '../../src/lib/core/plans.js';
import type { PageOf } from '../../src/lib/core/paging.js';
import { raw } from '../../src/lib/store/info.js';
import { sqliteMigrations } from '../../src/lib/store/migrations.js';
import { customerSearchText } from '../../src/lib/store/search-text.js';
import { openStore, type Store } from '../../src/lib/store/store.js';
import { get, run, type Build, type Unit } from '../../src/lib/store/unit.js';
import { ENGINE, freshStoreLocation, postgresAdminUrl } from '../helpers/engine.js';
import { closeLater, TEST_NOW, tempDbPath } from '../helpers/store.js';

const clock = fixedClock(TEST_NOW);

/** The statement a build makes, prefixed to have it explained instead of run. */
const explain =
  (build: Build<unknown>, engine: Store['engine']): Build<unknown> =>
  (q, dialect) => ({
    compile: () => {
      const compiled = build(q, dialect).compile();
      return {
        ...compiled,
        sql: `${engine === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN (COSTS OFF)'} ${compiled.sql}`,
      };
    },
  });

/**
 * Runs the unit as it is, and before each of its statements has the engine explain it: the plans, in
 * order. PostgreSQL plans with sequential scans off unless `seqscan` (a plan without statistics).
 */
function* explained<T>(unit: Unit<T>, engine: Store['engine'], plans: string[], seqscan = false): Unit<T> {
  if (engine === 'postgres' && !seqscan) yield* run(raw(() => sql`SET LOCAL enable_seqscan = off`));
  let step = unit.next();
  while (!step.done) {
    const op = step.value;
    if (op.kind === 'all' || op.kind === 'get') {
      const rows = (yield { kind: 'all', build: explain(op.build, engine) }) as Record<string, string>[];
      plans.push(rows.map((row) => (engine === 'sqlite' ? row.detail : row['QUERY PLAN'])).join('\n'));
    }
    step = unit.next(yield op);
  }
  return step.value;
}

/**
 * A store with `count` customers in the default account and as many in another, and 20 plans;
 * on PostgreSQL vacuumed and analysed, so the planner knows the rows and the visibility map.
 */
async function filled(count: number, location?: string): Promise<CoreContext> {
  const where = location ?? (await freshStoreLocation());
  const store = closeLater(await openStore(where, { poolSize: 2 }));
  const account = await defaultAccount(store, clock);
  const other = (await store.write(() =>
    get((q) =>
      q
        .insertInto('accounts')
        .values({
          name: 'other',
          invoice_prefix: 'INV-',
          time_zone: 'Europe/Amsterdam',
          webhook_secret: 'whsec_x',
          is_default: 0,
          next_invoice_number: 1,
          created_at: TEST_NOW,
          updated_at: TEST_NOW,
        })
        .returning('id'),
    ),
  ))!.id;
  for (let from = 0; from < 2 * count; from += 1000) {
    const rows = Array.from({ length: Math.min(1000, 2 * count - from) }, (_, i) => {
      const n = from + i;
      return {
        account_id: n % 2 === 0 ? account.id : other,
        payment_method: 'directdebit',
        language: 'nl',
        first_name: `First${n}`,
        last_name: `Last${n % 997}`,
        company_name: n % 3 === 0 ? `Company ${n}` : null,
        email: `Customer${n}@Example.com`,
        archived: n % 7 === 0 ? 1 : 0,
        search_text: customerSearchText({
          first_name: `First${n}`,
          last_name: `Last${n % 997}`,
          company_name: n % 3 === 0 ? `Company ${n}` : null,
          email: `Customer${n}@Example.com`,
        }),
        created_at: new Date(Date.parse(TEST_NOW) - (n % 1000) * 60_000).toISOString(),
        updated_at: TEST_NOW,
      };
    });
    await store.write(() => run((q) => q.insertInto('customers').values(rows)));
  }
  for (let n = 0; n < 20; n++) {
    const plan = {
      account_id: account.id,
      name: `Plan ${n}`,
      start_date: TEST_NOW,
      status: n % 4 === 0 ? 'inactive' : 'active',
      mandate_authentication_method: 'email',
    };
    await store.write(() =>
      run((q) =>
        q.insertInto('subscription_plans').values({
          ...plan,
          send_invoice: 1,
          storno_retries: 2,
          archived: 0,
          amount_cents: 100,
          frequency: 'monthly',
          created_at: TEST_NOW,
          updated_at: TEST_NOW,
        }),
      ),
    );
  }
  if (store.engine === 'postgres') {
    const client = new pg.Client({ connectionString: where });
    await client.connect();
    try {
      await client.query('VACUUM ANALYZE');
    } finally {
      await client.end();
    }
  }
  return { store, clock, account };
}

async function plansOf<T>(
  ctx: CoreContext,
  unit: () => Unit<PageOf<T>>,
): Promise<{ plans: string[]; page: PageOf<T> }> {
  const plans: string[] = [];
  const page = await ctx.store.read(() => explained(unit(), ctx.store.engine, plans));
  return { plans, page };
}

const customers = (ctx: CoreContext, find: CustomerFind, number = 1) =>
  plansOf(ctx, () => listCustomers(ctx, { number, size: 10 }, find));
const plansList = (ctx: CoreContext, find: PlanFind) =>
  plansOf(ctx, () => listPlans(ctx, { number: 1, size: 10 }, find));

const sqlite = ENGINE === 'sqlite';
/** The trigram index of filter[search]: SQLite's FTS5 table, PostgreSQL's GIN index. */
const SEARCH_INDEX = sqlite ? /SCAN customers_search VIRTUAL TABLE/ : /Bitmap Index Scan on customers_search/;
/** A range of the search text, read through its b-tree (the first ranks of a ranked search). */
const RANGE_INDEX = sqlite
  ? /SEARCH customers USING (COVERING )?INDEX customers_search_text \(account_id=\? AND/
  : /customers_search_text/;
/** The plan sorts rows itself rather than reading them in an index's order. */
const SORTS = sqlite ? /USE TEMP B-TREE FOR ORDER BY/ : /Sort Key/;

describe(`the indexes of filters and sorts, as ${ENGINE} plans them`, () => {
  const COUNT = 10_000;
  let ctx: CoreContext;
  beforeAll(async () => {
    ctx = await filled(COUNT);
  });

  it.runIf(sqlite)(
    'the plain list (no filter, id order) still counts and pages by customers_account alone (SQLite)',
    async () => {
      const { plans, page } = await customers(ctx, {}, 500);
      expect(page.rows.map((c) => c.id)).toEqual(Array.from({ length: 10 }, (_, i) => 1 + 2 * (4990 + i)));
      expect(plans).toEqual([
        'SEARCH customers USING COVERING INDEX customers_account (account_id=?)',
        'SEARCH customers USING INDEX customers_account (account_id=? AND id>?)\nSCALAR SUBQUERY 1\nSEARCH customers USING COVERING INDEX customers_account (account_id=?)',
      ]);
    },
  );

  it('filter[email] finds the customer through customers_email, in every statement', async () => {
    const { plans, page } = await customers(ctx, { email: 'CUSTOMER1234@example.COM' });
    expect(page.rows.map((c) => c.email)).toEqual(['Customer1234@Example.com']);
    expect(plans).toHaveLength(2); // the total, the page
    for (const plan of plans) expect(plan).toMatch(/customers_email/);
    // With a sort of another key too: the email's index finds the row, the rows are sorted after.
    const sorted = await customers(ctx, {
      email: 'customer1234@example.com',
      sort: { field: 'last_name', descending: false },
    });
    expect(sorted.plans[1]).toMatch(/customers_email/);
    expect(sorted.plans[1]).not.toMatch(/customers_last_name/);
  });

  it('filter[search] of 3 characters or more finds through the trigram index, whatever the order', async () => {
    for (const sort of [
      undefined,
      { field: 'created_at' as const, descending: true },
      { field: 'email' as const, descending: false },
    ]) {
      const { plans, page } = await customers(ctx, { search: 'ER123', sort });
      // customer123, 1230 to 1239, 12300 to 12399...: the even ones are this account's.
      const matching = Array.from({ length: 2 * COUNT }, (_, n) => n).filter(
        (n) => n % 2 === 0 && `customer${n}@`.includes('er123'),
      );
      expect(page.total).toBe(matching.length);
      // Ranked (no sort): the first ranks are counted as ranges of customers_search_text first.
      const ranges = sort ? [] : plans.slice(0, 3);
      for (const plan of ranges) expect(plan).toMatch(RANGE_INDEX);
      const rest = plans.slice(ranges.length);
      for (const plan of rest) expect(plan).toMatch(SEARCH_INDEX);
      expect(rest[1]).not.toMatch(/customers_created|customers_email/);
    }
  });

  it('a search whose page lies in its first ranks reads ranges of customers_search_text, never every match', async () => {
    // Every customer's name starts with "first": the first page is read in order from the index.
    const { plans, page } = await customers(ctx, { search: 'FIRST' });
    expect(page.total).toBe(COUNT);
    const texts = page.rows.map((c) => c.search_text);
    expect(texts).toHaveLength(10);
    expect(texts.every((text) => text.startsWith('first'))).toBe(true);
    expect(texts).toEqual([...texts].sort());
    // The account's rows are the even ones; by name, first0, first10, first100, first1000, first1002...
    expect(page.rows.map((c) => c.first_name).slice(0, 4)).toEqual(['First0', 'First10', 'First100', 'First1000']);
    // Three range counts, the page's range(s) read in order, then the total. PostgreSQL's planner
    // counts a range that holds the whole account (every name here starts so) by the account instead.
    const reads = plans.slice(0, -1);
    if (sqlite) {
      for (const plan of reads) expect(plan).toMatch(RANGE_INDEX);
      expect(plans[plans.length - 1]).toMatch(SEARCH_INDEX);
    } else expect(reads.filter((plan) => plan.startsWith('Limit'))).toEqual([expect.stringMatching(RANGE_INDEX)]);
    expect(plans.slice(0, -1).join('\n')).not.toMatch(SORTS);
  });

  it.runIf(sqlite)(
    'filter[search] of fewer than 3 characters scans the account rows, not the trigram index (SQLite)',
    async () => {
      // PostgreSQL's planner decides by itself: pg_trgm tells it that such a term has no trigram.
      const { plans, page } = await customers(ctx, { search: '99' });
      expect(page.total).toBeGreaterThan(0);
      for (const plan of plans.slice(0, 3)) expect(plan).toMatch(RANGE_INDEX);
      for (const plan of plans.slice(3)) {
        expect(plan).not.toMatch(SEARCH_INDEX);
        expect(plan).toMatch(/^SEARCH customers USING (COVERING )?INDEX \w+ \(account_id=\?/m);
      }
    },
  );

  it('filter[archived] counts and pages through customers_archived', async () => {
    const { plans, page } = await customers(ctx, { archived: true }, 20);
    expect(page.rows).toHaveLength(10);
    expect(page.rows.every((c) => c.archived === 1)).toBe(true);
    expect(plans[0]).toMatch(/customers_archived/);
    // PostgreSQL may read the page's first id by the primary key instead, filtering (its costs weigh
    // the heap's order and the visibility map, which VACUUM cannot set while other tests' snapshots
    // are open): cheap either way at this size, so only SQLite's choice is held here.
    if (sqlite) expect(plans[1]).toMatch(/customers_archived \(account_id=\? AND archived=\?/);
  });

  it.each([
    ['created_at', 'customers_created'],
    ['last_name', 'customers_last_name'],
    ['email', 'customers_email'],
  ] as const)('sort=%s (both ways) reads the page in the order of %s, without sorting', async (field, index) => {
    for (const descending of [false, true]) {
      const { plans, page } = await customers(ctx, { sort: { field, descending } }, 30);
      expect(page.rows).toHaveLength(10);
      expect(plans[1]).toMatch(new RegExp(index));
      expect(plans[1]).not.toMatch(SORTS);
    }
  });

  it('plans: filter[status] through plans_status, sort=created_at through plans_created', async () => {
    const status = await plansList(ctx, { status: 'inactive' });
    expect(status.page.total).toBe(5);
    for (const plan of status.plans) expect(plan).toMatch(/plans_status/);
    const created = await plansList(ctx, { sort: { field: 'created_at', descending: true } });
    expect(created.plans[1]).toMatch(/plans_created/);
    expect(created.plans[1]).not.toMatch(SORTS);
  });
});

describe.runIf(ENGINE === 'postgres')('on a PostgreSQL database whose collation is not C (PostgreSQL only)', () => {
  it('orders and finds as on SQLite (A-Z folded, then by code point), through the same indexes', async () => {
    const name = `billing_icu_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: postgresAdminUrl() });
    await admin.connect();
    try {
      await admin.query(
        `CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'nl-NL' LOCALE 'C.UTF-8'`,
      );
    } finally {
      await admin.end();
    }
    const ctx = await filled(5000, postgresAdminUrl().replace(/\/[^/]*$/, `/${name}`));
    const collation = await ctx.store.read(() =>
      get(
        raw(
          () =>
            sql<{
              provider: string;
            }>`SELECT datlocprovider AS provider FROM pg_database WHERE datname = current_database()`,
        ),
      ),
    );
    expect(collation?.provider).toBe('i');
    const names = ['de Vries', 'Zwart', 'Öst', 'van Dam', 'Aalders', 'bakker', "O'Neil", 'Oneil', 'de-Wit'];
    await ctx.store.write(() =>
      run((q) =>
        q.insertInto('customers').values(
          names.map((last_name, i) => ({
            account_id: ctx.account.id,
            payment_method: 'directdebit',
            language: 'nl',
            first_name: 'Z',
            last_name,
            email: `${last_name.replace(/[^a-z]/gi, '')}@SORT.example`,
            created_at: TEST_NOW,
            updated_at: TEST_NOW,
            archived: 0,
            search_text: customerSearchText({
              first_name: 'Z',
              last_name,
              email: `${last_name.replace(/[^a-z]/gi, '')}@SORT.example`,
            }),
            id: 100_000 + i,
          })),
        ),
      ),
    );
    const { page, plans } = await customers(ctx, {
      search: 'sort.EXAMPLE',
      sort: { field: 'last_name', descending: false },
    });
    // nl-NL would give Aalders, bakker, de Vries, de-Wit, O'Neil, Oneil, Öst, van Dam, Zwart.
    expect(page.rows.map((c) => c.last_name)).toEqual([
      'Aalders',
      'bakker',
      'de Vries',
      'de-Wit',
      "O'Neil",
      'Oneil',
      'van Dam',
      'Zwart',
      'Öst',
    ]);
    expect(plans[1]).toMatch(SEARCH_INDEX);
    const byEmail = await customers(ctx, { sort: { field: 'email', descending: false } }, 1);
    expect(byEmail.plans[1]).toMatch(/customers_email/);
    expect(byEmail.plans[1]).not.toMatch(SORTS);
    const byName = await customers(ctx, { sort: { field: 'last_name', descending: true } }, 1);
    expect(byName.plans[1]).toMatch(/customers_last_name/);
    expect(byName.plans[1]).not.toMatch(SORTS);
    expect((await customers(ctx, { email: 'ONEIL@sort.example' })).plans[0]).toMatch(/customers_email/);
  });
});

describe.runIf(ENGINE === 'sqlite')('the search index of a store made before it (SQLite only)', () => {
  it('holds the customers that were there when the migration made it', async () => {
    const path = tempDbPath();
    const db = new Database(path);
    db.exec(sqliteMigrations[0]);
    db.pragma('user_version = 1');
    db.prepare(
      `INSERT INTO accounts (name, webhook_secret, is_default, created_at, updated_at) VALUES ('default', 'whsec_x', 1, ?, ?)`,
    ).run(TEST_NOW, TEST_NOW);
    db.prepare(
      `INSERT INTO customers (account_id, first_name, last_name, company_name, email, created_at, updated_at) VALUES (1, 'Jan', 'Jansen', 'Kaas BV', 'Jan@Example.com', ?, ?)`,
    ).run(TEST_NOW, TEST_NOW);
    db.close();
    const store = closeLater(await openStore(path));
    const ctx = { store, clock, account: await defaultAccount(store, clock) };
    for (const search of ['JANSEN', 'kaas', 'jan@ex']) {
      expect(
        (await store.read(() => listCustomers(ctx, { number: 1, size: 10 }, { search }))).rows.map((c) => c.last_name),
        search,
      ).toEqual(['Jansen']);
    }
  });
});

describe.runIf(ENGINE === 'sqlite')('the transactions the ledger loads by id (SQLite only)', () => {
  it('are found through their id index, never by reading all the transactions of the account', async () => {
    const store = closeLater(await openStore(tempDbPath()));
    const account = await defaultAccount(store, clock);
    // As many ids as a batch or a bank report loads at a time: with a few, any plan is quick.
    const ids = Array.from({ length: 1000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const plans: string[] = [];
    await store.read(() => explained(loadTransactions(new Ledger(true), ids, account.id), 'sqlite', plans));
    expect(plans.length).toBeGreaterThan(0);
    // The lookup of those not yet loaded orders by seq too (USE TEMP B-TREE FOR ORDER BY).
    for (const plan of plans)
      expect(plan).toMatch(/^SEARCH transactions USING INDEX sqlite_autoindex_transactions_1 \(id=\?\)/);
  });
});

describe.runIf(ENGINE === 'sqlite')(
  "the account's transactions (GET /transactions) as SQLite plans them (SQLite only)",
  () => {
    it('count through the indexes of migration 12, never reading the table', async () => {
      const store = closeLater(await openStore(tempDbPath()));
      const ctx: CoreContext = { store, clock, account: await defaultAccount(store, clock) };
      const plansOf = async (find: AccountTransactionFind) => {
        const plans: string[] = [];
        await store.read(() => explained(listTransactions(ctx, { number: 3, size: 10 }, find), 'sqlite', plans));
        return plans;
      };
      for (const [find, index] of [
        [{}, 'transactions_due'],
        [{ status: ['failed', 'charged_back'] }, 'transactions_status_due'],
        [{ status: ['failed'], due_from: '2026-11-01', due_to: '2026-11-30' }, 'transactions_status_due'],
        [{ reason_code: 'AM04' }, 'transactions_reason'],
      ] as const) {
        const [count] = await plansOf(find);
        expect(count, JSON.stringify(find)).toMatch(new RegExp(`USING COVERING INDEX ${index}\\b`));
        // Without a status, the count walks the due-date index (covering), never the table.
        expect(count).not.toMatch(/SCAN transactions$/m);
      }
    });
  },
);

describe.runIf(ENGINE === 'postgres')('a store copied into PostgreSQL (PostgreSQL only)', () => {
  it('is analysed by the copy: due work finds open transactions through transactions_open', async () => {
    // The source: 5,000 subscriptions with a year of monthly collections each, all done but one.
    const source = closeLater(await openStore(tempDbPath()));
    const account = await defaultAccount(source, clock);
    const series = (n: number) =>
      sql`(WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ${n}) SELECT x FROM n)`;
    await source.write(function* () {
      yield* run(
        raw(
          () => sql`INSERT INTO customers (account_id, first_name, last_name, email, created_at, updated_at)
            VALUES (${account.id}, 'Ada', 'Lovelace', 'ada@example.com', ${TEST_NOW}, ${TEST_NOW})`,
        ),
      );
      yield* run(
        raw(
          () => sql`INSERT INTO subscription_plans (account_id, name, start_date, status, mandate_authentication_method,
              send_invoice, storno_retries, amount_cents, frequency, created_at, updated_at)
            VALUES (${account.id}, 'Box', ${TEST_NOW}, 'active', 'email', 1, 2, 1250, 'monthly', ${TEST_NOW}, ${TEST_NOW})`,
        ),
      );
      yield* run(
        raw(
          () => sql`INSERT INTO subscriptions (account_id, customer_id, subscription_plan_id, mandate_code, start_date,
              status, confirmation_token, created_at, updated_at)
            SELECT ${account.id}, 1, 1, 'M' || x, ${TEST_NOW}, 'active', 't' || x, ${TEST_NOW}, ${TEST_NOW}
            FROM ${series(5000)}`,
        ),
      );
      yield* run(
        raw(
          () => sql`INSERT INTO transactions (id, account_id, subscription_id, origin, status, due_date, amount_cents,
              payment_method, created_at, updated_at)
            SELECT 'tx-' || s.x || '-' || m.x, ${account.id}, s.x, 'subscription',
              CASE WHEN m.x = 12 THEN 'scheduled' ELSE 'fulfilled' END,
              printf('2027-%02d-01T00:00:00.000Z', m.x), 1250, 'directdebit', ${TEST_NOW}, ${TEST_NOW}
            FROM ${series(5000)} AS s, ${series(12)} AS m`,
        ),
      );
    });
    const where = await freshStoreLocation();
    const target = closeLater(await openStore(where, { poolSize: 2 }));
    const client = new pg.Client({ connectionString: where });
    await client.connect();
    try {
      // Only the copy may gather statistics.
      for (const table of ['customers', 'subscription_plans', 'subscriptions', 'transactions'])
        await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      await copyStore(source, target);
      const analysed = await client.query<{ relname: string; last_analyze: Date | null }>(
        `SELECT relname, last_analyze FROM pg_stat_user_tables WHERE relname IN ('subscriptions', 'transactions') ORDER BY relname`,
      );
      expect(analysed.rows.map((row) => [row.relname, row.last_analyze !== null])).toEqual([
        ['subscriptions', true],
        ['transactions', true],
      ]);
    } finally {
      await client.end();
    }
    const plans: string[] = [];
    const ledger = new Ledger(true);
    const ids = Array.from({ length: 500 }, (_, i) => 1001 + i);
    await target.write(() => explained(loadSubscriptions(ledger, ids, account.id), 'postgres', plans, true));
    expect(ledger.subs.size).toBe(500);
    // Not every open transaction of the store, each held against the 500 ids (a filter), as an index
    // led by status would give: with or without statistics, the planner may find that cheaper.
    const open = plans.filter((plan) => /on transactions\b/.test(plan) && /status = ANY/.test(plan));
    expect(open).toHaveLength(1);
    expect(open[0]).toMatch(/Index Cond: \(\(subscription_id = ANY .*status = ANY/s);
    expect(open[0]).not.toMatch(/Filter/);
  });
});
