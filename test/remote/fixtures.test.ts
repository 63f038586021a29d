// Remote mode reads and renders what the hosted service really sends: every recorded
// request/response in the shared fixtures is replayed with nock, through `billing api` and
// through the commands that exist for it, and the requests the CLI sends are checked.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { label } from '../../src/lib/output/format.js';
import { BASE, fixture, idsOf, JSONAPI, KEY, loadFixtures, rebase, remoteEnv, run, type Fixture } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

/**
 * Serves one fixture at BASE, matching only a request with the method, path (and query), body,
 * and headers the reference asks for: the key, the JSON:API Accept, and Content-Type exactly
 * when a body is sent.
 */
function serve(f: Fixture, path = f.request.path, body = f.response.body): nock.Scope {
  const withBody = f.request.body !== undefined;
  const scope = nock(BASE, {
    reqheaders: { 'x-authorization': KEY, accept: JSONAPI, ...(withBody ? { 'content-type': JSONAPI } : {}) },
    badheaders: withBody ? [] : ['content-type'],
  });
  const interceptor = scope.intercept(
    path,
    f.request.method,
    withBody ? (f.request.body as nock.RequestBodyMatcher) : undefined,
  );
  if (body === undefined) interceptor.reply(f.response.status);
  else interceptor.reply(f.response.status, body as nock.Body, { 'content-type': JSONAPI });
  return scope;
}

const apiArgs = (f: Fixture): string[] => [
  'api',
  f.request.method,
  f.request.path,
  ...(f.request.body !== undefined ? ['--data', JSON.stringify(f.request.body)] : []),
];

const FIXTURES = loadFixtures();

it('finds the recorded fixtures', () => {
  expect(FIXTURES.length).toBeGreaterThanOrEqual(20);
  for (const f of FIXTURES) {
    expect(f.request.method, f.file).toMatch(/^(GET|POST|PATCH|DELETE)$/);
    expect(f.request.path, f.file).toMatch(/^\//);
    expect(typeof f.response.status, f.file).toBe('number');
  }
});

describe.each(FIXTURES.map((f) => [f.file, f] as const))('%s', (_file, f) => {
  it('billing api --json prints exactly the response document, after the expected request', async () => {
    const scope = serve(f);
    const r = await run([...apiArgs(f), '--json'], remoteEnv());
    expect(r.stderr, r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    scope.done(); // method, path, query, body and headers all matched
    if (f.response.body === undefined) {
      expect(f.response.status).toBe(204);
      expect(r.stdout).toBe('');
    } else {
      expect(JSON.parse(r.stdout)).toEqual(f.response.body);
    }
  });

  it('billing api -o table renders it, with the resource ids', async () => {
    const scope = serve(f);
    const r = await run([...apiArgs(f), '-o', 'table'], remoteEnv());
    expect(r.stderr, r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    scope.done();
    if (f.response.body === undefined) {
      expect(r.stdout).toBe('');
      return;
    }
    const ids = idsOf(f.response.body);
    expect(ids.length).toBeGreaterThan(0);
    // Not on a terminal: tab-separated lines, an id in a field of its own.
    for (const id of ids) expect(r.stdout).toMatch(new RegExp(`(^|\\t)${id.replace(/-/g, '\\-')}(\\t|$)`, 'm'));
    expect(() => JSON.parse(r.stdout)).toThrow(); // a table, not the document
  });
});

describe('the commands, on the fixtures they have', () => {
  const GETS = [
    ['customers', 'customer-get-customer.json'],
    ['customers', 'customer-get-2.json'],
    ['plans', 'subscriptionplan-get-subscription-plan.json'],
    ['plans', 'subscription-plan-get-2.json'],
  ] as const;

  it.each(GETS)('%s get 1 (%s): a field/value table, and --json unchanged', async (group, file) => {
    const f = fixture(file);
    const attributes = (f.response.body as { data: { attributes: Record<string, unknown> } }).data.attributes;

    let scope = serve(f);
    const table = await run([group, 'get', '1'], remoteEnv());
    expect(table.code).toBe(0);
    scope.done();
    expect(table.stderr).toBe('');
    // Not on a terminal: `field<TAB>value` lines, labels in words, empty fields left out.
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe('id\t1');
    for (const [name, value] of Object.entries(attributes)) {
      const line = lines.find((l) => l.startsWith(`${label(name)}\t`));
      if (value === null || value === '') expect(line, name).toBeUndefined();
      else expect(line, name).toBeDefined();
      if (typeof value === 'string' && value !== '' && !/T\d\d:/.test(value)) expect(line, name).toContain(value);
    }
    expect(table.stdout).toMatch(/^subscriptions\t\d+/m); // relationship ids shown

    scope = serve(f);
    const json = await run([group, 'get', '1', '--json'], remoteEnv());
    expect(json.code).toBe(0);
    scope.done();
    expect(JSON.parse(json.stdout)).toEqual(f.response.body);
  });

  it('customers get shows dates without seconds and null as blank', async () => {
    const scope = serve(fixture('customer-get-customer.json'));
    const r = await run(['customers', 'get', '1'], remoteEnv());
    scope.done();
    expect(r.stdout).toMatch(/^created\t2018-02-01 11:21 \+01:00$/m);
    expect(r.stdout).not.toMatch(/^middle name\t/m);
    expect(r.stdout).not.toContain('null');
  });

  const LISTS = [
    [
      'customers',
      'customer-list-customer.json',
      ['Jeroen van der Geer', 'jvdgeer@example.com', 'directdebit', '2018-02-01'],
      'page 1 of 18, 10 customers (next: --page 2)',
    ],
    [
      'plans',
      'subscriptionplan-list-subscription-plans.json',
      ['One Size Fits All', 'One Size Fits All 2', 'active', 'online_payment'],
      'page 1 of 1, 2 plans',
    ],
  ] as const;

  describe.each(LISTS)('%s list (%s)', (group, file, cells, footer) => {
    const f = fixture(file);
    const ids = idsOf(f.response.body);

    it.each([
      ['no paging flags', [], f.request.path.split('?')[0]],
      ['--page 1 --page-size 10', ['--page', '1', '--page-size', '10'], f.request.path],
    ] as const)('as a table, with %s', async (_label, flags, path) => {
      const scope = serve(f, path);
      const r = await run([group, 'list', ...flags], remoteEnv());
      expect(r.code).toBe(0);
      scope.done();
      const rows = r.stdout.replace(/\n$/, '').split('\n');
      expect(rows[0]).toMatch(/^id\t/);
      expect(rows).toHaveLength(1 + ids.length); // header, one line per resource
      for (const [i, id] of ids.entries()) expect(rows[1 + i]).toMatch(new RegExp(`^${id}\t`));
      for (const cell of cells) expect(r.stdout).toContain(cell);
      expect(r.stderr).toBe(`${footer}\n`);
    });

    it('--json prints the document unchanged', async () => {
      const scope = serve(f);
      const r = await run([group, 'list', '--page', '1', '--page-size', '10', '--json'], remoteEnv());
      expect(r.code).toBe(0);
      scope.done();
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual(f.response.body);
    });
  });
});

describe('links', () => {
  type Collection = {
    data: { id: string; attributes: Record<string, unknown> }[];
    links: Record<string, string | null>;
    meta: { total: number };
  };

  function twoPages() {
    // Page 1: the recorded list, its links moved to the nock host; its next points at page 2.
    const page1 = rebase(fixture('customer-list-customer.json').response.body as Collection);
    expect(page1.links.next).toBe(`${BASE}/customers?page[number]=2&page[size]=10`);
    const second = structuredClone(page1.data[0]);
    second.id = '2';
    second.attributes = { ...second.attributes, first_name: 'Sanne', last_name: 'Bakker', email: 'sanne@example.com' };
    const page2: Collection = {
      ...page1,
      links: { ...page1.links, self: page1.links.next, prev: page1.links.self, next: null },
      data: [second],
    };
    const headers = { reqheaders: { 'x-authorization': KEY, accept: JSONAPI } };
    const scope = nock(BASE, headers)
      .get('/customers?page[number]=1')
      .reply(200, page1, { 'content-type': JSONAPI })
      .get('/customers?page[number]=2&page[size]=10')
      .reply(200, page2, { 'content-type': JSONAPI });
    return { page1, page2, scope };
  }

  it('customers list --all --json follows links.next into one document with every page', async () => {
    const { page1, page2, scope } = twoPages();
    const r = await run(['customers', 'list', '--all', '--json'], remoteEnv());
    expect(r.code).toBe(0);
    scope.done(); // both pages fetched, each with the key and the JSON:API Accept
    const document = JSON.parse(r.stdout) as Collection;
    expect(document.data).toEqual([...page1.data, ...page2.data]);
    expect(document.meta).toEqual(page1.meta);
    expect(document.links).toEqual({ ...page1.links, next: null });
    expect(document).not.toHaveProperty('included');
  });

  it('links written with percent-encoded brackets (as billing serve writes them) are followed the same way', async () => {
    const { page1, page2, scope } = twoPages();
    const encode = (link: string | null) => link && link.replace(/\[/g, '%5B').replace(/\]/g, '%5D');
    for (const page of [page1, page2])
      for (const name of Object.keys(page.links)) page.links[name] = encode(page.links[name]);
    expect(page1.links.next).toBe(`${BASE}/customers?page%5Bnumber%5D=2&page%5Bsize%5D=10`);
    const r = await run(['customers', 'list', '--all', '--json'], remoteEnv());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    scope.done(); // page 2 asked for exactly as with raw brackets
    expect((JSON.parse(r.stdout) as Collection).data).toEqual([...page1.data, ...page2.data]);
  });

  it('the page footer reads percent-encoded links too', async () => {
    const f = fixture('customer-list-customer.json');
    const body = rebase(f.response.body as Collection);
    for (const name of Object.keys(body.links))
      body.links[name] = body.links[name] && body.links[name].replace(/\[/g, '%5B').replace(/\]/g, '%5D');
    const scope = nock(BASE).get('/customers').reply(200, body, { 'content-type': JSONAPI });
    const r = await run(['customers', 'list'], remoteEnv());
    expect(r.code).toBe(0);
    scope.done();
    expect(r.stderr).toBe('page 1 of 18, 10 customers (next: --page 2)\n');
  });

  it('customers list --all as a table shows both pages', async () => {
    const { scope } = twoPages();
    const r = await run(['customers', 'list', '--all'], remoteEnv());
    expect(r.code).toBe(0);
    scope.done();
    expect(r.stdout).toContain('Jeroen van der Geer');
    expect(r.stdout).toContain('Sanne Bakker');
    expect(r.stderr).toBe('all 10 customers\n');
  });
});

describe('attributes this CLI does not know', () => {
  function withLoyalty() {
    const f = fixture('customer-get-customer.json');
    (f.response.body as { data: { attributes: Record<string, unknown> } }).data.attributes.loyalty_tier = 'gold';
    return f;
  }

  it('are shown in the table, not rejected', async () => {
    const f = withLoyalty();
    const scope = serve(f);
    const r = await run(['customers', 'get', '1'], remoteEnv());
    expect(r.code).toBe(0);
    scope.done();
    expect(r.stdout).toMatch(/^loyalty tier\tgold$/m);
  });

  it('pass through --json and -o csv', async () => {
    const f = withLoyalty();
    let scope = serve(f);
    const json = await run(['customers', 'get', '1', '--json'], remoteEnv());
    expect(json.code).toBe(0);
    scope.done();
    expect(JSON.parse(json.stdout)).toEqual(f.response.body);
    expect(JSON.parse(json.stdout).data.attributes.loyalty_tier).toBe('gold');

    scope = serve(f);
    const csv = await run(['customers', 'get', '1', '-o', 'csv'], remoteEnv());
    expect(csv.code).toBe(0);
    scope.done();
    const [header, row] = csv.stdout.split('\r\n');
    expect(header.split(',')).toContain('loyalty_tier');
    expect(row.split(',')[header.split(',').indexOf('loyalty_tier')]).toBe('gold');
  });
});
