// billing import on the embedded store: rows checked by the service's rules, rejects reported with
// their line numbers on stderr and in a rejects file in the input's format (ready to fix and import
// again), exit 1 when any row was rejected, and every row of a file imported exactly once, also
// when the same file is imported again or the import was killed half-way.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BIN, ensureBundle, runCli } from '../helpers/cli.js';
import { CUSTOMER_READ_ONLY_ON_CREATE } from '../../src/lib/schemas/customer.js';
import { INVOICE_READ_ONLY_ON_CREATE } from '../../src/lib/schemas/invoice.js';
import { SUBSCRIPTION_READ_ONLY_ON_CREATE } from '../../src/lib/schemas/subscription.js';
import { tempDir } from '../helpers/store.js';
import { cli, type Cli } from './harness.js';

const person = (n: number, extra: Record<string, unknown> = {}) => ({
  first_name: `First${n}`,
  last_name: `Last${n}`,
  email: `c${n}@example.com`,
  ...extra,
});
const ndjson = (rows: unknown[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

type Listed = { email: string; first_name: string; last_name: string };

async function customers(run: ReturnType<typeof cli>): Promise<Listed[]> {
  const out = await run.run(['customers', 'list', '--all', '--json', '--page-size', '100']);
  return (JSON.parse(out.stdout) as { data: { attributes: Listed }[] }).data.map((c) => c.attributes);
}

describe('billing import customers (embedded)', () => {
  it('imports the good rows of an NDJSON file, reports each bad one with its line and reasons, writes them to a rejects file, exits 1', async () => {
    const dir = tempDir();
    const file = join(dir, 'customers.ndjson');
    writeFileSync(
      file,
      ndjson([
        person(1, { iban: 'NL91 ABNA 0417 1643 00' }),
        person(2, { email: 'not-an-email', language: 'xx' }),
        '',
        'not json',
        person(5),
      ]),
    );
    const run = cli(join(dir, 'billing.db'));
    const result = await run.run(['import', 'customers', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 2: email: must be a valid email address; language: must be one of');
    expect(result.stderr).toMatch(/line 4: not a JSON object: /);
    expect(result.stderr).toMatch(/imported 2 customers, rejected 2 \(see .*customers\.rejects\.ndjson\)/);
    expect((await customers(run)).map((c) => c.email)).toEqual(['c1@example.com', 'c5@example.com']);
    const rejects = readFileSync(join(dir, 'customers.rejects.ndjson'), 'utf8').split('\n');
    expect(JSON.parse(rejects[0])).toEqual({
      ...person(2, { email: 'not-an-email', language: 'xx' }),
      _rejected: expect.stringMatching(/^line 2: email: must be a valid email address; language: must be one of/),
    });
    expect(rejects[1]).toBe('not json'); // no object to add reasons to: back as it was
    expect(rejects).toHaveLength(3);

    // Fixed in the rejects file, it goes in as it is (the reasons member is ignored); exit 0.
    writeFileSync(
      join(dir, 'fixed.ndjson'),
      ndjson([{ ...JSON.parse(rejects[0]), email: 'c2@example.com', language: 'nl' }]),
    );
    const fixed = await run.run(['import', 'customers', join(dir, 'fixed.ndjson'), '--json']);
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ kind: 'customers', imported: 1, rejected: 0, rejects_file: null });
    expect(existsSync(join(dir, 'fixed.rejects.ndjson'))).toBe(false);
    expect(await run.customerCount()).toBe(3);
  });

  it('reads CSV by its extension: line numbers count lines inside quoted cells, rejects come back as CSV with a _rejected column', async () => {
    const dir = tempDir();
    const file = join(dir, 'people.csv');
    writeFileSync(
      file,
      'first_name,last_name,email,city\nAnna,de Vries,anna@example.com,"Den\nHaag"\nBob,,bob@example.com,Utrecht\nCees,Bakker,cees@example.com,\nDirk,Dam\n',
    );
    const run = cli(join(dir, 'billing.db'));
    const result = await run.run(['import', 'customers', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 4: last_name: is required');
    expect(result.stderr).toContain('line 6: has 2 cells where the header names 4');
    expect(readFileSync(join(dir, 'people.rejects.csv'), 'utf8')).toBe(
      'first_name,last_name,email,city,_rejected\r\nBob,,bob@example.com,Utrecht,line 4: last_name: is required\r\nDirk,Dam,line 6: has 2 cells where the header names 4\r\n',
    );
    const list = await customers(run);
    expect(list.map((c) => c.email)).toEqual(['anna@example.com', 'cees@example.com']);
  });

  it('reads a stray quote inside a cell as text, and rejects a quoted cell never closed (the rest of the file) with its line, not the import', async () => {
    const dir = tempDir();
    const stray = join(dir, 'stray.csv');
    writeFileSync(stray, 'first_name,last_name,email\nOk,Row,ok1@example.com\nJan "JJ",Jansen,jj@example.com\n');
    const run = cli(join(dir, 'billing.db'));
    const read = await run.run(['import', 'customers', stray]);
    expect(read.code, read.stderr).toBe(0);
    expect((await customers(run)).map((c) => c.first_name)).toEqual(['Ok', 'Jan "JJ"']);
    const open = join(dir, 'open.csv');
    writeFileSync(
      open,
      'first_name,last_name,email\nAnn,Ok,ann@example.com\n"Bob,Open,bob@example.com\nCees,Late,cees@example.com\n',
    );
    const result = await run.run(['import', 'customers', open]);
    expect(result.code).toBe(1);
    const reason = 'line 3: a quoted cell is not closed before the end of the file (the rest of the file is this row)';
    expect(result.stderr).toContain(reason);
    expect(result.stderr).not.toContain('unexpected failure');
    expect(readFileSync(join(dir, 'open.rejects.csv'), 'utf8')).toBe(
      `first_name,last_name,email,_rejected\r\n"""Bob,Open,bob@example.com\nCees,Late,cees@example.com",${reason}\r\n`,
    );
    expect((await customers(run)).map((c) => c.email)).toEqual([
      'ok1@example.com',
      'jj@example.com',
      'ann@example.com',
    ]);
    // In the header, it leaves no names to read rows by: exit 2, nothing imported.
    const header = join(dir, 'header.csv');
    writeFileSync(header, '"first_name,last_name,email\nDirk,Dam,dirk@example.com\n');
    const refused = await run.run(['import', 'customers', header]);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      `error: ${header}: its header cannot be read as CSV: a quoted cell is not closed before the end of the file (the rest of the file is this row); nothing was imported\n`,
    ]);
    expect(await customers(run)).toHaveLength(3);
  });

  it("writes a CSV rejects file as safe to open as an export (a formula gets a leading '), and reads that ' back off when it is imported", async () => {
    const dir = tempDir();
    const file = join(dir, 'people.csv');
    writeFileSync(
      file,
      'first_name,last_name,email,telephone\n=1+2,-Minus,bad,+31612345678\nAnn,Ok,ann@example.com,\n',
    );
    const run = cli(join(dir, 'billing.db'));
    expect((await run.run(['import', 'customers', file])).code).toBe(1);
    const rejects = join(dir, 'people.rejects.csv');
    expect(readFileSync(rejects, 'utf8')).toBe(
      "first_name,last_name,email,telephone,_rejected\r\n'=1+2,'-Minus,bad,'+31612345678,line 2: email: must be a valid email address\r\n",
    );
    writeFileSync(rejects, readFileSync(rejects, 'utf8').replace(',bad,', ',fixed@example.com,'));
    const fixed = await run.run(['import', 'customers', rejects, '--json']);
    expect(fixed.code, fixed.stderr).toBe(0);
    const made = (await customers(run)).find((c) => c.last_name === '-Minus') as Record<string, unknown> | undefined;
    expect(made).toMatchObject({
      first_name: '=1+2',
      last_name: '-Minus',
      telephone: '+31612345678',
      email: 'fixed@example.com',
    });
  });

  it("--csv-raw: a leading ' is data, read and written as it is", async () => {
    const dir = tempDir();
    const file = join(dir, 'people.csv');
    writeFileSync(file, "first_name,last_name,email\n'=quoted,Raw,raw@example.com\n=1+2,Bad,bad\n");
    const run = cli(join(dir, 'billing.db'));
    expect((await run.run(['--csv-raw', 'import', 'customers', file])).code).toBe(1);
    expect((await customers(run)).map((c) => (c as Record<string, unknown>).first_name)).toEqual(["'=quoted"]);
    expect(readFileSync(join(dir, 'people.rejects.csv'), 'utf8')).toBe(
      'first_name,last_name,email,_rejected\r\n=1+2,Bad,bad,line 3: email: must be a valid email address\r\n',
    );
    // Without it, the same ' is the escape an export writes: dropped.
    writeFileSync(join(dir, 'again.csv'), "first_name,last_name,email\n'=quoted,Escaped,esc@example.com\n");
    expect((await run.run(['import', 'customers', join(dir, 'again.csv')])).code).toBe(0);
    expect((await customers(run)).map((c) => (c as Record<string, unknown>).first_name)).toEqual([
      "'=quoted",
      '=quoted',
    ]);
  });

  it('reads stdin with - and --format; without --format it is a usage error naming it', async () => {
    const dir = tempDir();
    const run = cli(join(dir, 'billing.db'));
    const missing = await run.run(['import', 'customers', '-'], { stdin: ndjson([person(1)]) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('reading stdin (-) needs --format ndjson or --format csv');
    const bad = await run.run(['import', 'customers', join(dir, 'x.txt')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cannot tell the format of');
    const result = await run.run(['import', 'customers', '-', '--format', 'ndjson', '--json'], {
      stdin: ndjson([person(1), person(2)]),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ file: '-', imported: 2, rejected: 0 });
    // The same input again is the same content: nothing twice.
    const again = await run.run(['import', 'customers', '-', '--format', 'ndjson', '--json'], {
      stdin: ndjson([person(1), person(2)]),
    });
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, already: 2 });
    expect(await run.customerCount()).toBe(2);
  });

  it('imports a file once: the same file again imports nothing and says so', async () => {
    const dir = tempDir();
    const file = join(dir, 'customers.ndjson');
    writeFileSync(file, ndjson([person(1), person(2), person(3)]));
    const run = cli(join(dir, 'billing.db'));
    expect((await run.run(['import', 'customers', file, '--batch-size', '2'])).code).toBe(0);
    const again = await run.run(['import', 'customers', file]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('this file was imported before (same content): nothing to do');
    expect(await run.customerCount()).toBe(3);
  });

  it('imports subscriptions and invoices with their lines; a row refused half-way (a bad line) leaves nothing of itself', async () => {
    const dir = tempDir();
    const run = cli(join(dir, 'billing.db'));
    await run.seedCustomers(2);
    expect(
      (await run.run(['plans', 'create', '--name', 'Monthly', '--amount', '10', '--frequency', 'monthly'])).code,
    ).toBe(0);
    const subs = join(dir, 'subscriptions.ndjson');
    writeFileSync(
      subs,
      ndjson([
        { customer_id: 1, subscription_plan_id: 1 },
        { customer_id: 99, subscription_plan_id: 1 },
        {
          customer_id: 2,
          subscription_plan_id: 1,
          status: 'active',
          mandate_accepted: true,
          mandate_accepted_date: '2026-11-20',
        },
      ]),
    );
    const imported = await run.run(['import', 'subscriptions', subs]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain('line 2: customer_id: no customer with id 99');
    const list = JSON.parse((await run.run(['subscriptions', 'list', '--json'])).stdout) as {
      data: { id: string; attributes: { status: string; confirmation_page: string } }[];
    };
    expect(list.data.map((s) => s.attributes.status)).toEqual(['unverified', 'active']);
    // An imported subscription's page has a secret of its own, like one made through the API.
    for (const s of list.data) {
      expect(s.attributes.confirmation_page).toMatch(new RegExp(`/mandate/accept/${s.id}/[0-9a-f]{64}$`));
    }
    expect(new Set(list.data.map((s) => s.attributes.confirmation_page)).size).toBe(2);

    const invoices = join(dir, 'invoices.ndjson');
    writeFileSync(
      invoices,
      ndjson([
        // A decimal comma, as the flags take it: 12,50 is 12.50 (a rate too).
        { subscription_id: 1, lines: [{ description: 'Box', amount: '12,50', tax_rate: '21,0', quantity: 2 }] },
        // Each line keeps its own rules; the second takes the invoice's total past its bound, found
        // only after the invoice and the first line are written: the savepoint takes them back.
        {
          subscription_id: 2,
          lines: [
            { description: 'Good', amount: '1.00', tax_rate: '21' },
            { description: 'Huge', amount: '1000000.00', tax_rate: '21', quantity: 1000000 },
          ],
        },
        { subscription_id: 2, lines: [{ description: 'Bad', amount: '1.001', tax_rate: '21' }] },
      ]),
    );
    const made = await run.run(['import', 'invoices', invoices]);
    expect(made.code).toBe(1);
    // File lines and the lines of an invoice are both counted from 1.
    expect(made.stderr).toMatch(/line 2: lines #2, \w+: /);
    expect(made.stderr).toContain('line 3: lines #1, amount: ');
    expect(made.stderr).not.toMatch(/lines\/\d/);
    const drafts = JSON.parse((await run.run(['invoices', 'list', '--json'])).stdout) as {
      data: { attributes: Record<string, unknown> }[];
    };
    expect(drafts.data).toHaveLength(1);
    expect(drafts.data[0].attributes).toMatchObject({ status: 'draft', amount_excl: '25.00' });
  });
});

describe('billing import of an export (list --all -o csv|ndjson): new resources with the same attributes', () => {
  type Resource = {
    id: string;
    attributes: Record<string, unknown>;
    relationships?: Record<string, { data?: { id: string } | unknown[] | null }>;
  };
  const NOTE = "(an export's ids and read-only attributes; an import makes new resources)";
  const CUSTOMER_LEFT =
    'id, payment_method, bank_verification_method, card_holder, card_number, archived, created_at, updated_at';

  async function post(run: Cli, path: string, type: string, attributes: Record<string, unknown>): Promise<void> {
    await run.withTransport(async (t) => {
      const answer = await t.request({ method: 'POST', path, body: { data: { type, attributes } } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    });
  }

  async function all(run: Cli, noun: string): Promise<Resource[]> {
    const out = await run.run([noun, 'list', '--all', '--json', '--page-size', '100']);
    expect(out.code, out.stderr).toBe(0);
    return (JSON.parse(out.stdout) as { data: Resource[] }).data;
  }

  async function exported(run: Cli, path: string, argv: string[]): Promise<string> {
    const out = await run.run(argv);
    expect(out.code, out.stderr).toBe(0);
    writeFileSync(path, out.stdout);
    return path;
  }

  /** What an import carries over: the attributes but those the service sets, and the ids of to-one relationships. */
  const carried = (resources: Resource[], readOnly: readonly string[]) =>
    resources.map((r) => ({
      ...Object.fromEntries(Object.entries(r.attributes).filter(([name]) => !readOnly.includes(name))),
      ...Object.fromEntries(
        Object.entries(r.relationships ?? {}).flatMap(([name, { data }]) =>
          data && !Array.isArray(data) ? [[name, data.id]] : [],
        ),
      ),
    }));

  // Every attribute a customer can be made with; cells a spreadsheet would run go out escaped and come back.
  const JANSEN = {
    gender: 'm',
    first_name: '=Jan',
    middle_name: 'van',
    last_name: 'Jansen',
    company_name: 'Jansen BV',
    vat_number: 'NL123456789B01',
    bank_holder: 'J. Jansen',
    iban: 'NL91ABNA0417164300',
    postalcode: '1016EE',
    house_number: '313',
    house_number_add: 'A',
    street: 'Keizersgracht',
    city: 'Amsterdam',
    country_iso2: 'NL',
    language: 'en',
    email: 'jan@example.nl',
    telephone: '+31201234567',
  };
  const PEETERS = { first_name: 'Els', last_name: 'Peeters', email: 'els@example.be', country_iso2: 'BE' };

  async function twoCustomers(run: Cli): Promise<void> {
    await post(run, '/customers', 'customer', JANSEN);
    await post(run, '/customers', 'customer', PEETERS);
    await run.withTransport(async (t) => {
      const body = { data: { type: 'customer', id: '2', attributes: { archived: true } } };
      expect((await t.request({ method: 'PATCH', path: '/customers/2', body })).status).toBe(200);
    });
  }

  // Its id and read-only columns are left out, and named once.
  it('a CSV export of customers, whole or with --fields, imports into a new store as the same customers', async () => {
    const dir = tempDir();
    const from = cli(join(dir, 'from.db'));
    await twoCustomers(from);
    const whole = await exported(from, join(dir, 'customers.csv'), ['customers', 'list', '--all', '-o', 'csv']);
    const to = cli(join(dir, 'to.db'));
    const imported = await to.run(['import', 'customers', whole]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`ignored columns: ${CUSTOMER_LEFT} ${NOTE}\n`);
    expect(imported.stderr.match(/ignored columns/g)).toHaveLength(1);
    const made = await all(to, 'customers');
    expect(carried(made, CUSTOMER_READ_ONLY_ON_CREATE)).toEqual(
      carried(await all(from, 'customers'), CUSTOMER_READ_ONLY_ON_CREATE),
    );
    // What the service sets itself is set anew: archived is not carried over.
    expect(made.map((c) => c.attributes.archived)).toEqual([false, false]);
    // The same file again is known by its content: nothing twice.
    const again = await to.run(['import', 'customers', whole]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('this file was imported before (same content): nothing to do');
    expect(await to.customerCount()).toBe(2);

    const fieldsFlag = ['--fields', 'customer=first_name,last_name,email'];
    const some = await exported(from, join(dir, 'some.csv'), [
      'customers',
      'list',
      '--all',
      '-o',
      'csv',
      ...fieldsFlag,
    ]);
    expect(readFileSync(some, 'utf8').split('\r\n')[0]).toBe('id,first_name,last_name,email');
    const other = cli(join(dir, 'other.db'));
    const fields = await other.run(['import', 'customers', some]);
    expect(fields.code, fields.stderr).toBe(0);
    expect(fields.stderr).toContain(`ignored columns: id ${NOTE}\n`);
    const names = (list: Resource[]) =>
      list.map(({ attributes: { first_name, last_name, email } }) => ({ first_name, last_name, email }));
    expect(names(await all(other, 'customers'))).toEqual([
      { first_name: '=Jan', last_name: 'Jansen', email: 'jan@example.nl' },
      { first_name: 'Els', last_name: 'Peeters', email: 'els@example.be' },
    ]);
  });

  // A resource of another type is rejected; a plain object with an id is refused as before.
  it('an NDJSON export of customers (resource objects) imports as the same customers', async () => {
    const dir = tempDir();
    const from = cli(join(dir, 'from.db'));
    await twoCustomers(from);
    const file = await exported(from, join(dir, 'customers.ndjson'), ['customers', 'list', '--all', '-o', 'ndjson']);
    const wrongType = JSON.stringify({ type: 'subscription', id: '7', attributes: { status: 'active' } });
    writeFileSync(file, readFileSync(file, 'utf8') + ndjson([wrongType, person(9, { id: 9 })]));
    const to = cli(join(dir, 'to.db'));
    const imported = await to.run(['import', 'customers', file]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(`ignored members: ${CUSTOMER_LEFT} ${NOTE}\n`);
    expect(imported.stderr).toContain(
      'line 3: type: is "subscription", where billing import customers takes "customer"\n',
    );
    expect(imported.stderr).toContain('line 4: id: is not allowed inside attributes');
    expect(imported.stderr).toContain('imported 2 customers, rejected 2');
    expect(carried(await all(to, 'customers'), CUSTOMER_READ_ONLY_ON_CREATE)).toEqual(
      carried(await all(from, 'customers'), CUSTOMER_READ_ONLY_ON_CREATE),
    );
    // The resource of another type goes back as it was; the plain object with its reasons.
    const rejects = readFileSync(join(dir, 'customers.rejects.ndjson'), 'utf8').split('\n');
    expect(rejects[0]).toBe(wrongType);
    expect(JSON.parse(rejects[1])).toMatchObject({
      ...person(9, { id: 9 }),
      _rejected: expect.stringMatching(/^line 4: id: /),
    });
  });

  it('still refuses a column that is no attribute at all, in an export as anywhere', async () => {
    const dir = tempDir();
    const from = cli(join(dir, 'from.db'));
    await twoCustomers(from);
    const text = (await from.run(['customers', 'list', '--all', '-o', 'csv'])).stdout;
    const [head, ...rows] = text.trimEnd().split('\r\n');
    const file = join(dir, 'loyalty.csv');
    writeFileSync(file, [`${head},loyalty`, ...rows.map((row) => `${row},gold`)].join('\r\n') + '\r\n');
    const to = cli(join(dir, 'to.db'));
    const imported = await to.run(['import', 'customers', file]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toMatch(/^line 2: loyalty: is not a known attribute$/m);
    expect(imported.stderr).toMatch(/^line 3: loyalty: is not a known attribute$/m);
    expect(await to.customerCount()).toBe(0);
    const rejects = readFileSync(join(dir, 'loyalty.rejects.csv'), 'utf8').split('\r\n');
    expect(rejects[0]).toBe(`${head},loyalty,_rejected`);
    expect(rejects[1]).toBe(`${rows[0]},gold,line 2: loyalty: is not a known attribute`);
  });

  // A generated mandate code is refused, as on any create; an invoice export makes drafts without lines.
  it('an NDJSON export of subscriptions imports with its customer and plan (its to-one relationships)', async () => {
    const dir = tempDir();
    const stores = [cli(join(dir, 'from.db')), cli(join(dir, 'to.db'))];
    // The same customer and plan in both, so the export's relationships name them in either.
    for (const run of stores) {
      await post(run, '/customers', 'customer', JANSEN);
      const plan = ['plans', 'create', '--name', 'Monthly', '--amount', '10', '--frequency', 'monthly'];
      expect((await run.run(plan)).code).toBe(0);
    }
    const [from, to] = stores;
    const subscription = (extra: Record<string, unknown>) => ({ customer_id: 1, subscription_plan_id: 1, ...extra });
    await post(
      from,
      '/subscriptions',
      'subscription',
      subscription({
        mandate_code: 'LID-1',
        start_date: '2026-12-01',
        metadata: { box: 'large' },
        subscription_webhook_url: 'https://example.com/hooks/subscriptions',
        success_redirect_url: 'https://example.com/thanks',
      }),
    );
    await post(
      from,
      '/subscriptions',
      'subscription',
      subscription({
        mandate_code: 'LID-2',
        status: 'active',
        mandate_accepted: true,
        mandate_accepted_date: '2026-11-20',
        cancel_date: '2027-06-30',
      }),
    );
    await post(from, '/subscriptions', 'subscription', subscription({}));
    const file = await exported(from, join(dir, 'subscriptions.ndjson'), [
      'subscriptions',
      'list',
      '--all',
      '-o',
      'ndjson',
    ]);

    const imported = await to.run(['import', 'subscriptions', file]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(
      `ignored members: id, confirmation_page, archived, created_at, updated_at ${NOTE}\n`,
    );
    expect(imported.stderr).toContain(
      'line 3: mandate_code: MNDT-<number> is kept for the codes the service generates',
    );
    expect(imported.stderr).toContain('imported 2 subscriptions, rejected 1');
    // The row goes to the rejects file as the attributes it was read as: without its code, it goes in.
    const rejects = join(dir, 'subscriptions.rejects.ndjson');
    const { mandate_code, _rejected, ...rest } = JSON.parse(readFileSync(rejects, 'utf8')) as Record<string, unknown>;
    expect([mandate_code, rest.customer_id, rest.subscription_plan_id]).toEqual(['MNDT-3', '1', '1']);
    expect(_rejected).toMatch(/^line 3: mandate_code: /);
    writeFileSync(rejects, ndjson([rest]));
    const fixed = await to.run(['import', 'subscriptions', rejects]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(carried(await all(to, 'subscriptions'), SUBSCRIPTION_READ_ONLY_ON_CREATE)).toEqual(
      carried(await all(from, 'subscriptions'), SUBSCRIPTION_READ_ONLY_ON_CREATE),
    );

    // An invoice export holds neither its lines nor its status and amounts (the service's): a draft
    // of the same subscription, with its dates, and no lines.
    await post(from, '/invoices', 'invoice', {
      subscription_id: 2,
      invoice_date: '2026-11-20',
      transaction_date: '2026-11-25',
      send_email: false,
    });
    await post(from, '/invoice-lines', 'invoice-line', {
      invoice_id: 1,
      description: 'Box',
      amount: '10',
      tax_rate: '21',
    });
    const invoices = await exported(from, join(dir, 'invoices.ndjson'), ['invoices', 'list', '--all', '-o', 'ndjson']);
    const drafts = await to.run(['import', 'invoices', invoices]);
    expect(drafts.code, drafts.stderr).toBe(0);
    expect(drafts.stderr).toContain('ignored members: id, status, reference, amount_excl');
    const [original] = await all(from, 'invoices');
    const [copy] = await all(to, 'invoices');
    expect(original.attributes).toMatchObject({ status: 'open', amount_excl: '10.00' });
    // The original's collection is its own too.
    const { transaction, ...kept } = carried([original], INVOICE_READ_ONLY_ON_CREATE)[0];
    expect(transaction).toEqual(expect.any(String));
    expect(carried([copy], INVOICE_READ_ONLY_ON_CREATE)).toEqual([kept]);
    expect(copy.attributes).toMatchObject({ status: 'draft', reference: 'DRAFT', amount_excl: '0.00' });
  });
});

describe('billing import: search right after it', () => {
  it('filter[search] finds every imported customer (batches over several transactions and statements), by name and email', async () => {
    const dir = tempDir();
    const file = join(dir, 'customers.ndjson');
    // 700 rows in batches of 300: full INSERT statements of 128 rows and the rest in smaller ones.
    const rows = Array.from({ length: 700 }, (_, i) =>
      person(i + 1, {
        last_name: `Zyx${String(i + 1).padStart(4, '0')}`,
        company_name: i % 2 ? `Acme ${i + 1}` : null,
      }),
    );
    writeFileSync(file, ndjson(rows));
    const run = cli(join(dir, 'billing.db'));
    expect((await run.run(['import', 'customers', file, '--batch-size', '300'])).code).toBe(0);
    const search = async (text: string) =>
      (
        JSON.parse(
          (await run.run(['customers', 'list', '--search', text, '--all', '--json', '--page-size', '100'])).stdout,
        ) as { data: { attributes: { email: string } }[] }
      ).data.map((c) => c.attributes.email);
    expect(await search('zyx')).toHaveLength(700);
    for (const n of [1, 128, 129, 300, 301, 512, 699, 700]) {
      expect(await search(`ZYX${String(n).padStart(4, '0')}`)).toEqual([`c${n}@example.com`]);
      expect(await search(`c${n}@example`)).toEqual([`c${n}@example.com`]);
    }
    expect(await search('acme 700')).toEqual(['c700@example.com']);
    expect(await search('acme 699')).toEqual([]);
  });
});

describe('billing import through the launcher (the built CLI: a process of its own with heap limits)', () => {
  it('reads stdin, passes the exit code on, and takes a 1 MiB line (rejected: too long) next to good rows', async () => {
    ensureBundle('BILLING_IMPORT_LAUNCHER');
    const dir = tempDir();
    const db = join(dir, 'billing.db');
    const huge = person(2, { street: 'x'.repeat(1 << 20) });
    const result = await runCli(
      [
        '--db',
        db,
        'import',
        'customers',
        '-',
        '--format',
        'ndjson',
        '--json',
        '--rejects',
        join(dir, 'rejects.ndjson'),
      ],
      { stdin: ndjson([person(1), huge, person(3)]) },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ imported: 2, rejected: 1 });
    expect(result.stderr).toContain('line 2: street: must be at most 255 characters');
    expect(JSON.parse(readFileSync(join(dir, 'rejects.ndjson'), 'utf8')).street).toHaveLength(1 << 20);
  }, 60_000);

  it('knows the global options that take a value as src/cli.ts does (to find the command word)', () => {
    const list = (text: string) => /const VALUE_OPTIONS = new Set\((\[[^\]]*\])\)/.exec(text)?.[1];
    const launcher = list(readFileSync(join(BIN, '..', 'heap.js'), 'utf8'));
    expect(launcher).toBeDefined();
    expect(launcher).toBe(list(readFileSync(join(BIN, '..', '..', 'src', 'cli.ts'), 'utf8')));
  });
});

describe('the commands the launcher runs with heap limits (bin/heap.js)', () => {
  const { heapFlagsFor } = createRequire(import.meta.url)(join(BIN, '..', 'heap.js')) as {
    heapFlagsFor: (argv: string[]) => string[] | undefined;
  };
  it('imports, and the collection commands that batch and export, wherever the global options are; nothing else', () => {
    const limited = (argv: string[]) => heapFlagsFor(argv)?.join(' ');
    expect(limited(['import', 'customers', 'x.csv'])).toBe('--max-semi-space-size=2 --max-old-space-size=1024');
    for (const argv of [
      ['collections', 'create'],
      ['--db', 'collections', 'collections', 'export', '3', '--out', 'x.xml'],
      ['-o', 'json', 'collections', '--account', 'import', 'export', '2'],
      ['collections', '--json', 'create', '--until', '2026-12-01'],
    ])
      expect(limited(argv), argv.join(' ')).toBe('--max-semi-space-size=8 --max-old-space-size=1024');
    for (const argv of [
      ['collections', 'list'],
      ['collections', 'get', '1'],
      ['collections', 'cancel', '1'],
      ['collections', 'import', 'camt.xml'],
      ['--db', 'import', 'customers', 'list'],
      ['customers', 'create', '--', 'import'],
      ['invoices', 'finalise', '42'],
      [],
    ])
      expect(limited(argv), argv.join(' ')).toBeUndefined();
  });

  it('is loaded by the launcher for every noun it limits (the launcher asks heap.js only when one is typed)', () => {
    const launcher = readFileSync(BIN, 'utf8');
    const guarded = [...launcher.matchAll(/word === '([a-z]+)'/g)].map((match) => match[1]);
    for (const noun of ['import', 'collections']) {
      expect(heapFlagsFor([noun, 'create', 'x']) ?? heapFlagsFor([noun, 'export', '1']), noun).toBeDefined();
      expect(guarded, noun).toContain(noun);
    }
  });
});

describe('billing import killed half-way (the built CLI, SIGKILL)', () => {
  it('a rerun imports every row exactly once, and every reject exactly once', async () => {
    ensureBundle('search_deferred');
    const dir = tempDir();
    const db = join(dir, 'billing.db');
    const file = join(dir, 'customers.ndjson');
    const rows = 6000;
    // Every 500th row is refused: 12 rejects, spread over the file.
    writeFileSync(
      file,
      ndjson(Array.from({ length: rows }, (_, i) => person(i + 1, (i + 1) % 500 === 0 ? { email: 'broken' } : {}))),
    );
    const child = spawn(
      process.execPath,
      [BIN, '--db', db, 'import', 'customers', file, '--batch-size', '50', '--quiet'],
      { stdio: 'ignore' },
    );
    // Killed once some batches are committed and before the last one is.
    const deadline = Date.now() + 20_000;
    let committed = 0;
    while (Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (!existsSync(db)) continue;
      try {
        const store = new Database(db, { readonly: true, fileMustExist: true });
        committed =
          (store.prepare('SELECT position FROM imports').get() as { position: number } | undefined)?.position ?? 0;
        store.close();
      } catch {
        continue; // not migrated yet
      }
      if (committed > 0) break;
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    expect(committed, 'the import had committed some batches when it was killed').toBeGreaterThan(0);

    const rerun = await runCli(['--db', db, 'import', 'customers', file, '--json']);
    expect(rerun.code, rerun.stderr).toBe(1);
    expect(rerun.stderr).toContain('going on after line');
    const store = new Database(db, { readonly: true });
    try {
      const emails = store.prepare('SELECT email FROM customers').all() as { email: string }[];
      expect(emails).toHaveLength(rows - 12);
      expect(new Set(emails.map((e) => e.email)).size).toBe(rows - 12);
      expect(store.prepare('SELECT imported, rejected, done FROM imports').get()).toEqual({
        imported: rows - 12,
        rejected: 12,
        done: 1,
      });
    } finally {
      store.close();
    }
    const rejects = readFileSync(join(dir, 'customers.rejects.ndjson'), 'utf8').trim().split('\n');
    expect(rejects.map((line) => (JSON.parse(line) as { last_name: string }).last_name)).toEqual(
      Array.from({ length: 12 }, (_, i) => `Last${(i + 1) * 500}`),
    );
  }, 60_000);
});
