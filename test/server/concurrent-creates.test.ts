// Concurrent creates on PostgreSQL: two `billing serve` instances (the built bin) on one database,
// 8 clients each sending 50 POST /subscriptions with status active, all for the same plan. Each is
// 201, and no transaction of the race is rolled back: under SERIALIZABLE every create's inserts and
// foreign key checks took predicate locks on the last page of the subscriptions' primary key, which
// every other create writes its id into, and about 550 a race failed as pivots of such conflicts
// (a few of them past the store's 8 attempts: 503). Also: the same mandate code sent by 8 at once
// is made once, the others refused for it (400, not a 500 or a 503).
// Runs in the `sqlite` project only: it is about PostgreSQL by nature, not a suite run per engine.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { rotateKey } from '../../src/lib/core/accounts.js';
import { JSONAPI } from '../../src/lib/api/http.js';
import { createCustomer, makePlan, minimalCustomer } from '../api/support.js';
import { BIN, ensureBundle, TEST_CONFIG_DIR, watchServe, type ServeChild } from '../helpers/cli.js';
import { freshPostgresUrl, postgresAdminUrl } from '../helpers/engine.js';
import { testCore } from '../helpers/store.js';

const CLIENTS = 8;
const EACH = 50;

interface Answer {
  status: number;
  body: any;
}

/** Two instances on the database, for `race`; stopped (SIGTERM, their pools closed) before it resolves. */
async function withInstances<T>(db: string, race: (urls: string[]) => Promise<T>): Promise<T> {
  const serves: ServeChild[] = [0, 1].map(() =>
    watchServe(
      spawn(process.execPath, [BIN, '--db', db, 'serve', '--host', '127.0.0.1', '--port', '0'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    ),
  );
  try {
    const ports = await Promise.all(serves.map((serve) => serve.port));
    return await race(ports.map((port) => `http://127.0.0.1:${port}`));
  } finally {
    for (const serve of serves) {
      const killer = setTimeout(() => serve.child.kill('SIGKILL'), 15_000);
      serve.child.kill('SIGTERM');
      const code = await serve.exited;
      clearTimeout(killer);
      expect(code, serve.output().stderr.slice(-2000)).toBe(0);
    }
  }
}

async function post(url: string, key: string, path: string, attributes: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'x-authorization': key, 'content-type': JSONAPI },
    body: JSON.stringify({ data: { type: path.slice(1, -1), attributes } }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const subscription = (customer: number, plan: number) => ({
  customer_id: customer,
  subscription_plan_id: plan,
  status: 'active',
  confirmation_sent: true,
});

/** A fresh database with a plan, `customers` customers and an API key. */
async function arrange(customers: number) {
  const db = await freshPostgresUrl();
  const core = await testCore({ dbPath: db });
  const plan = await makePlan(core, { name: 'Box', amount: '12.50' });
  const ids: number[] = [];
  for (let n = 1; n <= customers; n++) ids.push(Number(await createCustomer(core, minimalCustomer(n))));
  const rotated = await rotateKey(core.store, core.clock, 'default');
  if (!rotated.ok) throw new Error(`rotateKey failed: ${JSON.stringify(rotated.failure)}`);
  // Closed before counting: each connection's statistics reach pg_stat_database by its end.
  await core.store.close();
  return { db, database: new URL(db).pathname.slice(1), plan, customers: ids, key: rotated.value.apiKey };
}

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Transactions PostgreSQL rolled back in the database so far: serialization failures and deadlocks among them. */
async function rolledBack(database: string): Promise<number> {
  const sql = 'SELECT xact_rollback::int AS n FROM pg_stat_database WHERE datname = $1';
  return (await query<{ n: number }>(postgresAdminUrl(), sql, [database]))[0].n;
}

describe('billing serve on PostgreSQL: concurrent creates through two instances never fail', () => {
  const title = `makes ${CLIENTS} x ${EACH} active subscriptions of one plan at once: every one 201, none rolled back`;
  it(`${title}, each with its first transaction once`, async () => {
    ensureBundle('plans.find.shared');
    const { db, database, plan, customers, key } = await arrange(CLIENTS * EACH);
    const before = await rolledBack(database);
    const answers = await withInstances(db, (urls) =>
      Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          const mine: (Answer & { customer: number })[] = [];
          for (let i = 0; i < EACH; i++) {
            const customer = customers[client * EACH + i];
            mine.push({ customer, ...(await post(urls[i % 2], key, '/subscriptions', subscription(customer, plan))) });
          }
          return mine;
        }),
      ).then((all) => all.flat()),
    );
    // The instances are stopped: every connection has ended and counted its rollbacks.
    const rollbacks = (await rolledBack(database)) - before;

    const failed = answers
      .filter((a) => a.status !== 201)
      .map((a) => `${a.customer}: ${a.status} ${JSON.stringify(a.body?.errors?.[0]?.detail)}`);
    // Rolled back and run again by the store: serialization failures and deadlocks (none expected of either).
    expect({ failed, rollbacks }).toEqual({ failed: [], rollbacks: 0 });
    for (const a of answers) expect(a.body.data.attributes.status).toBe('active');

    // The instances' due work may have collected a first transaction and planned the next cycle meanwhile.
    const rows = await query<{ id: string; customer_id: string; status: string; first: string[]; cycles: number[] }>(
      db,
      `SELECT s.id, s.customer_id, s.status,
              array(SELECT t.id::text FROM transactions t
                     WHERE t.subscription_id = s.id AND t.origin = 'plan' AND t.cycle = 0) AS first,
              array(SELECT t.cycle::int FROM transactions t
                     WHERE t.subscription_id = s.id AND t.origin = 'plan' ORDER BY t.cycle) AS cycles
         FROM subscriptions s ORDER BY s.id`,
    );
    expect(rows).toHaveLength(CLIENTS * EACH);
    expect(new Set(rows.map((r) => r.customer_id)).size, 'one subscription per customer').toBe(CLIENTS * EACH);
    expect(rows.filter((r) => r.status !== 'active')).toEqual([]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const a of answers) {
      const row = byId.get(a.body.data.id)!;
      expect(row.cycles, `subscription ${row.id}: no cycle planned twice`).toEqual([...new Set(row.cycles)]);
      // The answer names its first transaction, the one of cycle 0.
      expect(row.first, `subscription ${row.id}`).toHaveLength(1);
      expect(a.body.data.relationships.transactions.data.map((t: { id: string }) => t.id)).toEqual(row.first);
    }
  }, 120_000);

  it('makes a mandate code sent by 8 at once through both instances once: the other 7 are refused for it', async () => {
    ensureBundle('plans.find.shared');
    const { db, plan, customers, key } = await arrange(CLIENTS);
    const answers = await withInstances(db, (urls) =>
      Promise.all(
        customers.map((customer, n) => {
          const attributes = { ...subscription(customer, plan), mandate_code: 'SAME-1' };
          return post(urls[n % 2], key, '/subscriptions', attributes);
        }),
      ),
    );
    const made = answers.filter((a) => a.status === 201);
    const unexpected = answers.filter((a) => a.status !== 201 && a.status !== 400);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, JSON.stringify(unexpected)).toEqual([201, ...Array(CLIENTS - 1).fill(400)]);
    for (const refused of answers.filter((a) => a.status === 400)) {
      expect(refused.body.errors[0].source.pointer).toBe('/data/attributes/mandate_code');
      const detail = `mandate_code is already the mandate code of subscription ${made[0].body.data.id}`;
      expect(refused.body.errors[0].detail).toBe(detail);
    }
    expect(await query(db, `SELECT id FROM subscriptions WHERE mandate_code = 'SAME-1'`)).toHaveLength(1);
    expect(await query(db, `SELECT id FROM transactions WHERE cycle = 0`)).toHaveLength(1);
  }, 60_000);
});
