// The demo's reports, from the built CLI: `billing demo` on a store whose clock is set to
// 2027-03-31 12:00 (Amsterdam) has a known MRR, VAT and overdue, stated below from its stories
// (src/lib/runtime/demo/stories.ts); and every report prints the same on SQLite and PostgreSQL, in
// embedded mode and against `billing serve` on the same store (remote mode).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerAttributes } from '../../src/lib/runtime/demo/people.js';
import {
  BIN,
  ensureBundle,
  runCli,
  TEST_CONFIG_DIR,
  watchServe,
  type CliResult,
  type ServeChild,
} from '../helpers/cli.js';
import { freshPostgresUrl } from '../helpers/engine.js';
import { tempDbPath } from '../helpers/store.js';

const NOW = '2027-03-31T12:00:00+02:00';
const REPORTS = ['mrr', 'subscriptions', 'collections', 'revenue', 'vat', 'overdue'];

const ok = (result: CliResult, what: string): string => {
  expect(result.code, `${what}: ${result.stderr}`).toBe(0);
  return result.stdout;
};

/** What every way of asking prints: each report's document, VAT for the quarter, one CSV, and all reports as TSV. */
async function outputs(where: string[]): Promise<Record<string, string>> {
  const asked: Record<string, string[]> = {
    ...Object.fromEntries(REPORTS.map((report) => [`${report} --json`, ['reports', report, '--json']])),
    'vat --quarter': ['reports', 'vat', '--quarter', '2027-Q1', '--json'],
    'collections -o csv': ['reports', 'collections', '-o', 'csv'],
    all: ['reports', 'all'],
  };
  // At once: each is a process of its own, reading.
  const answers = await Promise.all(
    Object.entries(asked).map(async ([name, args]) => [
      name,
      ok(await runCli([...where, ...args], { timeoutMs: 120_000 }), name),
    ]),
  );
  return Object.fromEntries(answers);
}

const servers: ServeChild[] = [];
afterAll(async () => {
  for (const serve of servers) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});

beforeAll(() => ensureBundle('no report named'), 120_000);

describe('the demo on each engine, through each mode', () => {
  const seen: Record<string, Record<string, string>> = {};

  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`${engine}: embedded and remote print the same reports`, async () => {
      const db = engine === 'sqlite' ? tempDbPath() : await freshPostgresUrl();
      ok(await runCli(['--db', db, 'clock', 'set', NOW, '-q']), 'clock set');
      ok(await runCli(['--db', db, 'demo', '-q'], { timeoutMs: 120_000 }), 'demo');
      const embedded = await outputs(['--db', db]);
      const key = JSON.parse(
        ok(await runCli(['--db', db, 'accounts', 'rotate-key', 'default', '--json', '--yes']), 'rotate-key'),
      ).api_key as string;
      const serve = watchServe(
        spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db], {
          env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
          stdio: ['ignore', 'ignore', 'pipe'],
        }),
      );
      servers.push(serve);
      const remote = await outputs(['--base-url', `http://127.0.0.1:${await serve.port}`, '--api-key', key]);
      expect(remote).toEqual(embedded);
      seen[engine] = embedded;
    }, 900_000);
  }

  it('SQLite and PostgreSQL print the same', () => {
    expect(seen.sqlite, 'sqlite ran').toBeDefined();
    expect(seen.postgres).toEqual(seen.sqlite);
  });

  it("states the demo's MRR, VAT and overdue", () => {
    const json = (name: string) => JSON.parse(seen.sqlite[name]);
    // Active at the end of March, by story: seven monthly (12.50 each: stories 0, 4, 7, 12, 14, 15, 19) = 87.50;
    // two quarterly 39.95 (5, 17): 13.32 each = 26.64; weekly 17.50 (6): 75.83; yearly 240.00 (8): 20.00;
    // half-yearly 89.00 (9): 14.83. The workshop (11) is collected once: no MRR. 224.80 from 12 subscriptions.
    const mrr = json('mrr --json');
    expect(mrr.meta).toEqual({
      report: 'mrr',
      from: '2026-04-01',
      to: '2027-03-31',
      by: 'month',
      time_zone: 'Europe/Amsterdam',
      as_of: '2027-03-31T12:00:00+02:00',
    });
    expect(mrr.data.at(-1)).toMatchObject({ period: '2027-03', mrr: '224.80', active: 12 });
    for (const row of mrr.data) {
      const moved = ['new', 'reactivated', 'paused', 'churned'].map((k) => Math.round(Number(row[k]) * 100));
      expect(Math.round(Number(row.net) * 100), row.period).toBe(moved[0] + moved[1] - moved[2] - moved[3]);
    }
    // The first quarter of 2027: the grinder (89.00 - 10.00 at 21%: 79.00, tax 16.59), the bike parts
    // credited (-104.50, -21.95) and the massage (55.00 including 21%: 45.45, tax 9.55).
    expect(json('vat --quarter').data).toEqual([
      { period: '2027-Q1', rate: '21.00', base: '19.95', tax: '4.19', invoices: 3 },
    ]);
    // The grinder's invoice, charged back for good, 62 days past its collection on January 28; the
    // massage's, collected on April 7, not yet due.
    const overdue = json('overdue --json');
    expect(overdue.data).toEqual([
      { bucket: 'not-due', invoices: 1, amount: '55.00', customers: 1 },
      { bucket: '0-30', invoices: 0, amount: '0.00', customers: 0 },
      { bucket: '31-60', invoices: 0, amount: '0.00', customers: 0 },
      { bucket: '61-90', invoices: 1, amount: '95.59', customers: 1 },
      { bucket: '91+', invoices: 0, amount: '0.00', customers: 0 },
    ]);
    const grinder = customerAttributes(17);
    const name = [
      [grinder.first_name, grinder.middle_name, grinder.last_name].filter(Boolean).join(' '),
      grinder.company_name,
    ]
      .filter(Boolean)
      .join(', ');
    expect(overdue.customers).toEqual([
      { customer_id: expect.any(String), name, invoices: 1, amount: '95.59', oldest_days: 62 },
    ]);
  });
});
