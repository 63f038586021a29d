// The built CLI (bin/billing.js running dist/), spawned as a user runs it, against temporary
// stores chosen with --db and with BILLING_DB. Spawns are kept few: each costs ~100 ms.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBundle, runCli, type CliResult } from '../helpers/cli.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ANSI = '\u001b['; // toMatch with a string: contains it
const configDir = tempDir('billing-config-');

/** Runs the CLI with its own config directory, so nobody's saved profiles take part. */
const billing = (
  args: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string } = {},
): Promise<CliResult> => runCli(args, { ...options, env: { BILLING_CONFIG_DIR: configDir, ...options.env } });

beforeAll(() => ensureBundle(), 120_000);

describe('a demo store (--db, then BILLING_DB)', () => {
  const db = tempDbPath();

  it('demo fills the store and shows it: data on stdout, messages on stderr', async () => {
    const result = await billing(['--db', db, 'demo']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `^added 6 plans, 20 customers, 20 subscriptions and 7 invoices, with their history since \\d{4}-\\d\\d-\\d\\d, to ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n` +
          'account club collects by SEPA Direct Debit: 6 members; collection 1 of 5 transactions \\(62\\.50 EUR\\) exported, 1 left out \\(see docs/sepa\\.md\\)\n' +
          'all 6 plans\npage 1 of 1, 20 subscriptions\npage 1 of 1, 7 invoices\npage 1 of 1, 20 customers\n' +
          'next: billing customers get 1 · billing subscriptions list --status paused · billing transactions list --subscription-id 9 · billing invoices finalise 6 · billing --account club collections get 1 · billing clock advance P1M\n$',
      ),
    );
    // Not on a terminal: tab-separated lines.
    expect(result.stdout).toContain('\n1\tMonthly membership\t€ 12.50\tmonthly\tactive\tfirst_payment\n');
    expect(result.stdout).toContain('\n6\tSourdough workshop\t€ 45.00\tonce\tactive\tonline_payment\n');
    expect(result.stdout).toContain('\n1\tJeroen van der Geer\tjeroen.vandergeer@example.com\tdirectdebit\t');
    // customer and plan by name, status, mandate, start
    expect(result.stdout).toMatch(/\n1\tJeroen van der Geer\tMonthly membership\tactive\tMNDT-1\t\d{4}-\d\d-\d\d\n/);
    expect(result.stdout).toMatch(/\n2\tLucas Peeters\tMonthly membership\tcancelled\tMNDT-2\t/);
    expect(result.stdout).toMatch(/\n4\tManon Lefèvre\tHalf-yearly bike service\tpaused\tMNDT-4\t/);
    expect(result.stdout).toMatch(/\n20\tEmma Janssens\tQuarterly coffee box\tunverified\tMNDT-20\t/);
    // The invoice's customer by name.
    expect(result.stdout).toMatch(/\n6\tDRAFT\tdraft\tMilan Smit\t€ 435.60\t/);
    expect(result.stdout).not.toContain('customers'); // no messages mixed into the data
  });

  it('customers list: ten rows and the footer', async () => {
    const result = await billing(['--db', db, 'customers', 'list']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('page 1 of 2, 20 customers (next: --page 2)\n');
    const lines = result.stdout.replace(/\n$/, '').split('\n');
    expect(lines[0]).toBe('id\tname\temail\tpayment method\tcreated\tstate');
    expect(lines).toHaveLength(1 + 10);
  });

  it('customers get 1 --json through BILLING_DB prints only the document', async () => {
    const result = await billing(['customers', 'get', '1', '--json'], { env: { BILLING_DB: db } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const document = JSON.parse(result.stdout);
    expect(document.links.self).toBe('http://127.0.0.1:8080/customers/1');
    expect(document.data).toMatchObject({
      type: 'customer',
      id: '1',
      attributes: { first_name: 'Jeroen', middle_name: 'van der', last_name: 'Geer', iban: 'NL91ABNA0417164300' },
    });

    const raw = await billing(['api', 'GET', '/customers/1'], { env: { BILLING_DB: db } });
    expect(raw).toEqual(result);
  });

  it('--db wins over BILLING_DB', async () => {
    const result = await billing(['--db', db, 'customers', 'list', '-q', '--query', 'meta.total'], {
      env: { BILLING_DB: tempDbPath() },
    });
    expect(result).toEqual({ code: 0, stdout: '20\n', stderr: '' });
  });

  it('demo again only shows the store', async () => {
    const result = await billing(['demo', '--json'], { env: { BILLING_DB: db } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`the store already has 20 customers; showing them (store: ${db})\n`);
    expect(JSON.parse(result.stdout).meta.total).toBe(20);
  });

  it('accounts create, then --account acts as the new, empty account; an unknown account exits 2', async () => {
    const created = await billing(['--db', db, 'accounts', 'create', 'acme', '--json']);
    expect(created.code).toBe(0);
    expect(Object.keys(JSON.parse(created.stdout))).toEqual(['name', 'api_key']);
    expect(await billing(['--db', db, '--account', 'acme', 'customers', 'list'])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'no customers\n',
    });
    expect(await billing(['--db', db, '--account', 'nosuch', 'customers', 'list'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: no account named "nosuch" in ${db} (see: billing accounts list)\n`,
    });
  });

  it('without NO_COLOR and not on a terminal, output has no colour codes; FORCE_COLOR brings them; NO_COLOR beats it', async () => {
    const plain = await billing(['--db', db, 'customers', 'list'], { env: { NO_COLOR: undefined } });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('Jeroen');
    expect(plain.stdout + plain.stderr).not.toMatch(ANSI);

    const forced = await billing(['--db', db, 'customers', 'list'], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(forced.stdout).toMatch(ANSI);

    const both = await billing(['--db', db, 'customers', 'list'], { env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
    expect(both.stdout).toBe(plain.stdout);
  });
});

describe('a fresh store: create, get, refusals and exit codes', () => {
  const db = tempDbPath();
  const JAN = ['--first-name', 'Jan', '--last-name', 'Jansen', '--email', 'jan@example.com'];

  it('create --json, then get --json prints the same document', async () => {
    const created = await billing(['--db', db, 'customers', 'create', ...JAN, '--city', 'Utrecht', '--json']);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('created customer 1\n');
    const document = JSON.parse(created.stdout);
    expect(document.data).toMatchObject({
      id: '1',
      attributes: { first_name: 'Jan', city: 'Utrecht', email: 'jan@example.com' },
    });

    const got = await billing(['--db', db, 'customers', 'get', '1', '--json']);
    expect(got).toEqual({ code: 0, stdout: created.stdout, stderr: '' });
  });

  it('--data - reads the attributes from stdin', async () => {
    const result = await billing(['--db', db, 'customers', 'create', '--data', '-', '-q', '-o', 'ndjson'], {
      stdin: '{"first_name":"Piet","last_name":"Puk","email":"piet@example.com"}',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ id: '2', attributes: { first_name: 'Piet' } });
  });

  it('exit 1: an unknown id, the message on stderr and nothing on stdout', async () => {
    expect(await billing(['--db', db, 'customers', 'get', '99'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Not Found: no customer with id 99\n',
    });
  });

  it('exit 1 with --json: the error document on stdout and nothing else anywhere', async () => {
    const result = await billing([
      '--db',
      db,
      'customers',
      'create',
      '--first-name',
      'A',
      '--last-name',
      'B',
      '--data',
      '{"email":"bad"}',
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      errors: [
        {
          status: '400',
          title: 'Invalid Attribute',
          detail: 'email must be a valid email address',
          source: { pointer: '/data/attributes/email' },
        },
      ],
      meta: { original: { data: { type: 'customer', attributes: { first_name: 'A', last_name: 'B', email: 'bad' } } } },
    });
  });

  it('exit 2 without a terminal: missing flags are named at once, no prompt waits (no --no-input needed)', async () => {
    const started = Date.now();
    const result = await billing(['--db', db, 'customers', 'create', '--first-name', 'Jan']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: missing required flags: --last-name, --email\n' });
    expect(Date.now() - started).toBeLessThan(10_000);
    // Nothing was written by the refused or incomplete requests.
    expect(await billing(['--db', db, 'customers', 'list', '--query', 'data[].id'])).toEqual({
      code: 0,
      stdout: '[\n  "1",\n  "2"\n]\n',
      stderr: '',
    });
  });

  it('exit 2: an unknown command', async () => {
    const result = await billing(['--db', db, 'customers', 'frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "error: unknown command 'billing customers frobnicate' (see billing customers --help)\n",
    );
  });

  it('exit 0: --version prints the package version, --help shows examples', async () => {
    const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };
    expect(await billing(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const help = await billing(['customers', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--first-name <text>');
    expect(help.stdout).toContain('\nExamples:\n  $ billing customers create --first-name Jan');
    expect(help.stdout + help.stderr).not.toMatch(ANSI);
  });
});
