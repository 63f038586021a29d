// What commands print and do, exactly: through main() with recorded stdout/stderr, on a core at a
// fixed time (2026-11-21T10:00Z, 11:00 in Amsterdam).
import { describe, expect, it } from 'vitest';
import { authenticate } from '../../src/lib/core/accounts.js';
import { openStore } from '../../src/lib/store/store.js';
import { cli, JAN, type Cli } from './harness.js';

const json = (text: string) => JSON.parse(text);
const routerDocument = (c: Cli, path: string, query?: Record<string, string | number>) =>
  c.withTransport(async (t) => (await t.request({ method: 'GET', path, query })).body);
const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

async function seedTwo(c: Cli) {
  await c.withTransport(async (t) => {
    const post = (attributes: Record<string, unknown>) =>
      t.request({ method: 'POST', path: '/customers', body: { data: { type: 'customer', attributes } } });
    await post({
      first_name: 'Jeroen',
      middle_name: 'van der',
      last_name: 'Geer',
      email: 'jeroen@example.com',
      iban: 'NL91 ABNA 0417 1643 00',
      bank_holder: 'J. van der Geer',
    });
    await post({ first_name: 'Sanne', last_name: 'Bakker', email: 'sanne@example.com' });
  });
}

/** On a terminal (80 columns): labelled fields, empty ones left out, times with their offset (the account's zone). */
const JEROEN_TABLE = [
  '┌────────────────┬─────────────────────────┐',
  '│ id             │ 1                       │',
  '│ first name     │ Jeroen                  │',
  '│ middle name    │ van der                 │',
  '│ last name      │ Geer                    │',
  '│ bank holder    │ J. van der Geer         │',
  '│ IBAN           │ NL91ABNA0417164300      │',
  '│ payment method │ directdebit             │',
  '│ language       │ nl                      │',
  '│ email          │ jeroen@example.com      │',
  '│ archived       │ no                      │',
  '│ created        │ 2026-11-21 11:00 +01:00 │',
  '│ updated        │ 2026-11-21 11:00 +01:00 │',
  '└────────────────┴─────────────────────────┘',
  '',
].join('\n');

/** Not on a terminal: the same fields as `field<TAB>value` lines. */
const JEROEN_TSV = [
  'id\t1',
  'first name\tJeroen',
  'middle name\tvan der',
  'last name\tGeer',
  'bank holder\tJ. van der Geer',
  'IBAN\tNL91ABNA0417164300',
  'payment method\tdirectdebit',
  'language\tnl',
  'email\tjeroen@example.com',
  'archived\tno',
  'created\t2026-11-21 11:00 +01:00',
  'updated\t2026-11-21 11:00 +01:00',
  '',
].join('\n');

/** A terminal without colour. */
const TERMINAL = { tty: true, env: { NO_COLOR: '1' } };

describe('customers get', () => {
  it('--json prints exactly the document the router returns', async () => {
    const c = cli();
    await seedTwo(c);
    const result = await c.run(['customers', 'get', '1', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(pretty(await routerDocument(c, '/customers/1')));
  });

  it('prints a field/value table on a terminal, field<TAB>value lines otherwise', async () => {
    const c = cli();
    await seedTwo(c);
    expect(await c.run(['customers', 'get', '1'], TERMINAL)).toEqual({ code: 0, stdout: JEROEN_TABLE, stderr: '' });
    expect(await c.run(['customers', 'get', '1'])).toEqual({ code: 0, stdout: JEROEN_TSV, stderr: '' });
  });

  it('--fields and --include reach the service', async () => {
    const c = cli();
    await seedTwo(c);
    const result = await c.run([
      'customers',
      'get',
      '2',
      '--fields',
      'customer=first_name,email',
      '--include',
      'subscriptions',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const document = json(result.stdout);
    expect(document.data.attributes).toEqual({ first_name: 'Sanne', email: 'sanne@example.com' });
    expect(document.included).toEqual([]);
    expect(result.stdout).toBe(
      pretty(
        await routerDocument(c, '/customers/2', { 'fields[customer]': 'first_name,email', include: 'subscriptions' }),
      ),
    );
  });

  it('an unknown id exits 1 with the 404 message on stderr', async () => {
    const c = cli();
    expect(await c.run(['customers', 'get', '99'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Not Found: no customer with id 99\n',
    });
  });

  it('an unknown id with --json prints the 404 document on stdout only', async () => {
    const c = cli();
    const result = await c.run(['customers', 'get', '99', '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(json(result.stdout)).toEqual({
      errors: [{ status: '404', title: 'Not Found', detail: 'no customer with id 99' }],
    });
  });

  it('a refused parameter exits 1 naming it', async () => {
    const c = cli();
    await seedTwo(c);
    expect(await c.run(['customers', 'get', '1', '--fields', 'customer=nope'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: fields[customer]: unknown field of customer: nope\n',
    });
  });
});

describe('customers list', () => {
  it('a table with id, name, email, payment method, created, and a footer on stderr', async () => {
    const c = cli();
    await seedTwo(c);
    expect(await c.run(['customers', 'list'], TERMINAL)).toEqual({
      code: 0,
      stdout: [
        '┌────┬─────────────────────┬────────────────────┬────────────────┬────────────┐',
        '│ id │ name                │ email              │ payment method │ created    │',
        '├────┼─────────────────────┼────────────────────┼────────────────┼────────────┤',
        '│ 1  │ Jeroen van der Geer │ jeroen@example.com │ directdebit    │ 2026-11-21 │',
        '│ 2  │ Sanne Bakker        │ sanne@example.com  │ directdebit    │ 2026-11-21 │',
        '└────┴─────────────────────┴────────────────────┴────────────────┴────────────┘',
        '',
      ].join('\n'),
      stderr: 'page 1 of 1, 2 customers\n',
    });
  });

  it('not on a terminal: tab-separated lines with a header row, the state column included', async () => {
    const c = cli();
    await seedTwo(c);
    expect(await c.run(['customers', 'list'])).toEqual({
      code: 0,
      stdout: [
        'id\tname\temail\tpayment method\tcreated\tstate',
        '1\tJeroen van der Geer\tjeroen@example.com\tdirectdebit\t2026-11-21\t',
        '2\tSanne Bakker\tsanne@example.com\tdirectdebit\t2026-11-21\t',
        '',
      ].join('\n'),
      stderr: 'page 1 of 1, 2 customers\n',
    });
  });

  it('twelve customers: ten rows and "page 1 of 2, 12 customers"; page 2 has the rest', async () => {
    const c = cli();
    await c.seedCustomers(12);
    const first = await c.run(['customers', 'list'], TERMINAL);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('page 1 of 2, 12 customers (next: --page 2)\n');
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^│ id +│ name +│ email +│ payment method │ created +│$/);
    const ids = (output: string) =>
      output
        .split('\n')
        .slice(3, -2)
        .map((line) => line.split('│')[1].trim());
    expect(ids(first.stdout)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(lines[3]).toMatch(/^│ 1 +│ First1 Last1 +│ c1@example\.com +│ directdebit +│ 2026-11-21 │$/);

    const second = await c.run(['customers', 'list', '--page', '2'], TERMINAL);
    expect(second.stderr).toBe('page 2 of 2, 12 customers\n');
    expect(ids(second.stdout)).toEqual(['11', '12']);

    const small = await c.run(['customers', 'list', '--page', '3', '--page-size', '5']);
    expect(small.stderr).toBe('page 3 of 3, 12 customers\n');
    expect(
      small.stdout
        .split('\n')
        .slice(1, -1)
        .map((line) => line.split('\t')[0]),
    ).toEqual(['11', '12']);
  });

  it('-q leaves out the footer', async () => {
    const c = cli();
    await c.seedCustomers(2);
    const result = await c.run(['customers', 'list', '-q']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('First2 Last2');
  });

  it('an empty list says "no customers" on stderr, prints nothing on stdout, and exits 0', async () => {
    expect(await cli().run(['customers', 'list'])).toEqual({ code: 0, stdout: '', stderr: 'no customers\n' });
  });

  it('a page past the end says so', async () => {
    const c = cli();
    await c.seedCustomers(2);
    expect(await c.run(['customers', 'list', '--page', '5'])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'no customers on this page\n',
    });
  });

  it('--json prints the collection document the router returns', async () => {
    const c = cli();
    await c.seedCustomers(3);
    const result = await c.run(['customers', 'list', '--page-size', '2', '--page', '2', '--json']);
    expect(result).toEqual({
      code: 0,
      stdout: pretty(await routerDocument(c, '/customers', { 'page[number]': 2, 'page[size]': 2 })),
      stderr: '',
    });
  });

  it('--all --json: one collection document holding every page', async () => {
    const c = cli();
    await c.seedCustomers(25);
    const result = await c.run(['customers', 'list', '--all', '--page-size', '10', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const document = json(result.stdout);
    expect(document.data).toHaveLength(25);
    expect(document.data.map((r: { id: string }) => r.id)).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 1)));
    expect(document.meta).toEqual({ total: 25 });
    expect(document.links.next).toBeNull();
    const whole = (await routerDocument(c, '/customers', { 'page[size]': 100 })) as { data: unknown[] };
    expect(document.data).toEqual(whole.data);
  });

  it('--all as a table: every row and "all 25 customers"', async () => {
    const c = cli();
    await c.seedCustomers(25);
    const result = await c.run(['customers', 'list', '--all', '--page-size', '10']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('all 25 customers\n');
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(25 + 1);
    const table = await c.run(['customers', 'list', '--all', '--page-size', '10'], TERMINAL);
    expect(table.stderr).toBe('all 25 customers\n');
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(25 + 4);
  });

  it('-o ndjson: one resource object per line', async () => {
    const c = cli();
    await c.seedCustomers(3);
    const result = await c.run(['customers', 'list', '-o', 'ndjson']);
    const { data } = (await routerDocument(c, '/customers')) as { data: unknown[] };
    expect(result).toEqual({ code: 0, stdout: data.map((r) => `${JSON.stringify(r)}\n`).join(''), stderr: '' });
  });

  it('-o csv: a header row starting with id, then a row per resource', async () => {
    const c = cli();
    await seedTwo(c);
    const result = await c.run(['customers', 'list', '-o', 'csv']);
    expect(result).toEqual({
      code: 0,
      stdout: [
        'id,gender,first_name,middle_name,last_name,company_name,vat_number,bank_holder,iban,payment_method,bank_verification_method,card_holder,card_number,postalcode,house_number,house_number_add,street,city,country_iso2,language,email,telephone,archived,created_at,updated_at',
        '1,,Jeroen,van der,Geer,,,J. van der Geer,NL91ABNA0417164300,directdebit,,,,,,,,,,nl,jeroen@example.com,,false,2026-11-21T11:00:00+01:00,2026-11-21T11:00:00+01:00',
        '2,,Sanne,,Bakker,,,,,directdebit,,,,,,,,,,nl,sanne@example.com,,false,2026-11-21T11:00:00+01:00,2026-11-21T11:00:00+01:00',
        '',
      ].join('\r\n'),
      stderr: '',
    });
  });

  it('-o csv with --fields has only those columns', async () => {
    const c = cli();
    await seedTwo(c);
    const result = await c.run(['customers', 'list', '--fields', 'customer=first_name,email', '-o', 'csv']);
    expect(result.stdout).toBe('id,first_name,email\r\n1,Jeroen,jeroen@example.com\r\n2,Sanne,sanne@example.com\r\n');
  });

  it('--query prints a string result raw, anything else as JSON', async () => {
    const c = cli();
    await seedTwo(c);
    expect(await c.run(['customers', 'list', '--query', 'data[0].id'])).toEqual({ code: 0, stdout: '1\n', stderr: '' });
    expect(await c.run(['customers', 'list', '--query', 'meta.total'])).toEqual({
      code: 0,
      stdout: '2\n',
      stderr: expect.any(String),
    });
    expect(await c.run(['customers', 'list', '--query', 'data[0].attributes.archived'])).toEqual({
      code: 0,
      stdout: 'false\n',
      stderr: expect.any(String),
    });
    expect(await c.run(['customers', 'list', '--query', 'data[].attributes.email'])).toEqual({
      code: 0,
      stdout: '[\n  "jeroen@example.com",\n  "sanne@example.com"\n]\n',
      stderr: '',
    });
    // id=$(billing customers create … --query data.id): the id alone, no quotes.
    const created = await c.run([
      'customers',
      'create',
      '--first-name',
      'A',
      '--last-name',
      'B',
      '--email',
      'ab@example.com',
      '--query',
      'data.id',
      '-q',
    ]);
    expect(created).toEqual({ code: 0, stdout: '3\n', stderr: '' });
  });

  it('--query with --all sees every page', async () => {
    const c = cli();
    await c.seedCustomers(25);
    expect(await c.run(['customers', 'list', '--all', '--page-size', '10', '--query', 'length(data)'])).toEqual({
      code: 0,
      stdout: '25\n',
      stderr: '',
    });
  });

  it('a page size the service would refuse is exit 2 naming the flag, before anything is sent', async () => {
    expect(await cli().run(['customers', 'list', '--page-size', '101'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --page-size must be a whole number from 1 to 100\n',
    });
  });
});

describe('customers create', () => {
  it('prints the resource and "created customer N" on stderr', async () => {
    const c = cli();
    const result = await c.run([
      'customers',
      'create',
      '--first-name',
      'Jeroen',
      '--middle-name',
      'van der',
      '--last-name',
      'Geer',
      '--email',
      'jeroen@example.com',
      '--iban',
      'NL91 ABNA 0417 1643 00',
      '--bank-holder',
      'J. van der Geer',
    ]);
    expect(result).toEqual({ code: 0, stdout: JEROEN_TSV, stderr: 'created customer 1\n' });
    expect(await c.customerCount()).toBe(1);
  });

  it('--json prints the created document exactly as GET then shows it', async () => {
    const c = cli();
    const result = await c.run(['customers', 'create', ...JAN, '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('created customer 1\n');
    expect(result.stdout).toBe(pretty(await routerDocument(c, '/customers/1')));
  });

  it('-q silences stderr', async () => {
    const c = cli();
    const result = await c.run(['customers', 'create', ...JAN, '-q', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(json(result.stdout).data.attributes.email).toBe('jan@example.com');
  });

  it('bad flag values are exit 2, one line per flag naming it, before anything is sent', async () => {
    const c = cli();
    const result = await c.run([
      'customers',
      'create',
      '--first-name',
      'A',
      '--last-name',
      'B',
      '--email',
      'bad',
      '--iban',
      'NL00',
      '--country-iso2',
      'Netherlands',
      '--language',
      'xx',
    ]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: [
        'error: --email: must be a valid email address',
        'error: --iban: must be a valid IBAN (country length and check digits)',
        'error: --country-iso2: must be an ISO 3166-1 alpha-2 country code, for example NL',
        'error: --language: must be one of: nl, en, nl-be, de, fr',
        '',
      ].join('\n'),
    });
    expect(await c.customerCount()).toBe(0);
  });

  it('a create the service refuses (values from --data) exits 1 with one "error: field: detail" line per problem, and writes nothing', async () => {
    const c = cli();
    const result = await c.run([
      'customers',
      'create',
      '--first-name',
      'A',
      '--last-name',
      'B',
      '--data',
      '{"email":"bad","iban":"NL00","country_iso2":"XX"}',
    ]);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'error: email: must be a valid email address',
        'error: iban: must be a valid IBAN (country length and check digits)',
        'error: country_iso2: must be an ISO 3166-1 alpha-2 country code, for example NL',
        '',
      ].join('\n'),
    });
    expect(await c.customerCount()).toBe(0);
  });

  it('read-only and unknown attributes from --data are refused too', async () => {
    const c = cli();
    const result = await c.run(['customers', 'create', ...JAN, '--data', '{"payment_method":"creditcard","foo":1}']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: payment_method: is read-only\nerror: foo: is not a known attribute\n',
    });
  });

  it('a refused create with --json prints the error document, with meta.original, on stdout only', async () => {
    const c = cli();
    const result = await c.run([
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
    expect(json(result.stdout)).toEqual({
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

  it('--dry-run prints the request and writes nothing', async () => {
    const c = cli();
    const result = await c.run(['--dry-run', 'customers', 'create', ...JAN, '--city', 'Utrecht']);
    expect(result).toEqual({
      code: 0,
      stdout: pretty({
        method: 'POST',
        path: '/customers',
        body: {
          data: {
            type: 'customer',
            attributes: { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com', city: 'Utrecht' },
          },
        },
      }),
      stderr: '',
    });
    expect(await c.customerCount()).toBe(0);
  });
});

describe('customers update, archive, unarchive, subscriptions', () => {
  it('update changes the given attributes and keeps the rest', async () => {
    const c = cli();
    await seedTwo(c);
    const result = await c.run(['customers', 'update', '2', '--city', 'Utrecht', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('updated customer 2\n');
    const { attributes } = json(result.stdout).data;
    expect([attributes.city, attributes.first_name, attributes.email]).toEqual([
      'Utrecht',
      'Sanne',
      'sanne@example.com',
    ]);
    expect(result.stdout).toBe(pretty(await routerDocument(c, '/customers/2')));
  });

  it('a refused update exits 1 and changes nothing', async () => {
    const c = cli();
    await seedTwo(c);
    const before = await routerDocument(c, '/customers/2');
    expect(await c.run(['customers', 'update', '2', '--data', '{"email":"nope"}', '--city', 'Utrecht'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: email: must be a valid email address\n',
    });
    expect(await c.run(['customers', 'update', '2', '--email', 'nope', '--city', 'Utrecht'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --email: must be a valid email address\n',
    });
    expect(await routerDocument(c, '/customers/2')).toEqual(before);
  });

  it('update of an unknown customer exits 1 with 404', async () => {
    expect(await cli().run(['customers', 'update', '7', '--city', 'Utrecht'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Not Found: no customer with id 7\n',
    });
  });

  it('archive and unarchive flip archived and say so', async () => {
    const c = cli();
    await seedTwo(c);
    const archived = await c.run(['customers', 'archive', '1', '--json']);
    expect(archived.code).toBe(0);
    expect(archived.stderr).toBe('archived customer 1\n');
    expect(json(archived.stdout).data.attributes.archived).toBe(true);
    expect(
      ((await routerDocument(c, '/customers/1')) as { data: { attributes: { archived: boolean } } }).data.attributes
        .archived,
    ).toBe(true);

    const unarchived = await c.run(['customers', 'unarchive', '1', '-o', 'ndjson']);
    expect(unarchived.code).toBe(0);
    expect(unarchived.stderr).toBe('unarchived customer 1\n');
    expect(json(unarchived.stdout).attributes.archived).toBe(false);
    expect(
      ((await routerDocument(c, '/customers/1')) as { data: { attributes: { archived: boolean } } }).data.attributes
        .archived,
    ).toBe(false);
  });

  it('archive --dry-run prints the PATCH and changes nothing', async () => {
    const c = cli();
    await seedTwo(c);
    const result = await c.run(['customers', 'archive', '1', '--dry-run']);
    expect(result).toEqual({
      code: 0,
      stdout: pretty({
        method: 'PATCH',
        path: '/customers/1',
        body: { data: { type: 'customer', id: '1', attributes: { archived: true } } },
      }),
      stderr: '',
    });
    expect(
      ((await routerDocument(c, '/customers/1')) as { data: { attributes: { archived: boolean } } }).data.attributes
        .archived,
    ).toBe(false);
  });

  it('subscriptions of a customer without any: "no subscriptions", exit 0; --json the empty collection', async () => {
    const c = cli();
    await seedTwo(c);
    expect(await c.run(['customers', 'subscriptions', '1'])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'no subscriptions\n',
    });
    const result = await c.run(['customers', 'subscriptions', '1', '--json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(pretty(await routerDocument(c, '/customers/1/subscriptions')));
    expect(json(result.stdout)).toMatchObject({ meta: { total: 0 }, data: [] });
  });

  it('subscriptions of an unknown customer exits 1 with 404', async () => {
    expect(await cli().run(['customers', 'subscriptions', '9'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Not Found: no customer with id 9\n',
    });
  });
});

describe('plans', () => {
  it('create prints the plan as GET shows it, with "created plan N" on stderr', async () => {
    const c = cli();
    const result = await c.run(
      ['plans', 'create', '--name', 'Gold', '--amount', '12.5', '--frequency', 'yearly'],
      TERMINAL,
    );
    expect(result).toEqual({
      code: 0,
      stdout: [
        '┌────────────────┬─────────────────────────┐',
        '│ id             │ 1                       │',
        '│ name           │ Gold                    │',
        '│ start date     │ 2026-11-21              │',
        '│ status         │ active                  │',
        '│ mandate method │ email                   │',
        '│ send invoice   │ yes                     │',
        '│ storno retries │ 2                       │',
        '│ archived       │ no                      │',
        '│ amount         │ € 12.50                 │',
        '│ frequency      │ yearly                  │',
        '│ created        │ 2026-11-21 11:00 +01:00 │',
        '│ updated        │ 2026-11-21 11:00 +01:00 │',
        '└────────────────┴─────────────────────────┘',
        '',
      ].join('\n'),
      stderr: 'created plan 1\n',
    });
  });

  it('create --json, then get and list show it', async () => {
    const c = cli();
    const created = await c.run([
      'plans',
      'create',
      '--name',
      'Silver',
      '--amount',
      '9.99',
      '--storno-retries',
      '1',
      '--no-send-invoice',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const document = await routerDocument(c, '/subscription-plans/1');
    expect(created.stdout).toBe(pretty(document));
    expect(json(created.stdout).data.attributes).toMatchObject({
      name: 'Silver',
      amount: '9.99',
      storno_retries: 1,
      send_invoice: false,
      frequency: 'monthly',
      status: 'active',
    });

    expect(await c.run(['plans', 'get', '1', '--json'])).toEqual({ code: 0, stdout: pretty(document), stderr: '' });
    expect(await c.run(['plans', 'list'], TERMINAL)).toEqual({
      code: 0,
      stdout: [
        '┌────┬────────┬────────┬───────────┬────────┬────────────────┐',
        '│ id │ name   │ amount │ frequency │ status │ mandate method │',
        '├────┼────────┼────────┼───────────┼────────┼────────────────┤',
        '│ 1  │ Silver │ € 9.99 │ monthly   │ active │ email          │',
        '└────┴────────┴────────┴───────────┴────────┴────────────────┘',
        '',
      ].join('\n'),
      stderr: 'page 1 of 1, 1 plan\n',
    });
    expect(await c.run(['plans', 'list'])).toEqual({
      code: 0,
      stdout: 'id\tname\tamount\tfrequency\tstatus\tmandate method\n1\tSilver\t€ 9.99\tmonthly\tactive\temail\n',
      stderr: 'page 1 of 1, 1 plan\n',
    });
  });

  it('create with a bad amount exits 2 naming the flag (1 naming the attribute from --data) and creates nothing', async () => {
    const c = cli();
    expect(await c.run(['plans', 'create', '--name', 'Gold', '--amount', '12.345'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --amount: must be an amount in euro with at most two decimals, for example 12.50\n',
    });
    expect(await c.run(['plans', 'create', '--name', 'Gold', '--data', '{"amount":"12.345"}'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: amount: must be an amount in euro with at most two decimals, for example 12.50\n',
    });
    expect(await c.run(['plans', 'list'])).toEqual({ code: 0, stdout: '', stderr: 'no plans\n' });
  });

  it('create with a bad amount and --json prints the error document with meta.original', async () => {
    const result = await cli().run(['plans', 'create', '--name', 'Gold', '--data', '{"amount":"ten"}', '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(json(result.stdout)).toEqual({
      errors: [
        {
          status: '400',
          title: 'Invalid Attribute',
          detail: 'amount must be an amount in euro with at most two decimals, for example 12.50',
          source: { pointer: '/data/attributes/amount' },
        },
      ],
      meta: { original: { data: { type: 'subscription-plan', attributes: { name: 'Gold', amount: 'ten' } } } },
    });
  });

  it('create without --name and --amount exits 2 naming both', async () => {
    expect(await cli().run(['plans', 'create'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: missing required flags: --name, --amount\n',
    });
  });

  it('create --dry-run creates nothing', async () => {
    const c = cli();
    const result = await c.run(['plans', 'create', '--name', 'Gold', '--amount', '5', '--dry-run']);
    expect(result).toEqual({
      code: 0,
      stdout: pretty({ create: 'subscription-plan', attributes: { name: 'Gold', amount: '5' } }),
      stderr: '',
    });
    expect(await c.run(['plans', 'list', '--json', '--query', 'meta.total'])).toEqual({
      code: 0,
      stdout: '0\n',
      stderr: '',
    });
  });

  it('get of an unknown plan exits 1 with 404', async () => {
    const result = await cli().run(['plans', 'get', '3']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: Not Found: .+\n$/);
  });
});

describe('accounts', () => {
  it('create --json prints {name, api_key}, and the key authenticates as that account', async () => {
    const c = cli();
    const result = await c.run(['accounts', 'create', 'acme', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const printed = json(result.stdout);
    expect(Object.keys(printed)).toEqual(['name', 'api_key']);
    expect(printed.name).toBe('acme');
    expect(printed.api_key).toMatch(/^bk_[A-Za-z0-9_-]{32}$/);
    const store = await openStore(c.dbPath);
    try {
      expect((await authenticate(store, printed.api_key))?.name).toBe('acme');
      expect(await authenticate(store, `${printed.api_key}x`)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('create as a table says the key is shown only now', async () => {
    const result = await cli().run(['accounts', 'create', 'acme']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('API key of account "acme" (shown only now; store it safely):\n');
    expect(result.stdout).toMatch(/^name\tacme\nAPI key\tbk_[A-Za-z0-9_-]{32}\n$/);
    const table = await cli().run(['accounts', 'create', 'acme'], TERMINAL);
    expect(table.stdout).toMatch(/│ name +│ acme +│\n│ API key +│ bk_/);
  });

  it('create with --invoice-prefix and --time-zone, then show --json prints {name, invoice_prefix, time_zone, webhook_secret}', async () => {
    const c = cli();
    expect(
      (await c.run(['accounts', 'create', 'acme', '--invoice-prefix', 'ACME-', '--time-zone', 'Europe/Brussels', '-q']))
        .code,
    ).toBe(0);
    const shown = await c.run(['accounts', 'show', 'acme', '--json']);
    expect(shown.code).toBe(0);
    const printed = json(shown.stdout);
    expect(Object.keys(printed)).toEqual(['name', 'invoice_prefix', 'time_zone', 'webhook_secret']);
    expect(printed).toMatchObject({ name: 'acme', invoice_prefix: 'ACME-', time_zone: 'Europe/Brussels' });
    expect(printed.webhook_secret).toMatch(/^whsec_/);
  });

  it('show default works on a fresh store', async () => {
    const result = await cli().run(['accounts', 'show', 'default', '--json']);
    expect(result.code).toBe(0);
    expect(json(result.stdout)).toMatchObject({
      name: 'default',
      invoice_prefix: 'INV-',
      time_zone: 'Europe/Amsterdam',
    });
  });

  it('list --json names every account and the default', async () => {
    const c = cli();
    await c.run(['accounts', 'create', 'acme', '-q']);
    const result = await c.run(['accounts', 'list', '--json']);
    expect(result).toEqual({
      code: 0,
      stdout: pretty([
        { name: 'default', invoice_prefix: 'INV-', time_zone: 'Europe/Amsterdam', default: true },
        { name: 'acme', invoice_prefix: 'INV-', time_zone: 'Europe/Amsterdam', default: false },
      ]),
      stderr: '',
    });
  });

  it('list as a table', async () => {
    const c = cli();
    await c.run(['accounts', 'create', 'acme', '-q']);
    expect(await c.run(['accounts', 'list'], TERMINAL)).toEqual({
      code: 0,
      stdout: [
        '┌─────────┬────────────────┬──────────────────┬─────────┐',
        '│ name    │ invoice prefix │ time zone        │ default │',
        '├─────────┼────────────────┼──────────────────┼─────────┤',
        '│ default │ INV-           │ Europe/Amsterdam │ yes     │',
        '│ acme    │ INV-           │ Europe/Amsterdam │ no      │',
        '└─────────┴────────────────┴──────────────────┴─────────┘',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(await c.run(['accounts', 'list'])).toEqual({
      code: 0,
      stdout:
        'name\tinvoice prefix\ttime zone\tdefault\ndefault\tINV-\tEurope/Amsterdam\tyes\nacme\tINV-\tEurope/Amsterdam\tno\n',
      stderr: '',
    });
  });

  it('list and show honour -o ndjson, -o csv and --query', async () => {
    const c = cli();
    await c.run(['accounts', 'create', 'acme', '--invoice-prefix', 'ACME-', '-q']);
    expect(await c.run(['accounts', 'list', '-o', 'ndjson'])).toEqual({
      code: 0,
      stdout:
        '{"name":"default","invoice_prefix":"INV-","time_zone":"Europe/Amsterdam","default":true}\n' +
        '{"name":"acme","invoice_prefix":"ACME-","time_zone":"Europe/Amsterdam","default":false}\n',
      stderr: '',
    });
    expect(await c.run(['accounts', 'list', '-o', 'csv'])).toEqual({
      code: 0,
      stdout:
        'name,invoice_prefix,time_zone,default\r\ndefault,INV-,Europe/Amsterdam,true\r\nacme,ACME-,Europe/Amsterdam,false\r\n',
      stderr: '',
    });
    expect(await c.run(['accounts', 'list', '--query', '[?default].name'])).toEqual({
      code: 0,
      stdout: '[\n  "default"\n]\n',
      stderr: '',
    });
    expect(await c.run(['accounts', 'show', 'acme', '--query', 'invoice_prefix'])).toEqual({
      code: 0,
      stdout: 'ACME-\n',
      stderr: '',
    });
    const csv = await c.run(['accounts', 'show', 'acme', '-o', 'csv']);
    expect(csv.stdout).toMatch(
      /^name,invoice_prefix,time_zone,webhook_secret\r\nacme,ACME-,Europe\/Amsterdam,whsec_[\w-]+\r\n$/,
    );
  });

  it('create --query api_key prints just the key, raw (key=$(billing accounts create … --query api_key))', async () => {
    const c = cli();
    const result = await c.run(['accounts', 'create', 'acme', '--query', 'api_key', '-q']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^bk_[A-Za-z0-9_-]{32}\n$/);
  });

  it('update --json prints the settings as show does', async () => {
    const c = cli();
    await c.run(['accounts', 'create', 'acme', '-q']);
    const updated = await c.run(['accounts', 'update', 'acme', '--invoice-prefix', 'AC-', '--json']);
    expect(updated.code).toBe(0);
    const printed = json(updated.stdout);
    expect(Object.keys(printed)).toEqual(['name', 'invoice_prefix', 'time_zone', 'webhook_secret']);
    expect(printed).toMatchObject({ name: 'acme', invoice_prefix: 'AC-', time_zone: 'Europe/Amsterdam' });
    expect(await c.run(['accounts', 'show', 'acme', '--json'])).toEqual({
      code: 0,
      stdout: updated.stdout,
      stderr: '',
    });
  });

  it('update with a bad time zone exits 1 naming it; with nothing to change exits 2', async () => {
    const c = cli();
    await c.run(['accounts', 'create', 'acme', '-q']);
    expect(await c.run(['accounts', 'update', 'acme', '--time-zone', 'Mars/Olympus'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: time_zone: is not an IANA time zone (for example Europe/Amsterdam)\n',
    });
    expect(await c.run(['accounts', 'update', 'acme'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: nothing to change: give at least one flag (see billing accounts update --help)\n',
    });
  });

  it('rotate-key --json prints {name, api_key}: the new key authenticates, the old one no longer does', async () => {
    const c = cli();
    const oldKey = json((await c.run(['accounts', 'create', 'acme', '--json'])).stdout).api_key;
    // acme has a key: replacing it needs --yes without a terminal (keys.test.ts has the refusal and the question).
    const rotated = await c.run(['accounts', 'rotate-key', 'acme', '--json', '--yes']);
    expect(rotated.code).toBe(0);
    const printed = json(rotated.stdout);
    expect(Object.keys(printed)).toEqual(['name', 'api_key']);
    expect(printed.name).toBe('acme');
    expect(printed.api_key).not.toBe(oldKey);
    const store = await openStore(c.dbPath);
    try {
      expect((await authenticate(store, printed.api_key))?.name).toBe('acme');
      expect(await authenticate(store, oldKey)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a second account of the same name is refused (exit 1)', async () => {
    const c = cli();
    await c.run(['accounts', 'create', 'acme', '-q']);
    expect(await c.run(['accounts', 'create', 'acme'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: name: an account named "acme" already exists\n',
    });
  });

  it('show and rotate-key of an unknown account exit 1', async () => {
    const c = cli();
    expect(await c.run(['accounts', 'show', 'nosuch'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Not Found: no account named "nosuch"\n',
    });
    expect(await c.run(['accounts', 'rotate-key', 'nosuch'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Not Found: no account named "nosuch"\n',
    });
  });
});

describe('--account', () => {
  it('acts as that account: its customers are invisible to the default account and the other way round', async () => {
    const c = cli();
    const env = { BILLING_DB: c.dbPath };
    await c.seedCustomers(1); // the default account's customer 1
    expect((await c.run(['accounts', 'create', 'acme', '-q'])).code).toBe(0);
    const created = await c.run(['customers', 'create', ...JAN, '--account', 'acme', '--json'], { real: true, env });
    expect(created.code).toBe(0);
    const id = json(created.stdout).data.id as string;
    expect(id).toBe('2');

    const asAcme = await c.run(['customers', 'list', '--account', 'acme', '--json'], { real: true, env });
    expect(json(asAcme.stdout).data.map((r: { id: string }) => r.id)).toEqual([id]);
    const asDefault = await c.run(['customers', 'list', '--json'], { real: true, env });
    expect(json(asDefault.stdout).data.map((r: { id: string }) => r.id)).toEqual(['1']);

    expect(await c.run(['customers', 'get', id], { real: true, env })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: Not Found: no customer with id ${id}\n`,
    });
    expect((await c.run(['customers', 'get', '1', '--account', 'acme'], { real: true, env })).code).toBe(1);
    expect((await c.run(['customers', 'get', id, '--account', 'acme', '--json'], { real: true, env })).code).toBe(0);
  });

  it('an unknown account exits 2', async () => {
    const c = cli();
    await c.customerCount(); // the store exists (a read of a missing one is another error: store-existence.test.ts)
    expect(await c.run(['--db', c.dbPath, '--account', 'nosuch', 'customers', 'list'], { real: true })).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: no account named "nosuch" in ${c.dbPath} (see: billing accounts list)\n`,
    });
  });
});

describe('--verbose', () => {
  it('logs each request and response on stderr, and leaves stdout to the data', async () => {
    const c = cli();
    await c.seedCustomers(1);
    const quiet = await c.run(['customers', 'get', '1', '--json'], { real: true, env: { BILLING_DB: c.dbPath } });
    const result = await c.run(['customers', 'get', '1', '--json', '--verbose'], {
      real: true,
      env: { BILLING_DB: c.dbPath },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(quiet.stdout);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('> GET /customers/1');
    expect(lines[1]).toMatch(/^< 200 \(\d+ ms\)$/);
    expect(JSON.parse(lines[2].slice(2))).toEqual(JSON.parse(quiet.stdout));
  });
});

describe('api', () => {
  it('--data nested 100,000 levels deep is exit 2 before anything is sent, not a crash', async () => {
    const c = cli();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(await c.run(['api', 'POST', '/customers', '--data', deep])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --data is nested deeper than 64 levels\n',
    });
    expect(await c.customerCount()).toBe(0);
  });

  it('GET prints the raw document', async () => {
    const c = cli();
    await seedTwo(c);
    expect(await c.run(['api', 'GET', '/customers/1'])).toEqual({
      code: 0,
      stdout: pretty(await routerDocument(c, '/customers/1')),
      stderr: '',
    });
  });

  it('GET keeps the query of the path', async () => {
    const c = cli();
    await c.seedCustomers(3);
    const result = await c.run(['api', 'get', '/customers?page[number]=2&page[size]=2']);
    expect(result).toEqual({
      code: 0,
      stdout: pretty(await routerDocument(c, '/customers', { 'page[number]': 2, 'page[size]': 2 })),
      stderr: '',
    });
  });

  it('DELETE of a customer exits 1 with 405', async () => {
    const c = cli();
    await seedTwo(c);
    expect(await c.run(['api', 'DELETE', '/customers/1'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Method Not Allowed: DELETE is not allowed on /customers/1; allowed: GET, HEAD, PATCH\n',
    });
    const withJson = await c.run(['api', 'DELETE', '/customers/1', '--json']);
    expect(withJson.code).toBe(1);
    expect(json(withJson.stdout)).toEqual({
      errors: [
        {
          status: '405',
          title: 'Method Not Allowed',
          detail: 'DELETE is not allowed on /customers/1; allowed: GET, HEAD, PATCH',
        },
      ],
    });
  });

  it('POST with --data creates, and prints the 201 document', async () => {
    const c = cli();
    const body = {
      data: { type: 'customer', attributes: { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' } },
    };
    const result = await c.run(['api', 'POST', '/customers', '--data', JSON.stringify(body)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(pretty(await routerDocument(c, '/customers/1')));
  });

  it('a bad method or path exits 2', async () => {
    const c = cli();
    expect(await c.run(['api', 'PUT', '/customers/1'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: METHOD must be one of GET, POST, PATCH, DELETE, not "PUT"\n',
    });
    expect(await c.run(['api', 'GET', 'customers'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: PATH must start with / (for example /customers/1)\n',
    });
  });
});
