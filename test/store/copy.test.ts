// store copy: a whole store into an empty one of either engine, in one transaction on the target.
//
// test/store runs in both projects; here the project's engine is the SOURCE, and each case copies
// to BOTH engines: the sqlite project covers SQLite → SQLite and SQLite → PostgreSQL, the postgres
// project PostgreSQL → PostgreSQL and PostgreSQL → SQLite. Cases without a store at all run once.
import Database from 'better-sqlite3';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authenticate, createAccount, rotateKey } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { createCustomer } from '../../src/lib/core/customer-writes.js';
import { runDue } from '../../src/lib/core/due.js';
import { newConfirmationToken } from '../../src/lib/core/mandate.js';
import { createPlan } from '../../src/lib/core/plan-writes.js';
import { CopyRefusedError, copyStore, sameStore, type CopyProgress } from '../../src/lib/store/copy.js';
import { storeInfo } from '../../src/lib/store/info.js';
import { TABLES } from '../../src/lib/store/migrations.js';
import { openStore, type Engine, type Store } from '../../src/lib/store/store.js';
import { all, get, run, wait, type Op, type Unit } from '../../src/lib/store/unit.js';
import { openRuntime, type Runtime } from '../../src/lib/runtime/runtime.js';
import { ENGINE, freshStoreLocation } from '../helpers/engine.js';
import { TEST_NOW, tempDir } from '../helpers/store.js';

const clock = fixedClock(TEST_NOW);
const ENGINES: Engine[] = ['sqlite', 'postgres'];

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function core(location: string): Promise<Runtime> {
  const c = await openRuntime({ location, clock, baseUrl: 'http://billing.test' });
  opened.push(c.store);
  return c;
}

async function store(location: string): Promise<Store> {
  const s = await openStore(location);
  opened.push(s);
  return s;
}

const ok = <T>(result: { ok: true; value: T } | { ok: false; failure: unknown }): T => {
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.failure)}`);
  return result.value;
};

/**
 * A source with something in every table: two accounts (one with a rotated key, so api_keys has a
 * gap in its ids), plans, customers and subscriptions of both accounts, JSON metadata as written.
 */
async function seed(location: string, customers = 7): Promise<{ core: Runtime; acmeKey: string }> {
  const c = await core(location);
  const owner = await c.account();
  const acme = ok(
    await createAccount(c.store, clock, 'acme', { invoice_prefix: 'ACME-', time_zone: 'America/New_York' }),
  );
  const acmeKey = ok(await rotateKey(c.store, clock, 'acme')).apiKey;
  for (const account of [owner, acme.account]) {
    const ctx = { store: c.store, clock, account };
    const plans = [
      ok(await createPlan(ctx, { name: 'Monthly', amount: '12.50', frequency: 'monthly', start_date: '2026-12-01' }))
        .id,
      ok(
        await createPlan(ctx, {
          name: 'Yearly',
          amount: '99',
          frequency: 'yearly',
          send_invoice: false,
          storno_retries: 2,
        }),
      ).id,
    ];
    for (let i = 0; i < customers; i++) {
      const customer = ok(
        await createCustomer(ctx, {
          first_name: `Klant${i}`,
          last_name: 'de Vries',
          email: `k${i}@example.com`,
          iban: i % 2 ? 'NL91ABNA0417164300' : undefined,
          bank_holder: i % 2 ? 'K. de Vries' : undefined,
        }),
      ).customer;
      if (i % 3 === 0) continue;
      await c.store.write(() =>
        get((q) =>
          q.insertInto('subscriptions').values({
            account_id: account.id,
            customer_id: customer.id,
            subscription_plan_id: plans[i % 2],
            mandate_code: `MNDT-${account.id}-${i}`,
            mandate_accepted: i % 2,
            mandate_accepted_date: i % 2 ? '2026-11-20T08:30:00.000Z' : null,
            start_date: '2026-12-01T00:00:00.000Z',
            status: i % 2 ? 'active' : 'unverified',
            cancel_date: null,
            resume_date: null,
            confirmation_sent: 1,
            subscription_webhook_url: 'https://hooks.example.com/s',
            transaction_webhook_url: null,
            success_redirect_url: null,
            metadata: i % 2 ? '{"order":  42, "tags": ["a","b"]}' : null,
            archived: 0,
            created_at: TEST_NOW,
            updated_at: TEST_NOW,
            cycle_anchor: null,
            next_cycle: 0,
            confirmation_token: newConfirmationToken(),
          }),
        ),
      );
    }
  }
  // Subscriptions made through the API: an active one (a scheduled transaction, its due work and
  // events) and one awaiting its mandate (a notification), so every table has rows.
  if (customers > 1) {
    let active = '';
    for (const status of ['active', 'unverified']) {
      const body = JSON.stringify({
        data: {
          type: 'subscription',
          attributes: { customer_id: 2, subscription_plan_id: 1, status, start_date: '2026-12-01' },
        },
      });
      const made = await c.router.handle({ method: 'POST', path: '/subscriptions', body }, owner);
      if (made.status !== 201)
        throw new Error(`seeding a subscription answered ${made.status}: ${JSON.stringify(made.body)}`);
      if (status === 'active') active = (made.body as { data: { id: string } }).data.id;
    }
    // An invoice of the active subscription, finalised (its number, transaction and email), and its credit draft.
    const send = async (method: string, path: string, document?: unknown) => {
      const answer = await c.router.handle(
        { method, path, body: document === undefined ? undefined : JSON.stringify(document) },
        owner,
      );
      if (answer.status >= 300)
        throw new Error(`seeding ${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return (answer.body as { data: { id: string } }).data.id;
    };
    const invoice = await send('POST', '/invoices', {
      data: { type: 'invoice', attributes: { subscription_id: Number(active) } },
    });
    for (const [amount, rate] of [
      ['10.00', 21],
      ['3.27', 9],
    ]) {
      await send('POST', '/invoice-lines', {
        data: {
          type: 'invoice-line',
          attributes: { invoice_id: Number(invoice), description: 'Soep', amount, tax_rate: rate, quantity: 2 },
        },
      });
    }
    await send('PATCH', `/invoices/${invoice}/finalise`);
    await send('PATCH', `/invoices/${invoice}/credit`);
    // Its transaction is collected now: done here, so a store opened on the copy has nothing to catch up.
    await runDue(c.store, clock.now().toISOString(), { allowPrivateWebhooks: true });
    await c.store.write(() =>
      get((q) => q.insertInto('store_clock').values({ id: 1, test_time: '2026-11-21T10:00:00.000Z' })),
    );
    // A plan whose amount changed: its amount before the change is kept (plan_prices, by a trigger), for reports of past dates.
    await c.store.write(() =>
      run((q) =>
        q
          .updateTable('subscription_plans')
          .set({ amount_cents: 1350, updated_at: '2026-11-21T10:00:00.000Z' })
          .where('id', '=', 1),
      ),
    );
  }
  return { core: c, acmeKey };
}

const rowsOf = (s: Store) =>
  s.read(function* () {
    const rows: Record<string, unknown[]> = {};
    for (const table of TABLES)
      rows[table] = yield* all((q) =>
        q
          .selectFrom(table)
          .selectAll()
          .orderBy(table === 'transactions' ? 'seq' : 'id'),
      );
    return rows;
  });

const totalRows = async (s: Store) => Object.values((await storeInfo(s)).counts).reduce((a, b) => a + b, 0);

/** What a client sees of every resource, as each account. */
async function documents(c: Runtime, acmeKey: string): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (const account of [await c.account(), (await authenticate(c.store, acmeKey))!]) {
    for (const [path, query] of [
      ['/customers', 'page[size]=100&include=subscriptions'],
      ['/subscription-plans', 'page[size]=100'],
      ['/customers/2', undefined],
      ['/customers/2/subscriptions', undefined],
      ['/subscription-plans/1/subscriptions', 'page[size]=100'],
      ['/subscriptions', 'page[size]=100&include=customer'],
      ['/subscriptions/9/transactions', undefined],
      ['/notifications', undefined],
      ['/invoices', 'include=subscriptions'],
      ['/invoices/2/lines', undefined],
    ] as const) {
      const response = await c.router.handle({ method: 'GET', path, query }, account);
      seen.push({ path, status: response.status, body: response.body });
    }
  }
  return seen;
}

/**
 * The store, with its bulk units watched: `hook` sees each query of a unit with its answer, may
 * change the answer, and may make the unit wait for something first.
 */
function watched(
  s: Store,
  hook: (op: Op, value: unknown) => { value?: unknown; wait?: Promise<unknown> } | void,
): Store {
  return {
    ...s,
    bulkRead: <T>(unit: () => Unit<T>) =>
      s.bulkRead(function* (): Unit<T> {
        const inner = unit();
        let step = inner.next();
        while (!step.done) {
          let value: unknown;
          try {
            value = yield step.value;
          } catch (error) {
            step = inner.throw(error);
            continue;
          }
          const seen = hook(step.value, value);
          if (seen?.wait) yield* wait(seen.wait);
          step = inner.next(seen && 'value' in seen ? seen.value : value);
        }
        return step.value;
      }),
  };
}

const isRowsOf = (value: unknown, column: string): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.length > 0 && column in (value[0] as object);

describe(`store copy from ${ENGINE} (this project's engine is the source; each case copies to both engines)`, () => {
  describe.each(ENGINES)(`into %s`, (targetEngine) => {
    it('copies every table, ids kept, in batches: the same rows and the same documents; ids continue after the copy', async () => {
      const { core: source, acmeKey } = await seed(await freshStoreLocation(ENGINE));
      const targetLocation = await freshStoreLocation(targetEngine);
      const target = await store(targetLocation);
      const events: CopyProgress[] = [];

      const result = await copyStore(source.store, target, { batchSize: 3, onProgress: (p) => events.push(p) });

      const before = await storeInfo(source.store);
      expect(result).toEqual({ from: source.store.location, to: target.location, rows: before.counts });
      expect(before.counts).toEqual({
        accounts: 2,
        api_keys: 1,
        customers: 14,
        subscription_plans: 4,
        subscriptions: 10,
        invoices: 2,
        invoice_lines: 4,
        transactions: 2,
        collections: 0,
        collection_items: 0,
        bank_reports: 0,
        events: 8,
        webhook_deliveries: 0,
        notifications: 3,
        due_work: 2,
        store_clock: 1,
        imports: 0,
        idempotency_keys: 0,
        plan_prices: 1,
      });
      expect(await storeInfo(target)).toMatchObject({ engine: targetEngine, counts: before.counts });
      expect(await rowsOf(target)).toEqual(await rowsOf(source.store));
      // Progress: every table, in order, from 0 to its total, batch by batch (3 rows, then the rest).
      expect(events.filter((e) => e.done).map((e) => [e.table, e.copied, e.total])).toEqual(
        TABLES.map((t) => [t, before.counts[t], before.counts[t]]),
      );
      expect(events.filter((e) => e.table === 'customers').map((e) => e.copied)).toEqual([0, 3, 6, 9, 12, 14, 14]);

      const copy = await core(targetLocation);
      expect(await authenticate(copy.store, acmeKey)).toMatchObject({ name: 'acme' }); // key hashes came along
      expect(await documents(copy, acmeKey)).toEqual(await documents(source, acmeKey));

      // The next id of every table is the one after the highest copied (PostgreSQL: setval; SQLite: AUTOINCREMENT).
      const ctx = { store: copy.store, clock, account: await copy.account() };
      expect(
        ok(await createCustomer(ctx, { first_name: 'Nieuw', last_name: 'Klant', email: 'nieuw@example.com' })).customer
          .id,
      ).toBe(15);
      expect(ok(await createPlan(ctx, { name: 'Weekly', amount: '1', frequency: 'monthly' })).id).toBe(5);
      const next = ok(await createAccount(copy.store, clock, 'beta'));
      expect(next.account.id).toBe(3);
      expect(
        await copy.store.read(() =>
          get((q) => q.selectFrom('api_keys').select('id').where('account_id', '=', next.account.id)),
        ),
      ).toEqual({ id: 3 });
    });

    it('refuses a target that has any row, and changes nothing in either store', async () => {
      const { core: source } = await seed(await freshStoreLocation(ENGINE), 1);
      const target = await core(await freshStoreLocation(targetEngine));
      await target.account(); // only the default account: one row in one table
      const [sourceRows, targetRows] = [await rowsOf(source.store), await rowsOf(target.store)];

      const refused = copyStore(source.store, target.store);
      await expect(refused).rejects.toThrow(CopyRefusedError);
      await expect(refused).rejects.toThrow(
        `the target ${target.store.location} is not empty (it has rows in accounts): store copy writes only into an empty store`,
      );
      expect(await rowsOf(target.store)).toEqual(targetRows);
      expect(await rowsOf(source.store)).toEqual(sourceRows);
    });

    it('a failure midway (a row the target refuses, in the second batch of the last table) leaves the target empty; a copy after it works', async () => {
      const { core: source } = await seed(await freshStoreLocation(ENGINE));
      const target = await store(await freshStoreLocation(targetEngine));
      let subscriptionBatches = 0;
      // The second batch of subscriptions carries its first row twice: a primary-key violation.
      const faulty = watched(source.store, (_op, value) => {
        if (isRowsOf(value, 'mandate_code') && ++subscriptionBatches === 2) return { value: [...value, value[0]] };
      });
      const events: CopyProgress[] = [];

      await expect(copyStore(faulty, target, { batchSize: 3, onProgress: (p) => events.push(p) })).rejects.toThrow(
        /^writing subscriptions \(ids \d+ to \d+\) into the target failed: .*(UNIQUE|unique)/,
      );
      // It had written every other table and a batch of subscriptions before it failed.
      expect(events.filter((e) => e.done).map((e) => e.table)).toEqual([
        'accounts',
        'api_keys',
        'customers',
        'subscription_plans',
      ]);
      expect(events.at(-1)).toMatchObject({ table: 'subscriptions', copied: 3, done: false });
      expect(await totalRows(target)).toBe(0);

      const again = await copyStore(source.store, target);
      expect(again.rows.subscriptions).toBe(10);
      expect(await rowsOf(target)).toEqual(await rowsOf(source.store));
    });

    it('a source that fails midway leaves the target empty too', async () => {
      const { core: source } = await seed(await freshStoreLocation(ENGINE), 2);
      const target = await store(await freshStoreLocation(targetEngine));
      const broken = watched(source.store, (_op, value) => {
        if (isRowsOf(value, 'first_name')) return { wait: Promise.reject(new Error('the source went away')) };
      });
      await expect(copyStore(broken, target)).rejects.toThrow('the source went away');
      expect(await totalRows(target)).toBe(0);
    });

    it('an empty source copies nothing, and the target still starts its ids at 1', async () => {
      const source = await store(await freshStoreLocation(ENGINE));
      const targetLocation = await freshStoreLocation(targetEngine);
      const result = await copyStore(source, await store(targetLocation));
      expect(result.rows).toEqual({
        accounts: 0,
        api_keys: 0,
        customers: 0,
        subscription_plans: 0,
        subscriptions: 0,
        invoices: 0,
        invoice_lines: 0,
        transactions: 0,
        collections: 0,
        collection_items: 0,
        bank_reports: 0,
        events: 0,
        webhook_deliveries: 0,
        notifications: 0,
        due_work: 0,
        store_clock: 0,
        imports: 0,
        idempotency_keys: 0,
        plan_prices: 0,
      });
      expect((await (await core(targetLocation)).account()).id).toBe(1);
    });
  });

  it('reads the source in one snapshot, without holding writers back: a write to the source during the copy commits and is not copied', async () => {
    const sourceLocation = await freshStoreLocation(ENGINE);
    const { core: source } = await seed(sourceLocation, 4);
    const target = await store(await freshStoreLocation(ENGINE));
    const writer = await core(sourceLocation);
    const writerAccount = await writer.account();
    let tried = false;
    const hooked = watched(source.store, (_op, value) => {
      if (tried || !isRowsOf(value, 'first_name')) return;
      tried = true;
      // Another connection commits a customer and a change between two batches (SQLite: WAL lets
      // it write while the copy's read transaction goes on).
      const ctx = { store: writer.store, clock, account: writerAccount };
      return {
        wait: Promise.all([
          createCustomer(ctx, { first_name: 'Laat', last_name: 'Klant', email: 'laat@example.com' }),
          writer.store.write(() => get((q) => q.updateTable('accounts').set({ invoice_prefix: 'X-' }))),
        ]),
      };
    });
    const before = await rowsOf(source.store);

    const result = await copyStore(hooked, target, { batchSize: 2 });

    expect(tried).toBe(true);
    expect((await storeInfo(source.store)).counts.customers).toBe(9);
    expect(result.rows.customers).toBe(8);
    expect(await rowsOf(target)).toEqual(before);
  });
});

describe.runIf(ENGINE === 'sqlite')('sameStore (no store opened; runs once)', () => {
  it('knows a file by any of its names, and a database by its server and name', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const file = join(dir, 'real', 'billing.db');
    const db = new Database(file);
    db.close();
    expect(await sameStore(file, join(dir, 'link', 'billing.db'))).toBe(true);
    expect(await sameStore(file, relative(process.cwd(), file))).toBe(true);
    expect(await sameStore(join(dir, 'real', 'new.db'), join(dir, 'link', 'new.db'))).toBe(true); // not made yet
    expect(await sameStore(file, join(dir, 'real', 'other.db'))).toBe(false);
    expect(await sameStore(':memory:', ':memory:')).toBe(false);

    expect(
      await sameStore('postgres://billing:s3cret@localhost/billing', 'postgresql://billing:***@127.0.0.1:5432/billing'),
    ).toBe(true);
    expect(
      await sameStore('postgres://billing@db.example.com:5433/billing', 'postgres://other@DB.example.com:5433/billing'),
    ).toBe(true);
    expect(
      await sameStore('postgres://billing@db.example.com/billing', 'postgres://billing@db.example.com/billing2'),
    ).toBe(false);
    expect(
      await sameStore('postgres://billing@db.example.com/billing', 'postgres://billing@db.example.com:5433/billing'),
    ).toBe(false);
    expect(await sameStore('postgres://billing@localhost/billing', file)).toBe(false);
  });

  it('copyStore refuses a store onto itself', async () => {
    const location = await freshStoreLocation('sqlite');
    const [a, b] = [await store(location), await store(location)];
    await expect(copyStore(a, b)).rejects.toThrow(
      new CopyRefusedError(`cannot copy the store ${location} onto itself`),
    );
  });
});
