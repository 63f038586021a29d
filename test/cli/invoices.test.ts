// invoices and lines: what each verb sends (checked on the request itself, through a service double
// or --dry-run), what it refuses before sending (exit 2 naming the flag), the confirmations of credit
// and delete, how invoices and lines print (from real responses of the hosted service), and the audit
// of references.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  auditReferences,
  auditReport,
  auditVerdict,
  type Referenced,
} from '../../src/commands/invoices/audit-check.js';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import { FIXTURES_DIR } from '../remote/helpers.js';
import { collection, invalidState, printed, resource, runDouble, type Answer } from './service-double.js';

const fixture = (name: string) => JSON.parse(readFileSync(`${FIXTURES_DIR}/${name}.json`, 'utf8')).response.body;
const LIST = fixture('invoice-list-invoices');
const DRAFT = fixture('invoice-get-invoice');
const CREATED = fixture('invoice-create-invoice');
const FINALISED = fixture('invoice-finalise-invoice');
const PAID = fixture('invoice-pay-invoice');
const CREDIT = fixture('invoice-credit-invoice');
const LINE = fixture('invoiceline-get-invoice-line');
const CUSTOMER = fixture('customer-get-customer');

const ID = '637377985';
const TERMINAL = { tty: true, env: { NO_COLOR: '1' } };

describe('invoices list', () => {
  const service: Answer = (r) =>
    r.method === 'GET' && r.path === '/invoices' ? { status: 200, body: LIST } : undefined;

  it('sends each flag as its filter[…] or sort parameter, in one request', async () => {
    const result = await runDouble(
      [
        'invoices',
        'list',
        '--status',
        'open',
        '--customer-id',
        '42',
        '--subscription-id',
        '7',
        '--search',
        ' INV-7 ',
        '--sort',
        '-invoice_date',
        '--include',
        'subscriptions',
        '--page-size',
        '5',
      ],
      service,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      {
        method: 'GET',
        path: '/invoices',
        query: {
          include: 'subscriptions',
          'filter[status]': 'open',
          'filter[customer_id]': '42',
          'filter[subscription_id]': '7',
          'filter[search]': 'INV-7',
          sort: '-invoice_date',
          'page[number]': undefined,
          'page[size]': 5,
        },
      },
    ]);
  });

  it('without a terminal: id, reference, status, customer, total (€), dates as TSV; the count on stderr', async () => {
    const result = await runDouble(['invoices', 'list'], service);
    expect(result.stdout).toBe(
      [
        'id\treference\tstatus\tcustomer\tamount incl\tinvoice date\ttransaction date',
        "707805321\tDN'S BDRJF-1\topen\t1116541653\t€ 1.00\t2019-07-10\t2019-10-10",
        '1325564912\tDRAFT\tdraft\t149526343\t€ 0.00\t2019-10-10\t2019-10-10',
        '637377985\tDRAFT\tdraft\t149526343\t€ 0.00\t2019-10-10\t2019-10-10',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe('page 1 of 1, 3 invoices\n');
  });

  it('on a terminal: totals right-aligned, the least needed column (transaction date) gives way at 80 columns', async () => {
    const result = await runDouble(['invoices', 'list'], service, TERMINAL);
    const rows = result.stdout.split('\n');
    expect(rows[1]).toBe('│ id         │ reference    │ status │ customer   │ amount incl │ invoice date │');
    expect(rows[3]).toBe("│ 707805321  │ DN'S BDRJF-1 │ open   │ 1116541653 │      € 1.00 │ 2019-07-10   │");
  });

  it('colours the status on a terminal', async () => {
    const result = await runDouble(['invoices', 'list'], service, { tty: true, env: { FORCE_COLOR: '1' } });
    expect(result.stdout).toContain('\u001b[33mopen');
    expect(result.stdout).toContain('\u001b[90mdraft');
  });

  it('an empty list says so on stderr', async () => {
    expect(
      await runDouble(['invoices', 'list', '--status', 'paid'], () => ({ status: 200, body: collection([]) })),
    ).toMatchObject({ code: 0, stdout: '', stderr: 'no invoices\n' });
  });

  it.each([
    [
      ['--status', 'finalised'],
      'error: --status: must be one of: draft, open, paid, charged_back, cancelled, completed (not "finalised")\n',
    ],
    [
      ['--sort', 'amount_incl'],
      'error: --sort takes one of id, created_at, invoice_date, with a leading - for descending order (e.g. -invoice_date), not "amount_incl"\n',
    ],
    [['--customer-id', 'jan'], 'error: --customer-id must be a positive whole number, not "jan"\n'],
    [['--subscription-id', '0'], 'error: --subscription-id must be a positive whole number, not "0"\n'],
    [['--search', ' '], 'error: --search must not be empty\n'],
    [['--page-size', '101'], 'error: --page-size must be a whole number from 1 to 100\n'],
  ])('%j: exit 2 naming the flag, nothing sent', async (flags, stderr) => {
    expect(await runDouble(['invoices', 'list', ...flags], service)).toEqual({
      code: 2,
      stdout: '',
      stderr,
      requests: [],
    });
  });
});

describe('invoices get and lines', () => {
  const service: Answer = (r) => {
    if (r.path === '/invoices/278193007') return { status: 200, body: CREDIT };
    if (r.path === `/invoices/${ID}/lines`) return { status: 200, body: collection([LINE.data]) };
    return undefined;
  };

  it('get --json prints the document as the service sent it', async () => {
    const result = await runDouble(['invoices', 'get', '278193007', '--json'], service);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.requests).toEqual([{ method: 'GET', path: '/invoices/278193007', query: {} }]);
    expect(JSON.parse(result.stdout)).toEqual(CREDIT);
  });

  it('get without a terminal: money with a euro sign, tax per rate, the related ids', async () => {
    const result = await runDouble(['invoices', 'get', '278193007'], service);
    expect(result.stdout).toBe(
      [
        'id\t278193007',
        'status\tdraft',
        'reference\tDRAFT',
        'amount excl\t-€ 993.10',
        'amount incl\t-€ 1,104.72',
        'tax rates\t21.00%: -€ 59.90; 9.00%: -€ 36.72; 5.00%: -€ 15.00',
        'tax amount\t-€ 111.62',
        'created\t2020-04-15 16:35 +02:00',
        'updated\t2020-04-15 16:35 +02:00',
        'subscription\t739578262',
        'customer\t149526343',
        'invoice lines\t847442567, 1803390100, 1077716709',
        'original invoice\t637377985',
        '',
      ].join('\n'),
    );
  });

  it('get on a terminal: one rate per line, amounts lined up', async () => {
    const result = await runDouble(['invoices', 'get', '278193007'], service, TERMINAL);
    expect(result.stdout).toContain(
      [
        '│ amount excl      │   -€ 993.10                       │',
        '│ amount incl      │ -€ 1,104.72                       │',
        '│ tax rates        │ 21.00%: -€ 59.90;                 │',
        '│                  │ 9.00%: -€ 36.72;                  │',
        '│                  │ 5.00%: -€ 15.00                   │',
      ].join('\n'),
    );
  });

  it('get takes a number only: exit 2, nothing sent', async () => {
    expect(await runDouble(['invoices', 'get', 'INV-7'], service)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: ID must be a positive whole number, not "INV-7"\n',
      requests: [],
    });
  });

  it('lines ID lists GET /invoices/ID/lines: description, quantity, unit amounts (€), the rate in percent and the line total', async () => {
    const result = await runDouble(['invoices', 'lines', ID, '--page', '2', '--page-size', '50'], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      {
        method: 'GET',
        path: `/invoices/${ID}/lines`,
        query: { include: undefined, 'page[number]': 2, 'page[size]': 50 },
      },
    ]);
    expect(result.stdout).toBe(
      'id\tdescription\tquantity\tunit excl\ttax rate\tunit incl\ttotal incl\n1562050264\tlunchbox\t2\t€ 10.00\t21.00%\t€ 12.10\t€ 24.20\n',
    );
    expect(result.stderr).toBe('page 1 of 1, 1 line\n');
  });

  it('lines ID on a terminal: "unit" where the amount is per unit, the line total beside it, numbers right-aligned', async () => {
    const result = await runDouble(['invoices', 'lines', ID], service, TERMINAL);
    // On 80 columns the unit amount excluding tax gives way first.
    expect(result.stdout.split('\n').slice(1, 4)).toEqual([
      '│ id         │ description │ quantity │ tax rate │ unit incl │ total incl │',
      '├────────────┼─────────────┼──────────┼──────────┼───────────┼────────────┤',
      '│ 1562050264 │ lunchbox    │        2 │   21.00% │   € 12.10 │    € 24.20 │',
    ]);
    const wide = await runDouble(['invoices', 'lines', ID], service, { ...TERMINAL, columns: 100 });
    expect(wide.stdout.split('\n')[3]).toBe(
      '│ 1562050264 │ lunchbox    │        2 │   € 10.00 │   21.00% │   € 12.10 │    € 24.20 │',
    );
  });

  it('an invoice without lines says so', async () => {
    expect(await runDouble(['invoices', 'lines', '5'], () => ({ status: 200, body: collection([]) }))).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'no lines\n',
    });
  });
});

describe('invoices create and update', () => {
  it('create without flags and no terminal names the missing flag', async () => {
    expect(await runDouble(['invoices', 'create'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: missing required flag: --subscription-id\n',
      requests: [],
    });
  });

  it('create POSTs the flags; the draft is shown, its id on stderr', async () => {
    const answer: Answer = (r) =>
      r.method === 'POST' && r.path === '/invoices' ? { status: 201, body: CREATED } : undefined;
    const result = await runDouble(
      ['invoices', 'create', '--subscription-id', '739578262', '--invoice-date', '2026-12-01', '--no-send-email'],
      answer,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      {
        method: 'POST',
        path: '/invoices',
        body: {
          data: {
            type: 'invoice',
            attributes: { subscription_id: '739578262', invoice_date: '2026-12-01', send_email: false },
          },
        },
      },
    ]);
    expect(result.stderr).toBe('created invoice 795664806\n');
    expect(result.stdout).toContain('reference\tDRAFT\n');
  });

  it('create checks flag values by the schema before sending', async () => {
    const result = await runDouble([
      'invoices',
      'create',
      '--subscription-id',
      '7',
      '--invoice-date',
      '1-12-2026',
      '--original-invoice-id',
      'x',
    ]);
    expect(result).toMatchObject({ code: 2, stdout: '', requests: [] });
    expect(result.stderr).toContain('--invoice-date: must be a date');
    expect(result.stderr).toContain('--original-invoice-id: ');
  });

  it('update PATCHes the given flags only', async () => {
    const answer: Answer = (r) =>
      r.method === 'PATCH' && r.path === `/invoices/${ID}` ? { status: 200, body: DRAFT } : undefined;
    const result = await runDouble(
      ['invoices', 'update', ID, '--invoice-date', '2019-10-04', '--transaction-date', ''],
      answer,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      {
        method: 'PATCH',
        path: `/invoices/${ID}`,
        body: { data: { type: 'invoice', id: ID, attributes: { invoice_date: '2019-10-04', transaction_date: '' } } },
      },
    ]);
    expect(result.stderr).toBe(`updated invoice ${ID}\n`);
  });

  it('update without flags and no terminal: nothing to change (exit 2)', async () => {
    expect(await runDouble(['invoices', 'update', ID])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: nothing to change: give at least one flag (see billing invoices update --help)\n',
      requests: [],
    });
  });
});

describe('invoices finalise', () => {
  const service: Answer = (r) =>
    r.method === 'PATCH' && r.path === `/invoices/${ID}/finalise` ? { status: 200, body: FINALISED } : undefined;

  it('finalise ID: one PATCH without a body; the invoice shown with its reference', async () => {
    const result = await runDouble(['invoices', 'finalise', ID], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([{ method: 'PATCH', path: `/invoices/${ID}/finalise` }]);
    expect(result.requests[0].body).toBeUndefined();
    expect(result.stderr).toBe(`finalised invoice ${ID}\n`);
    expect(result.stdout).toContain('status\topen\nreference\tECUR-1\n');
    expect(result.stdout).toContain('transaction\tb91c9eb1-1331-476e-aed1-344ca19d229d\n');
  });

  it.each([
    ['--send-email', true],
    ['--no-send-email', false],
  ])('%s sends send_email %s', async (flag, sendEmail) => {
    const result = await runDouble(['invoices', 'finalise', ID, flag, '--json'], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      {
        method: 'PATCH',
        path: `/invoices/${ID}/finalise`,
        body: { data: { type: 'invoice', id: ID, attributes: { send_email: sendEmail } } },
      },
    ]);
    expect(JSON.parse(result.stdout)).toEqual(FINALISED);
  });

  it('--dry-run prints the request and sends nothing', async () => {
    const result = await runDouble(['--dry-run', 'invoices', 'finalise', ID, '--no-send-email'], service);
    expect(result).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(printed(result.stdout)).toEqual({
      method: 'PATCH',
      path: `/invoices/${ID}/finalise`,
      body: { data: { type: 'invoice', id: ID, attributes: { send_email: false } } },
    });
  });

  it("a wrong state (already finalised) is the service's error, exit 1", async () => {
    const refuse: Answer = () => ({
      status: 422,
      body: {
        errors: [
          {
            status: '422',
            title: 'Invalid State',
            detail: 'only a draft can be finalised',
            source: { pointer: '/data' },
          },
        ],
      },
    });
    const result = await runDouble(['invoices', 'finalise', ID], refuse);
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: Invalid State: only a draft can be finalised\n',
    });
  });

  it('finalize (the American spelling) is finalise by another name', async () => {
    const result = await runDouble(['invoices', 'finalize', ID], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([{ method: 'PATCH', path: `/invoices/${ID}/finalise` }]);
    expect((await runDouble(['invoices', '--help'])).stdout).toMatch(/finalise\|finalize/);
  });

  it('stays light: nothing it imports (statically) brings zod', async () => {
    const { metafile } = await build({
      absWorkingDir: fileURLToPath(new URL('../..', import.meta.url)),
      entryPoints: ['src/commands/invoices/finalise.ts'],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    const loaded = new Set<string>();
    const visit = (path: string) => {
      if (loaded.has(path)) return;
      loaded.add(path);
      for (const i of metafile.inputs[path]?.imports ?? []) if (i.kind === 'import-statement') visit(i.path);
    };
    visit('src/commands/invoices/finalise.ts');
    expect(loaded.has('src/lib/command/resource.ts')).toBe(true);
    expect(loaded.has('zod')).toBe(false);
  });
});

describe('invoices pay', () => {
  it('one PATCH without a body; the invoice shown paid', async () => {
    const result = await runDouble(['invoices', 'pay', ID], (r) =>
      r.method === 'PATCH' && r.path === `/invoices/${ID}/pay` ? { status: 200, body: PAID } : undefined,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([{ method: 'PATCH', path: `/invoices/${ID}/pay` }]);
    expect(result.requests[0].body).toBeUndefined();
    expect(result.stderr).toBe(`recorded the payment of invoice ${ID}\n`);
    expect(result.stdout).toContain('status\tpaid\n');
  });

  it('--dry-run sends nothing', async () => {
    const result = await runDouble(['--dry-run', 'invoices', 'pay', ID]);
    expect(result).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(printed(result.stdout)).toEqual({ method: 'PATCH', path: `/invoices/${ID}/pay`, body: null });
  });
});

/** The invoice as GET shows it (open, ECUR-1, € 12.10) and its customer (Jeroen van der Geer). */
const current: Answer = (r) =>
  r.method !== 'GET'
    ? undefined
    : r.path === `/invoices/${ID}`
      ? { status: 200, body: FINALISED }
      : r.path === `/invoices/${ID}/customer`
        ? { status: 200, body: CUSTOMER }
        : undefined;

describe('invoices credit', () => {
  const service: Answer = (r) =>
    r.method === 'PATCH' && r.path === `/invoices/${ID}/credit` ? { status: 200, body: CREDIT } : current(r);
  // The invoice named by its reference, with its amount and its customer: looked up before asking.
  const QUESTION = `Credit invoice ECUR-1 (€ 12.10, Jeroen van der Geer)? A draft credit invoice with the negated lines is made.`;
  const LOOKUPS = [
    ['GET', `/invoices/${ID}`],
    ['GET', `/invoices/${ID}/customer`],
  ];

  it('without a terminal it needs --yes (exit 2, nothing sent)', async () => {
    expect(await runDouble(['invoices', 'credit', ID], service)).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: credit invoice ${ID} cannot be undone: add --yes to confirm (there is no terminal to ask at)\n`,
      requests: [],
    });
  });

  it('with --yes: PATCH …/credit without a body; the new draft printed, both ids on stderr', async () => {
    const result = await runDouble(['invoices', 'credit', ID, '--yes', '--json'], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([{ method: 'PATCH', path: `/invoices/${ID}/credit` }]);
    expect(result.requests[0].body).toBeUndefined();
    expect(result.stderr).toBe(`credited invoice ${ID}: draft credit invoice 278193007\n`);
    expect(JSON.parse(result.stdout)).toEqual(CREDIT);
  });

  it('on a terminal it asks; yes credits', async () => {
    const prompter = fakePrompter([true]);
    const result = await runDouble(['invoices', 'credit', ID], service, { prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => [q.kind, q.message, q.default])).toEqual([['confirm', QUESTION, false]]);
    expect(result.requests.map((r) => [r.method, r.path])).toEqual([...LOOKUPS, ['PATCH', `/invoices/${ID}/credit`]]);
  });

  it('--line: the question says how many lines of which invoice', async () => {
    const prompter = fakePrompter([false]);
    await runDouble(['invoices', 'credit', ID, '--line', '31', '--line', '32:1'], service, { prompter });
    expect(prompter.asked[0].message).toBe(
      'Credit 2 lines of invoice ECUR-1 (€ 12.10, Jeroen van der Geer)? A draft credit invoice with them negated is made.',
    );
  });

  it('on a terminal, no is exit 2 and nothing is sent', async () => {
    const result = await runDouble(['invoices', 'credit', ID], service, { prompter: fakePrompter([false]) });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `error: credit invoice ${ID}: not confirmed, nothing changed\n`,
    });
    expect(result.requests.map((r) => [r.method, r.path])).toEqual(LOOKUPS);
  });

  it('a draft, or a credit invoice, is refused before anything is asked (exit 2, nothing sent)', async () => {
    const answering =
      (data: unknown): Answer =>
      (r) =>
        r.method === 'GET' && r.path === `/invoices/${ID}` ? { status: 200, body: { data } } : current(r);
    const prompter = fakePrompter([]);
    const draft = await runDouble(['invoices', 'credit', ID], answering(DRAFT.data), { prompter });
    expect(draft).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `error: invoice ${ID} is a draft: change or delete it; only a finalised invoice is credited (nothing changed)\n`,
    });
    const credit = {
      ...FINALISED.data,
      relationships: { ...FINALISED.data.relationships, 'original-invoice': { data: { type: 'invoice', id: '5' } } },
    };
    const refused = await runDouble(['invoices', 'credit', ID], answering(credit), { prompter });
    expect(refused).toMatchObject({
      code: 2,
      stderr: `error: invoice ${ID} is a credit invoice of invoice 5: a credit invoice cannot be credited (nothing changed)\n`,
    });
    expect(prompter.asked).toEqual([]);
    expect([...draft.requests, ...refused.requests].filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it("a server without the invoice's customer link: the customer by its id", async () => {
    const prompter = fakePrompter([false]);
    const bare: Answer = (r) => (r.path.endsWith('/customer') ? undefined : service(r));
    await runDouble(['invoices', 'credit', ID], bare, { prompter });
    expect(prompter.asked[0].message).toMatch(/^Credit invoice ECUR-1 \(€ 12\.10, customer 149526343\)\?/);
  });

  it('--dry-run asks nothing, prints the request, sends nothing', async () => {
    const prompter = fakePrompter([]);
    const result = await runDouble(['--dry-run', 'invoices', 'credit', ID], service, { prompter });
    expect(result).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(printed(result.stdout)).toEqual({ method: 'PATCH', path: `/invoices/${ID}/credit`, body: null });
    expect(prompter.asked).toEqual([]);
  });
});

describe.each([
  [
    'invoices',
    '/invoices',
    'invoice',
    'Delete draft invoice 42 (€ 12.10, Jeroen van der Geer)? This cannot be undone.',
  ],
  ['lines', '/invoice-lines', 'invoice line', 'Delete invoice line 42 (lunchbox, € 24.20)? This cannot be undone.'],
])('%s delete', (group, path, noun, question) => {
  // What it deletes as GET shows it: a draft invoice of Jeroen's, a line of two lunchboxes.
  const service: Answer = (r) =>
    r.method === 'DELETE' && r.path === `${path}/42`
      ? { status: 204 }
      : r.path === `${path}/42`
        ? { status: 200, body: { data: { ...(group === 'lines' ? LINE : DRAFT).data, id: '42' } } }
        : r.path === '/invoices/42/customer'
          ? { status: 200, body: CUSTOMER }
          : undefined;

  it('without a terminal it needs --yes (exit 2, nothing sent)', async () => {
    expect(await runDouble([group, 'delete', '42'], service)).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: delete ${noun} 42 cannot be undone: add --yes to confirm (there is no terminal to ask at)\n`,
      requests: [],
    });
  });

  it('with --yes: one DELETE; the 204 is said on stderr, nothing on stdout even with --json', async () => {
    const result = await runDouble([group, 'delete', '42', '--yes', '--json'], service);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: `deleted ${noun} 42\n`,
      requests: [{ method: 'DELETE', path: `${path}/42` }],
    });
  });

  it('--quiet says nothing', async () => {
    expect(await runDouble([group, 'delete', '42', '--yes', '--quiet'], service)).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('on a terminal it asks, naming what it deletes; no sends nothing, yes deletes', async () => {
    const declined = fakePrompter([false]);
    const no = await runDouble([group, 'delete', '42'], service, { prompter: declined });
    expect(no).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `error: delete ${noun} 42: not confirmed, nothing changed\n`,
    });
    expect(no.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(declined.asked.map((q) => [q.kind, q.message])).toEqual([['confirm', question]]);
    const confirmed = await runDouble([group, 'delete', '42'], service, { prompter: fakePrompter([true]) });
    expect(confirmed.code).toBe(0);
    expect(confirmed.requests.filter((r) => r.method !== 'GET')).toEqual([{ method: 'DELETE', path: `${path}/42` }]);
  });

  it('--dry-run prints the DELETE, asks and sends nothing', async () => {
    const result = await runDouble(['--dry-run', group, 'delete', '42'], service);
    expect(result).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(printed(result.stdout)).toEqual({ method: 'DELETE', path: `${path}/42`, body: null });
  });

  it("a refusal (not a draft) is exit 1 with the service's error", async () => {
    const result = await runDouble([group, 'delete', '42', '--yes'], () =>
      invalidState('only a draft can be changed', '/data'),
    );
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: Invalid State: only a draft can be changed\n',
    });
  });
});

describe('invoices delete of a finalised invoice', () => {
  it('is refused before anything is asked: crediting undoes it (exit 2, nothing sent)', async () => {
    const prompter = fakePrompter([]);
    const result = await runDouble(['invoices', 'delete', ID], current, { prompter });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `error: invoice ${ID} is open: only a draft can be deleted; a finalised invoice is undone by crediting it (billing invoices credit ${ID}); nothing changed\n`,
    });
    expect(prompter.asked).toEqual([]);
    expect(result.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
describe('lines get, create and update', () => {
  const CREATED_LINE = fixture('invoiceline-create-invoice-line');

  it('get shows the rate in percent, the unit amounts in euro, and the line total', async () => {
    const result = await runDouble(['lines', 'get', '1562050264'], (r) =>
      r.path === '/invoice-lines/1562050264' ? { status: 200, body: LINE } : undefined,
    );
    expect(result.requests).toEqual([{ method: 'GET', path: '/invoice-lines/1562050264', query: {} }]);
    expect(result.stdout).toContain(
      'unit excl\t€ 10.00\nunit incl\t€ 12.10\ntax rate\t21.00%\nunit tax\t€ 2.10\ntax included\tno\nquantity\t2\ntotal incl\t€ 24.20\n',
    );
  });

  it('create without flags and no terminal names every missing flag', async () => {
    expect(await runDouble(['lines', 'create'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: missing required flags: --invoice-id, --description, --amount, --tax-rate\n',
      requests: [],
    });
  });

  it('create POSTs to /invoice-lines; decimals typed the Dutch way, and a negative amount, are read', async () => {
    const answer: Answer = (r) =>
      r.method === 'POST' && r.path === '/invoice-lines' ? { status: 201, body: CREATED_LINE } : undefined;
    const result = await runDouble(
      [
        'lines',
        'create',
        '--invoice-id',
        ID,
        '--description',
        'Discount',
        '--amount',
        '-12,50',
        '--tax-rate',
        '9,5',
        '--quantity',
        '2',
        '--no-tax-included',
      ],
      answer,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      {
        method: 'POST',
        path: '/invoice-lines',
        body: {
          data: {
            type: 'invoice-line',
            attributes: {
              invoice_id: ID,
              description: 'Discount',
              amount: '-12.50',
              tax_rate: '9.5',
              tax_included: false,
              quantity: '2',
            },
          },
        },
      },
    ]);
    expect(result.stderr).toBe('created invoice line 1562050264\n');
  });

  it.each([
    [['--tax-rate', '101'], '--tax-rate: must be a percentage from 0 to 100 with at most two decimals'],
    [['--quantity', '0'], '--quantity: '],
    [['--amount', '12,500'], '--amount: '],
  ])('create %j: exit 2 naming the flag, nothing sent', async (flags, message) => {
    const result = await runDouble([
      'lines',
      'create',
      '--invoice-id',
      ID,
      '--description',
      'Box',
      '--amount',
      '10',
      '--tax-rate',
      '21',
      ...flags,
    ]);
    expect(result).toMatchObject({ code: 2, stdout: '', requests: [] });
    expect(result.stderr).toContain(`error: ${message}`);
  });

  it('create on a terminal picks the invoice from the drafts only, told by their customer, then asks the rest', async () => {
    const answer: Answer = (r) => {
      if (r.method === 'GET' && r.path === '/invoices') {
        // As the service filters: a draft only when drafts are asked for.
        const invoices = [
          resource('invoice', '12', { reference: 'INV-7', amount_incl: '12.10', status: 'open' }),
          resource(
            'invoice',
            '13',
            { reference: 'DRAFT', amount_incl: '0.00', status: 'draft' },
            { customer: { data: { type: 'customer', id: '42' } } },
          ),
        ].filter((i) => r.query?.['filter[status]'] === undefined || i.attributes.status === r.query['filter[status]']);
        const customer = resource('customer', '42', { first_name: 'Jan', last_name: 'Jansen' });
        return { status: 200, body: { ...collection(invoices), included: r.query?.include ? [customer] : undefined } };
      }
      if (r.method === 'POST' && r.path === '/invoice-lines') return { status: 201, body: CREATED_LINE };
      return undefined;
    };
    const prompter = fakePrompter(['jansen=>13', 'Lunchbox', '10,00', '21']);
    const result = await runDouble(['lines', 'create'], answer, { prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked[0].choices).toEqual([{ value: '13', name: '13  DRAFT · Jan Jansen (0.00)' }]);
    expect(prompter.asked.map((q) => q.kind)).toEqual(['search', 'text', 'text', 'text']);
    // First whether there is a draft at all, then what was typed, searched by the service among the drafts.
    expect(result.requests.slice(0, 2)).toEqual([
      { method: 'GET', path: '/invoices', query: { 'filter[status]': 'draft', 'page[size]': 1 } },
      {
        method: 'GET',
        path: '/invoices',
        query: { 'filter[status]': 'draft', 'page[size]': 20, include: 'customer', 'filter[search]': 'jansen' },
      },
    ]);
    expect(result.requests[2]).toEqual({
      method: 'POST',
      path: '/invoice-lines',
      body: {
        data: {
          type: 'invoice-line',
          attributes: { invoice_id: 13, description: 'Lunchbox', amount: '10.00', tax_rate: '21' },
        },
      },
    });
  });

  it('create on a terminal with no draft says so before asking anything (exit 2)', async () => {
    const answer: Answer = (r) =>
      r.method === 'GET' && r.path === '/invoices'
        ? {
            status: 200,
            body: collection(
              r.query?.['filter[status]'] === 'draft'
                ? []
                : [resource('invoice', '12', { reference: 'INV-7', status: 'open' })],
            ),
          }
        : undefined;
    const prompter = fakePrompter([]);
    const result = await runDouble(['lines', 'create'], answer, { prompter });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'error: there is no draft invoice to choose from\nhint: make one with `billing invoices create`\n',
    });
    expect(prompter.asked).toEqual([]);
    expect(result.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('update PATCHes the given flags only', async () => {
    const result = await runDouble(['--dry-run', 'lines', 'update', '1562050264', '--quantity', '7']);
    expect(result).toMatchObject({ code: 0, requests: [] });
    expect(printed(result.stdout)).toEqual({
      method: 'PATCH',
      path: '/invoice-lines/1562050264',
      body: { data: { type: 'invoice-line', id: '1562050264', attributes: { quantity: '7' } } },
    });
  });
});

// ---- audit ----

const finalised = (...references: string[]): Referenced[] =>
  references.map((reference, i) => ({ id: String(i + 1), status: 'open', reference }));

describe('auditReferences', () => {
  it('1..N without gaps or duplicates is ok; drafts are not counted', () => {
    const audit = auditReferences([
      ...finalised('INV-1', 'INV-2', 'INV-3'),
      { id: '9', status: 'draft', reference: 'DRAFT' },
    ]);
    expect(audit).toEqual({ invoices: 3, first: 1, last: 3, gaps: [], duplicates: [], malformed: [], ok: true });
    expect(auditReport(audit)).toBe('3 finalised invoices, references 1 to 3: no gaps, no duplicates\n');
  });

  it('gaps, at the start too, as ranges', () => {
    const audit = auditReferences(finalised('INV-3', 'INV-4', 'INV-6', 'INV-10'));
    expect(audit).toMatchObject({
      invoices: 4,
      first: 3,
      last: 10,
      gaps: [
        [1, 2],
        [5, 5],
        [7, 9],
      ],
      ok: false,
    });
    expect(auditReport(audit)).toBe('4 finalised invoices, references 3 to 10\nmissing: 1-2, 5, 7-9\n');
    expect(auditVerdict(audit)).toBe('6 numbers missing');
  });

  it('a number given twice is a duplicate under any prefix, and so is a reference given twice', () => {
    const audit = auditReferences(finalised('INV-1', 'OLD-2', 'INV-2', 'INV-3', 'INV-3', 'INV-003'));
    expect(audit.gaps).toEqual([]);
    expect(audit.duplicates).toEqual([
      {
        number: 2,
        invoices: [
          { id: '2', reference: 'OLD-2' },
          { id: '3', reference: 'INV-2' },
        ],
      },
      {
        number: 3,
        invoices: [
          { id: '4', reference: 'INV-3' },
          { id: '5', reference: 'INV-3' },
          { id: '6', reference: 'INV-003' },
        ],
      },
    ]);
    expect(audit.ok).toBe(false);
    expect(auditReport(audit)).toBe(
      '6 finalised invoices, references 1 to 3\nduplicate 2: invoices 2 (OLD-2), 3 (INV-2)\nduplicate 3: invoices 4 (INV-3), 5 (INV-3), 6 (INV-003)\n',
    );
    expect(auditVerdict(audit)).toBe('2 numbers given twice or more');
  });

  it('a reference without a number at its end (or none, or 0) is malformed; a finalised invoice still called DRAFT too', () => {
    const audit = auditReferences([
      ...finalised('INV-1', 'INV-X', 'INV-0'),
      { id: '7', status: 'open', reference: null },
      { id: '8', status: 'paid', reference: 'DRAFT' },
    ]);
    expect(audit).toMatchObject({ invoices: 5, first: 1, last: 1, gaps: [], duplicates: [], ok: false });
    expect(audit.malformed).toEqual([
      { id: '2', reference: 'INV-X' },
      { id: '3', reference: 'INV-0' },
      { id: '7', reference: null },
      { id: '8', reference: 'DRAFT' },
    ]);
    expect(auditReport(audit)).toBe(
      '5 finalised invoices, references 1 to 1\nmalformed: invoices 2 (INV-X), 3 (INV-0), 7 (no reference), 8 (DRAFT)\n',
    );
    expect(auditVerdict(audit)).toBe('4 malformed references');
  });

  it('a far-off number is one range, not billions of numbers', () => {
    const audit = auditReferences(finalised('INV-1', 'INV-9000000000'));
    expect(audit.gaps).toEqual([[2, 8999999999]]);
  });

  it('no finalised invoice: nothing to check, ok', () => {
    const audit = auditReferences([{ id: '1', status: 'draft', reference: 'DRAFT' }]);
    expect(audit).toEqual({ invoices: 0, first: null, last: null, gaps: [], duplicates: [], malformed: [], ok: true });
    expect(auditReport(audit)).toBe('no finalised invoices: nothing to check\n');
  });

  it('control characters in a reference never reach the terminal', () => {
    expect(auditReport(auditReferences(finalised('INV-1', '\u001b[2JX')))).toContain('2 (\\x1b[2JX)');
  });
});

describe('invoices audit', () => {
  const NEXT =
    'http://127.0.0.1:8080/invoices?page%5Bnumber%5D=2&page%5Bsize%5D=100&fields%5Binvoice%5D=reference%2Cstatus';
  const page = (data: unknown[], next: string | null, total: number) => ({ meta: { total }, links: { next }, data });
  const slim = (id: string, status: string, reference: string) => resource('invoice', id, { status, reference });
  /** Two pages: the second reached through links.next. */
  const twoPages =
    (second: unknown[]): Answer =>
    (r) => {
      if (r.method === 'GET' && r.path === '/invoices')
        return {
          status: 200,
          body: page(
            [slim('1', 'paid', 'INV-1'), slim('2', 'draft', 'DRAFT'), slim('3', 'open', 'INV-2')],
            NEXT,
            3 + second.length,
          ),
        };
      if (r.method === 'GET' && r.path === NEXT) return { status: 200, body: page(second, null, 3 + second.length) };
      return undefined;
    };

  it('reads every page (100 at a time, reference and status only); all in order is exit 0', async () => {
    const result = await runDouble(
      ['invoices', 'audit'],
      twoPages([slim('4', 'completed', 'INV-3'), slim('5', 'open', 'NEW-4')]),
    );
    expect(result).toMatchObject({
      code: 0,
      stdout: '4 finalised invoices, references 1 to 4: no gaps, no duplicates\n',
      stderr: '',
    });
    expect(result.requests).toEqual([
      { method: 'GET', path: '/invoices', query: { 'page[size]': 100, 'fields[invoice]': 'reference,status' } },
      { method: 'GET', path: NEXT },
    ]);
  });

  it('a gap and a duplicate: reported, exit 1 saying what is wrong', async () => {
    const result = await runDouble(
      ['invoices', 'audit'],
      twoPages([slim('4', 'open', 'INV-2'), slim('5', 'open', 'INV-5')]),
    );
    expect(result).toMatchObject({
      code: 1,
      stdout: '4 finalised invoices, references 1 to 5\nmissing: 3-4\nduplicate 2: invoices 3 (INV-2), 4 (INV-2)\n',
      stderr: 'error: invoice references: 2 numbers missing, 1 number given twice or more\n',
    });
  });

  it('--json: one object on stdout, the exit code the same', async () => {
    const bad = await runDouble(
      ['invoices', 'audit', '--json'],
      twoPages([slim('4', 'open', 'INV-2'), slim('5', 'open', 'INV-5'), slim('6', 'open', 'ECUR')]),
    );
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({
      invoices: 5,
      first: 1,
      last: 5,
      gaps: [[3, 4]],
      duplicates: [
        {
          number: 2,
          invoices: [
            { id: '3', reference: 'INV-2' },
            { id: '4', reference: 'INV-2' },
          ],
        },
      ],
      malformed: [{ id: '6', reference: 'ECUR' }],
      ok: false,
    });
    const good = await runDouble(['invoices', 'audit', '--json'], twoPages([]));
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({
      invoices: 2,
      first: 1,
      last: 2,
      gaps: [],
      duplicates: [],
      malformed: [],
      ok: true,
    });
  });

  it('links.next that never ends: stops after the pages announced, exit 1', async () => {
    const loop: Answer = (r) =>
      r.method === 'GET' ? { status: 200, body: page([slim('1', 'open', 'INV-1')], NEXT, 150) } : undefined;
    const result = await runDouble(['invoices', 'audit'], loop);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: stopped following links\.next/);
    expect(result.requests).toHaveLength(3);
  });

  it('a refusal of the service is its error, exit 1', async () => {
    const result = await runDouble(['invoices', 'audit'], () => ({
      status: 500,
      body: { errors: [{ status: '500', title: 'Internal Error', detail: 'boom' }] },
    }));
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'error: Internal Error: boom\n' });
  });
});

describe('help', () => {
  // Every group's and verb's help (examples, 80 columns) is checked in help.test.ts and parse.test.ts.
  it('finalise shows both ways of the email flag', async () => {
    const result = await runDouble(['invoices', 'finalise', '--help']);
    expect(result.stdout).toMatch(/\n {2}--send-email +email the invoice/);
    expect(result.stdout).toMatch(/\n {2}--no-send-email +finalise without emailing/);
  });
});
