// billing store info | copy --to PATH|URL, through the built CLI (and once in process, for the
// progress bar a terminal gets). The PostgreSQL stores are databases on the run's server; their
// URLs carry a password (the test server trusts every connection) that must never be printed.
import { postgresMigrations, sqliteMigrations } from '../../src/lib/store/migrations.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { openStore } from '../../src/lib/store/store.js';
import { ensureBundle, runCli, type CliResult } from '../helpers/cli.js';
import { freshPostgresUrl } from '../helpers/engine.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

const configDir = tempDir('billing-config-');
const SECRET = 'pw-s3cret';

const billing = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> =>
  runCli(args, { env: { BILLING_CONFIG_DIR: configDir, ...env } });
const json = (result: CliResult) => JSON.parse(result.stdout);
/** A fresh database's URL with a password in it, and the same URL as billing prints it. */
const withPassword = async () => {
  const url = (await freshPostgresUrl()).replace('postgres://postgres@', `postgres://postgres:${SECRET}@`);
  return { url, shown: url.replace(SECRET, '***') };
};
const EMPTY = {
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
};
// The demo's half year of history (src/lib/runtime/demo/stories.ts), counted alike on any day: twenty subscriptions; 80 transactions
// (60 collected, some charged back and retried, 6 canceled, 14 ahead) with 342 status events; seven invoices of eleven lines (a credit's
// copied); four mandate requests and six invoice emails; ahead, 17 collections (some of canceled ones, dropped when due), a fulfilment,
// a resume and a cancellation. The club collecting by SEPA (demo/club.ts) adds its account (and key), a plan, six members
// on six subscriptions, six transactions (five batched, one left out) with 24 events, six pre-notifications,
// one exported batch of five, and its one block's piece of due work on its collection date (the five next cycles). The store's clock is left as it was: no row. No plan's
// amount changed: plan_prices is empty.
const DEMO = {
  accounts: 3,
  api_keys: 2,
  customers: 26,
  subscription_plans: 7,
  subscriptions: 26,
  invoices: 7,
  invoice_lines: 11,
  transactions: 86,
  collections: 1,
  collection_items: 5,
  bank_reports: 0,
  events: 366,
  webhook_deliveries: 0,
  notifications: 16,
  due_work: 21,
  store_clock: 0,
  imports: 0,
  idempotency_keys: 0,
  plan_prices: 0,
};

beforeAll(() => ensureBundle(), 120_000);

/** The demo store plus a second account (so api_keys has a row). */
async function demoStore(): Promise<string> {
  const db = tempDbPath();
  expect((await billing(['--db', db, 'demo', '-q'])).code).toBe(0);
  expect((await billing(['--db', db, 'accounts', 'create', 'acme', '-q'])).code).toBe(0);
  return db;
}

describe('billing store info', () => {
  it('prints engine, location, schema version and rows per table; --json gives the same as a document', async () => {
    const db = await demoStore();
    const table = await billing(['--db', db, 'store', 'info']);
    expect(table.code).toBe(0);
    expect(table.stderr).toBe('');
    // Not on a terminal: `field<TAB>value` lines.
    const lines = table.stdout.replace(/\n$/, '').split('\n');
    expect(lines.map((line) => line.split('\t'))).toEqual([
      ['engine', 'sqlite'],
      ['location', db],
      ['schema version', String(sqliteMigrations.length)],
      ['accounts', '3'],
      ['API keys', '2'],
      ['customers', '26'],
      ['subscription plans', '7'],
      ['subscriptions', '26'],
      ['invoices', '7'],
      ['invoice lines', '11'],
      ['transactions', '86'],
      ['collections', '1'],
      ['collection items', '5'],
      ['bank reports', '0'],
      ['events', '366'],
      ['webhook deliveries', '0'],
      ['notifications', '16'],
      ['due work', '21'],
      ['store clock', '0'],
      ['imports', '0'],
      ['idempotency keys', '0'],
      ['plan prices', '0'],
    ]);

    const document = await billing(['store', 'info', '--json'], { BILLING_DB: db });
    expect(document.code).toBe(0);
    expect(json(document)).toEqual({
      engine: 'sqlite',
      location: db,
      schema_version: sqliteMigrations.length,
      counts: DEMO,
    });
  });

  it('on PostgreSQL: the password is shown as ***, and an empty store gets no default account from being looked at', async () => {
    const { url, shown } = await withPassword();
    await (await openStore(url)).close(); // the schema, no rows (a database without it is no store to read: store-existence.test.ts)
    const result = await billing(['--db', url, 'store', 'info', '--json']);
    expect(result.code).toBe(0);
    expect(json(result)).toEqual({
      engine: 'postgres',
      location: shown,
      schema_version: postgresMigrations.length,
      counts: EMPTY,
    });
    const table = await billing(['store', 'info'], { BILLING_DB: url });
    expect(table.stdout).toContain(`\nlocation\t${shown}\n`);
    expect(`${result.stdout}${result.stderr}${table.stdout}${table.stderr}`).not.toContain(SECRET);
  });

  it('is embedded-only', async () => {
    const result = await billing(['--base-url', 'http://127.0.0.1:9', 'store', 'info']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: store info works only on the embedded store; it cannot run against http://127.0.0.1:9 (drop --base-url / BILLING_BASE_URL)\n',
    });
  });
});

describe('billing store copy', () => {
  it('SQLite → PostgreSQL → a new SQLite file: --json document, one summary line, ids continue; passwords never printed', async () => {
    const db = await demoStore();
    const { url, shown } = await withPassword();

    const toPostgres = await billing(['--db', db, 'store', 'copy', '--to', url, '--json']);
    expect(toPostgres.code).toBe(0);
    expect(json(toPostgres)).toEqual({ from: db, to: shown, rows: DEMO });
    expect(toPostgres.stderr).toMatch(
      new RegExp(
        `^copied 577 rows in 19 tables from ${db} to ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} in \\d+\\.\\d s\\n$`,
      ),
    );
    expect(json(await billing(['--db', url, 'store', 'info', '--json'])).counts).toEqual(DEMO);

    const copy = join(tempDir(), 'new', 'copy.db'); // neither the file nor its folder exist yet
    const toSqlite = await billing(['--db', url, 'store', 'copy', '--to', copy, '-q']);
    expect(toSqlite.code).toBe(0);
    expect(toSqlite.stderr).toBe('');
    expect(toSqlite.stdout).toMatch(new RegExp(`^from\\t${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    expect(toSqlite.stdout).toContain('\ncustomers\t26\n');
    expect(`${toPostgres.stdout}${toPostgres.stderr}${toSqlite.stdout}`).not.toContain(SECRET);

    // Same documents at the end of the chain, and the next customer gets the next id on both.
    const original = await billing(['--db', db, 'customers', 'list', '--all', '--json']);
    expect((await billing(['--db', copy, 'customers', 'list', '--all', '--json'])).stdout).toBe(original.stdout);
    for (const store of [url, copy]) {
      const created = await billing([
        '--db',
        store,
        'customers',
        'create',
        '--first-name',
        'Nieuw',
        '--last-name',
        'Klant',
        '--email',
        'nieuw@example.com',
        '--json',
      ]);
      expect(json(created).data.id).toBe('27');
    }
  });

  it('refuses a target with any row (exit 2), and changes nothing there', async () => {
    const db = await demoStore();
    const { url, shown } = await withPassword();
    expect((await billing(['--db', url, 'accounts', 'update', 'default', '--invoice-prefix', 'D-', '-q'])).code).toBe(
      0,
    ); // makes the default account
    const result = await billing(['--db', db, 'store', 'copy', '--to', url]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the target ${shown} is not empty (it has rows in accounts): store copy writes only into an empty store\n`,
    });
    expect(json(await billing(['--db', url, 'store', 'info', '--json'])).counts).toEqual({ ...EMPTY, accounts: 1 });

    const sqliteTarget = await demoStore();
    const onto = await billing(['--db', url, 'store', 'copy', '--to', sqliteTarget, '--json']);
    expect(onto.code).toBe(2);
    expect(onto.stderr).toBe(
      `error: the target ${sqliteTarget} is not empty (it has rows in accounts, api_keys, customers, subscription_plans, subscriptions, invoices, invoice_lines, transactions, collections, collection_items, events, notifications, due_work): store copy writes only into an empty store\n`,
    );
    expect(json(await billing(['--db', sqliteTarget, 'store', 'info', '--json'])).counts).toEqual(DEMO);
  });

  it('refuses a store onto itself, a missing --to, remote mode; --dry-run opens nothing at the target', async () => {
    const db = await demoStore();
    expect(
      await billing(['--db', db, 'store', 'copy', '--to', `${db.replace(/billing\.db$/, '')}./billing.db`]),
    ).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot copy the store ${db} onto itself: give --to another file or database\n`,
    });
    const missing = await billing(['--db', db, 'store', 'copy']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--to <path|url>' not specified");
    expect((await billing(['--base-url', 'http://127.0.0.1:9', 'store', 'copy', '--to', tempDbPath()])).code).toBe(2);

    const target = tempDbPath();
    const dry = await billing(['--db', db, 'store', 'copy', '--to', target, '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(json(dry)).toEqual({ from: db, to: target, rows: DEMO });
    expect(dry.stderr).toBe(
      `dry run: would copy 577 rows from ${db} to ${target} (which must be empty); nothing written\n`,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('help shows what it does and examples', async () => {
    const help = await billing(['store', 'copy', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--to <path|url>');
    expect(help.stdout).toContain('Examples:\n  $ billing store copy --to ./billing-copy.db\n');
    expect((await billing(['store', '--help'])).stdout).toMatch(
      /info +show the store's engine[\s\S]*copy \[options\] +copy the whole store/,
    );
  });

  it('draws a progress bar per table on a terminal (in process, stderr as a TTY), then the summary', async () => {
    const db = await demoStore();
    const io = memoryIO({ tty: true });
    const code = await main(['--db', db, 'store', 'copy', '--to', tempDbPath()], io, {
      BILLING_CONFIG_DIR: configDir,
      NO_COLOR: '1',
    });
    expect(code).toBe(0);
    const lines = io.stderr.split('\n');
    expect(lines).toHaveLength(21); // nineteen tables, the summary, and the end of the last line
    expect(lines[2].split('\r\u001b[2K').filter(Boolean)).toEqual([
      `customers          [${'░'.repeat(30)}] 0/26`,
      `customers          [${'█'.repeat(30)}] 26/26`,
      `customers          [${'█'.repeat(30)}] 26/26`,
    ]);
    expect(lines[1]).toContain(`api_keys           [${'█'.repeat(30)}] 2/2`);
    expect(lines[19]).toMatch(/^copied 577 rows in 19 tables from .* in \d+\.\d s$/);
    expect(io.stdout).toContain('│ customers          │ 26');
  });
});
