// Migration 11 on a store made before it: the events already written get the status they left, their
// transaction's amount and their reason code from the histories, exactly what the core now writes
// with each new event, so the reports of an upgraded store are those of a store made by this version.
// The store of version 10 is made by taking migrations 15 to 11 back out of a store with a history
// (their columns, indexes, table and trigger dropped, the version set back), then opening it again.
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/core/clock.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import { postgresMigrations, sqliteMigrations } from '../../src/lib/store/migrations.js';
import { openStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { ENGINE } from '../helpers/engine.js';
import { BEFORE_22 } from '../helpers/older-store.js';
import { closeLater, testCore } from '../helpers/store.js';
import { context, createCustomer, makePlan, send } from '../api/support.js';

// Migration 12 (a transaction's last reason code) is taken out first, then 11: both run again on opening.
const AFTER_11 = [
  ...['transactions_due', 'transactions_status_due', 'transactions_reason'].map((index) => `DROP INDEX ${index}`),
  'ALTER TABLE transactions DROP COLUMN reason_code',
];
const DOWNGRADE = [
  // Migrations 22 (live items keyed by their transaction's row number), 18 (the index of EndToEndIds),
  // 17 (a transaction's batch), 16 (collection items), 15 and 14 (search), 13 (credits), then 12, go
  // back out before 11: all run again on opening.
  ...BEFORE_22,
  'CREATE UNIQUE INDEX collection_items_e2e ON collection_items(account_id, end_to_end_id) WHERE cancelled_at IS NULL',
  `ALTER TABLE transactions ADD COLUMN collection_id ${ENGINE === 'postgres' ? 'bigint' : 'INTEGER'}`,
  'CREATE INDEX transactions_batching ON transactions(status, account_id, collection_id, due_date)',
  'DROP INDEX collection_items_once',
  'DROP INDEX collection_items_e2e',
  "CREATE UNIQUE INDEX collection_items_once ON collection_items(transaction_id, attempt) WHERE state <> 'cancelled'",
  "CREATE UNIQUE INDEX collection_items_e2e ON collection_items(account_id, end_to_end_id) WHERE state <> 'cancelled'",
  'ALTER TABLE collection_items DROP COLUMN cancelled_at',
  'DROP INDEX customers_search_text',
  ...(ENGINE === 'postgres'
    ? ['DROP INDEX customers_search']
    : ['insert', 'update', 'delete']
        .map((on) => `DROP TRIGGER customers_search_${on}`)
        .concat('DROP TABLE customers_search')),
  'ALTER TABLE customers DROP COLUMN search_text',
  'DROP INDEX invoice_lines_credited',
  'ALTER TABLE invoice_lines DROP COLUMN credited_line_id',
  'ALTER TABLE invoices DROP COLUMN refunded_on',
  ...AFTER_11,
  'DROP TRIGGER plan_prices_kept' + (ENGINE === 'postgres' ? ' ON subscription_plans' : ''),
  ...(ENGINE === 'postgres' ? ['DROP FUNCTION plan_prices_kept()'] : []),
  'DROP TABLE plan_prices',
  ...[
    'events_subscription_changes',
    'events_collections',
    'invoices_finalised',
    'invoices_credits',
    'invoice_lines_tax',
  ].map((index) => `DROP INDEX ${index}`),
  ...['from_status', 'reason_code', 'amount_cents'].map((column) => `ALTER TABLE events DROP COLUMN ${column}`),
  ENGINE === 'postgres' ? 'UPDATE billing_schema SET version = 10' : 'PRAGMA user_version = 10',
];

async function downgrade(location: string): Promise<void> {
  if (ENGINE === 'sqlite') {
    const db = new Database(location);
    try {
      for (const statement of DOWNGRADE) db.exec(statement);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    for (const statement of DOWNGRADE) await client.query(statement);
  } finally {
    await client.end();
  }
}

const doc = (type: string, attributes: Record<string, unknown>, id?: string) => ({
  data: { type, ...(id ? { id } : {}), attributes },
});

describe(`migration 11 on a store of version 10 (${ENGINE})`, () => {
  it('gives the events already written their previous status, amount and reason code, as the core writes them now', async () => {
    const core = await testCore({ clock: fixedClock('2026-01-09T09:00:00.000Z') });
    const ctx = await context(core);
    const plan = await makePlan(core, { name: 'Monthly', amount: '12.50', frequency: 'monthly', storno_retries: 1 });
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const customer = await createCustomer(core, {
        first_name: `F${i}`,
        last_name: `L${i}`,
        email: `c${i}@example.com`,
      });
      const made = await send(core, 'POST', '/subscriptions', {
        body: doc('subscription', {
          customer_id: customer,
          subscription_plan_id: plan,
          status: 'active',
          mandate_accepted: true,
          mandate_accepted_date: '2026-01-09',
        }),
      });
      ids.push(made.body.data.id);
    }
    const to = async (iso: string) => expect((await setClock(core, iso)).ok).toBe(true);
    const txOf = async (sub: string, status: string) =>
      (
        (await send(core, 'GET', `/subscriptions/${sub}/transactions`)).body.data as {
          id: string;
          attributes: { status: string };
        }[]
      ).find((t) => t.attributes.status === status)!.id;
    await to('2026-01-20T09:00:00.000Z');
    await simulateOutcome(ctx, await txOf(ids[0], 'fulfilled'), 'charged_back', 'MD06');
    await simulateOutcome(ctx, await txOf(ids[1], 'scheduled'), 'failed', 'AM04');
    await send(core, 'PATCH', `/subscriptions/${ids[2]}`, { body: doc('subscription', { status: 'paused' }, ids[2]) });
    await to('2026-02-20T09:00:00.000Z');
    await simulateOutcome(ctx, await txOf(ids[1], 'fulfilled'), 'charged_back', 'AC04');
    await send(core, 'PATCH', `/subscriptions/${ids[2]}`, {
      body: doc('subscription', { status: 'cancelled' }, ids[2]),
    });
    await to('2026-03-20T09:00:00.000Z');

    const events = () =>
      core.store.read(() =>
        all((q) =>
          q.selectFrom('events').select(['id', 'status', 'from_status', 'reason_code', 'amount_cents']).orderBy('id'),
        ),
      );
    const asWritten = await events();
    expect(asWritten.filter((e) => e.reason_code !== null).map((e) => e.reason_code)).toEqual(
      expect.arrayContaining(['MD06', 'AM04', 'AC04']),
    );
    const report = async () =>
      (await send(core, 'GET', '/reports/collections', { query: 'filter[from]=2026-01-01&filter[to]=2026-03-31' }))
        .body;
    const reported = await report();
    await core.store.close();

    await downgrade(core.dbPath);
    const upgraded = closeLater(await openStore(core.dbPath, { poolSize: 2 }));
    expect(await upgraded.schemaVersion()).toBe(
      ENGINE === 'postgres' ? postgresMigrations.length : sqliteMigrations.length,
    );
    expect(
      await upgraded.read(() =>
        all((q) =>
          q.selectFrom('events').select(['id', 'status', 'from_status', 'reason_code', 'amount_cents']).orderBy('id'),
        ),
      ),
    ).toEqual(asWritten);
    const reopened = await testCore({ dbPath: core.dbPath, clock: fixedClock('2026-03-20T09:00:00.000Z') });
    expect(
      await (async () =>
        (
          await send(reopened, 'GET', '/reports/collections', {
            query: 'filter[from]=2026-01-01&filter[to]=2026-03-31',
          })
        ).body)(),
    ).toEqual(reported);
  });
});
