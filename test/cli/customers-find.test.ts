// `customers list --email/--search/--archived/--active/--sort` and `customers get EMAIL`, through
// main() in process: what they print, and what they refuse before sending anything.
import { describe, expect, it } from 'vitest';
import { cli, type Cli } from './harness.js';

const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const routerDocument = (c: Cli, path: string, query?: Record<string, string | number>) =>
  c.withTransport(async (t) => (await t.request({ method: 'GET', path, query })).body);
const idsOf = (stdout: string): string[] => (JSON.parse(stdout) as { data: { id: string }[] }).data.map((c) => c.id);

const PEOPLE = [
  { first_name: 'Jan', last_name: 'Jansen', email: 'Jan@Example.com' },
  { first_name: 'Anna', last_name: 'de Vries', email: 'anna@example.org', company_name: 'Jansen & Co' },
  { first_name: 'Piet', last_name: 'Bakker', email: 'piet@example.com' },
  { first_name: 'Twin', last_name: 'One', email: 'twin@example.com' },
  { first_name: 'Twin', last_name: 'Two', email: 'TWIN@example.com' },
];

/** The people above, created in order (ids 1 to 5), with Piet archived. */
async function seeded(): Promise<Cli> {
  const c = cli();
  await c.withTransport(async (t) => {
    for (const attributes of PEOPLE) {
      const answer = await t.request({
        method: 'POST',
        path: '/customers',
        body: { data: { type: 'customer', attributes } },
      });
      expect(answer.status).toBe(201);
    }
    expect(
      (
        await t.request({
          method: 'PATCH',
          path: '/customers/3',
          body: { data: { type: 'customer', id: '3', attributes: { archived: true } } },
        })
      ).status,
    ).toBe(200);
  });
  return c;
}

describe('customers list, finding', () => {
  it('--search prints exactly the document of filter[search]', async () => {
    const c = await seeded();
    const result = await c.run(['customers', 'list', '--search', 'JANSEN', '--json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(pretty(await routerDocument(c, '/customers', { 'filter[search]': 'JANSEN' })));
    expect(idsOf(result.stdout)).toEqual(['1', '2']);
  });

  it('--email finds by the whole address, in any case', async () => {
    const c = await seeded();
    expect(idsOf((await c.run(['customers', 'list', '--email', 'jan@example.COM', '--json'])).stdout)).toEqual(['1']);
    expect(idsOf((await c.run(['customers', 'list', '--email', 'jan@example', '--json'])).stdout)).toEqual([]);
  });

  it('--archived and --active keep the archived and the other customers', async () => {
    const c = await seeded();
    expect(idsOf((await c.run(['customers', 'list', '--archived', '--json'])).stdout)).toEqual(['3']);
    expect(idsOf((await c.run(['customers', 'list', '--active', '--json'])).stdout)).toEqual(['1', '2', '4', '5']);
    expect(idsOf((await c.run(['customers', 'list', '--active', '--search', 'example.com', '--json'])).stdout)).toEqual(
      ['1', '4', '5'],
    );
  });

  it('--sort orders by a field, and -field (as the next argument or after =) the other way', async () => {
    const c = await seeded();
    expect(idsOf((await c.run(['customers', 'list', '--sort', 'last_name', '--json'])).stdout)).toEqual([
      '3',
      '2',
      '1',
      '4',
      '5',
    ]);
    expect(idsOf((await c.run(['customers', 'list', '--sort', '-last_name', '--json'])).stdout)).toEqual([
      '5',
      '4',
      '1',
      '2',
      '3',
    ]);
    expect(idsOf((await c.run(['customers', 'list', '--sort=-email', '--json'])).stdout)).toEqual([
      '5',
      '4',
      '3',
      '1',
      '2',
    ]);
    expect(idsOf((await c.run(['customers', 'list', '--sort', '-created_at', '--json'])).stdout)).toEqual([
      '5',
      '4',
      '3',
      '2',
      '1',
    ]);
  });

  it('--all follows the pages of the filtered, sorted list', async () => {
    const c = await seeded();
    const result = await c.run([
      'customers',
      'list',
      '--active',
      '--sort',
      '-id',
      '--page-size',
      '2',
      '--all',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(idsOf(result.stdout)).toEqual(['5', '4', '2', '1']);
  });

  it.each([
    [['--archived', '--active'], '--archived and --active exclude each other'],
    [['--sort', 'first_name'], '--sort takes one of id, created_at, last_name, email'],
    [['--sort', 'constructor'], '--sort'],
    [['--sort', '--id'], '--sort'],
    [['--email', ' '], '--email must not be empty'],
    [['--search', ''], '--search must not be empty'],
  ])('%j is a usage error (exit 2) naming the flag, and sends nothing', async (flags, message) => {
    const c = cli();
    const result = await c.run(['customers', 'list', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr).toContain(message);
  });

  it('the help shows the flags and examples of finding', async () => {
    const result = await cli().run(['customers', 'list', '--help']);
    expect(result.code).toBe(0);
    for (const text of [
      '--email <email>',
      '--search <text>',
      '--archived',
      '--active',
      '--sort <field>',
      'billing customers list --search jansen',
      'billing customers list --archived --sort -created_at',
    ]) {
      expect(result.stdout).toContain(text);
    }
  });
});

describe('customers get EMAIL', () => {
  it('shows the one customer with that email exactly as get ID does, with --include and --fields', async () => {
    const c = await seeded();
    for (const flags of [
      ['--json'],
      ['--include', 'subscriptions', '--json'],
      ['--fields', 'customer=first_name,email', '--json'],
      [],
    ]) {
      const byEmail = await c.run(['customers', 'get', 'JAN@example.com', ...flags]);
      expect(byEmail.code, byEmail.stderr).toBe(0);
      expect(byEmail).toEqual(await c.run(['customers', 'get', '1', ...flags]));
    }
  });

  it('when no customer has it, exits 1 saying so, as a missing id is: with --json, the 404 document on stdout', async () => {
    const c = await seeded();
    expect(await c.run(['customers', 'get', 'nobody@example.com'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Not Found: no customer with email nobody@example.com\n',
    });
    const json = await c.run(['customers', 'get', 'nobody@example.com', '--json']);
    expect([json.code, json.stderr]).toEqual([1, '']);
    expect(JSON.parse(json.stdout)).toEqual({
      errors: [{ status: '404', title: 'Not Found', detail: 'no customer with email nobody@example.com' }],
    });
  });

  it('when several customers have it, exits 2 listing their ids', async () => {
    const c = await seeded();
    expect(await c.run(['customers', 'get', 'twin@EXAMPLE.com'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: 2 customers have the email twin@EXAMPLE.com (ids 4, 5): give the id of one\n',
    });
  });

  it('a value that is neither an id nor an email is still a usage error', async () => {
    const c = await seeded();
    expect(await c.run(['customers', 'get', 'jansen'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: ID must be a positive whole number, not "jansen"\n',
    });
  });
});
