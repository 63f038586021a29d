// transactions and notifications: what each verb sends and refuses before sending, how a transaction
// and its history print (from a real response of the hosted service), and simulate's checks. The
// same verbs against the embedded core are in subscriptions-e2e.test.ts.
import { FIXTURES_DIR } from '../remote/helpers.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { notifications } from '../../src/commands/notifications/index.js';
import { transactions } from '../../src/commands/transactions/index.js';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import { collection, doc, overlong, printed, resource, runDouble, type Answer } from './service-double.js';

const ID = 'ffa38848-6abc-4d22-b6b0-63fe1780969c';
/** GET /transactions/{id} of the hosted service: a collection charged back, retried and fulfilled. */
const WITH_HISTORY = JSON.parse(readFileSync(`${FIXTURES_DIR}/transaction-with-history-get.json`, 'utf8')).response
  .body;
const QUEUED = resource('transaction', '0b6f3e0c-1d2a-4c55-8f00-3a1b2c3d4e5f', {
  status: 'queued',
  scheduled_on: null,
  due_date: '2026-12-01T00:00:00+01:00',
  amount: 1234.5,
  canceled_on: null,
  webhook_url: null,
  payment_method: 'directdebit',
  description: 'Monthly box',
  history: [],
});
const CANCELED = {
  ...WITH_HISTORY,
  data: {
    ...WITH_HISTORY.data,
    attributes: { ...WITH_HISTORY.data.attributes, status: 'canceled', canceled_on: '2026-11-21T11:00:00+01:00' },
  },
};

const TERMINAL = { tty: true, env: { NO_COLOR: '1' } };

describe('transactions get', () => {
  const service: Answer = (r) => (r.path === `/transactions/${ID}` ? { status: 200, body: WITH_HISTORY } : undefined);

  it.each(['42', 'ffa3884', `${ID}0`, 'ffa38848-6abc-4d22-b6b0-63fe1780969g'])(
    '%s is not a transaction id nor the start of one: exit 2, nothing sent',
    async (id) => {
      expect(await runDouble(['transactions', 'get', id], service)).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ID must be a transaction id: a UUID such as ffa38848-6abc-4d22-b6b0-63fe1780969c, or its first 8 hex digits or more (ffa38848), not "${id}"\n`,
        requests: [],
      });
    },
  );

  it('the start of an id is looked up by GET /transactions?filter[id_prefix], then got whole', async () => {
    const found: Answer = (r) =>
      r.path === '/transactions'
        ? { status: 200, body: { data: [WITH_HISTORY.data], meta: { total: 1 } } }
        : service(r);
    const result = await runDouble(['transactions', 'get', 'ffa38848', '--json'], found);
    expect(result.code, result.stderr).toBe(0);
    expect(result.requests.map((r) => [r.path, r.query])).toEqual([
      ['/transactions', { 'filter[id_prefix]': 'ffa38848', 'page[size]': 10, sort: 'created_at' }],
      [`/transactions/${ID}`, {}],
    ]);
  });

  it('a UUID in capitals is the same transaction', async () => {
    const result = await runDouble(['transactions', 'get', ID.toUpperCase(), '--json'], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([{ method: 'GET', path: `/transactions/${ID}`, query: {} }]);
    expect(JSON.parse(result.stdout)).toEqual(WITH_HISTORY);
  });

  it('on a terminal: money with a euro sign, and the history one item per line', async () => {
    const result = await runDouble(['transactions', 'get', ID], service, TERMINAL);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        '┌────────────────┬─────────────────────────────────────────────────────────────┐',
        '│ id             │ ffa38848-6abc-4d22-b6b0-63fe1780969c                        │',
        '│ status         │ fulfilled                                                   │',
        '│ scheduled on   │ 2017-11-01 11:35 +01:00                                     │',
        '│ due date       │ 2017-11-07                                                  │',
        '│ amount         │ € 50.60                                                     │',
        '│ payment method │ directdebit                                                 │',
        '│ history        │ 2017-11-01 11:35 +01:00 scheduled;                          │',
        '│                │ 2017-11-02 07:00 +01:00 succeeded;                          │',
        '│                │ 2017-11-06 04:14 +01:00 fulfilled;                          │',
        '│                │ 2017-11-10 03:43 +01:00 charged_back AM04 Insufficient      │',
        '│                │ funds;                                                      │',
        '│                │ 2017-11-10 03:43 +01:00 rescheduled → 2017-11-13;           │',
        '│                │ 2017-11-13 07:00 +01:00 succeeded (attempt 2);              │',
        '│                │ 2017-11-14 03:54 +01:00 fulfilled (attempt 2)               │',
        '└────────────────┴─────────────────────────────────────────────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('without a terminal: field<TAB>value, the history on one line', async () => {
    const result = await runDouble(['transactions', 'get', ID], service);
    const history = result.stdout.split('\n').find((line) => line.startsWith('history\t'));
    expect(history).toBe(
      'history\t2017-11-01 11:35 +01:00 scheduled; 2017-11-02 07:00 +01:00 succeeded; 2017-11-06 04:14 +01:00 fulfilled; ' +
        '2017-11-10 03:43 +01:00 charged_back AM04 Insufficient funds; 2017-11-10 03:43 +01:00 rescheduled → 2017-11-13; ' +
        '2017-11-13 07:00 +01:00 succeeded (attempt 2); 2017-11-14 03:54 +01:00 fulfilled (attempt 2)',
    );
    expect(result.stdout).toContain('amount\t€ 50.60\n');
  });
});

describe('transactions list', () => {
  // GET /transactions: the customer and the last reason in each resource's meta.
  const across = [
    {
      ...WITH_HISTORY.data,
      attributes: { ...WITH_HISTORY.data.attributes, status: 'charged_back' },
      meta: {
        customer: { id: '3', name: 'Anna van der Berg-Hoogeveen' },
        reason_code: 'MD06',
        reason: 'Refund requested by the debtor',
      },
    },
    { ...QUEUED, meta: { customer: { id: '4', name: 'Bert Bakker' }, reason_code: null, reason: null } },
  ];
  const account: Answer = (r) => (r.path === '/transactions' ? { status: 200, body: collection(across) } : undefined);
  const service: Answer = (r) =>
    r.path === '/subscriptions/7/transactions'
      ? { status: 200, body: collection([WITH_HISTORY.data, QUEUED]) }
      : undefined;

  it('without --subscription-id lists the account (GET /transactions), with every filter; --status repeats', async () => {
    const result = await runDouble(
      [
        'transactions',
        'list',
        '--status',
        'charged_back',
        '--status',
        'failed',
        '--reason-code',
        'am04',
        '--due-from',
        '2026-11-01',
        '--due-to',
        '2026-11-30',
        '--customer-id',
        '42',
      ],
      account,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      {
        method: 'GET',
        path: '/transactions',
        query: {
          include: undefined,
          'filter[status]': 'charged_back,failed',
          sort: undefined,
          'filter[reason_code]': 'AM04',
          'filter[due_from]': '2026-11-01',
          'filter[due_to]': '2026-11-30',
          'filter[customer_id]': '42',
          'filter[subscription_id]': undefined,
          'page[number]': undefined,
          'page[size]': undefined,
        },
      },
    ]);
  });

  it('--subscription-id with a filter of the account list asks the account list for that subscription', async () => {
    const result = await runDouble(
      ['transactions', 'list', '--subscription-id', '7', '--reason-code', 'MD06'],
      account,
    );
    expect(result.requests).toMatchObject([
      { path: '/transactions', query: { 'filter[reason_code]': 'MD06', 'filter[subscription_id]': '7' } },
    ]);
  });

  it('the account list: customer, code and reason on 80 columns, the id giving way; short ids when wider; all of them, ids whole, without a terminal', async () => {
    const onTerminal = await runDouble(['transactions', 'list'], account, { ...TERMINAL, columns: 80 });
    expect(onTerminal.stdout).toBe(
      [
        '┌──────────────┬────────────┬────────────┬──────────────┬──────┬───────────────┐',
        '│ status       │ due date   │     amount │ customer     │ code │ reason        │',
        '├──────────────┼────────────┼────────────┼──────────────┼──────┼───────────────┤',
        '│ charged_back │ 2017-11-07 │    € 50.60 │ Anna van de… │ MD06 │ Refund reque… │',
        '│ queued       │ 2026-12-01 │ € 1,234.50 │ Bert Bakker  │      │               │',
        '└──────────────┴────────────┴────────────┴──────────────┴──────┴───────────────┘',
        '',
      ].join('\n'),
    );
    const wide = (await runDouble(['transactions', 'list'], account, { ...TERMINAL, columns: 100 })).stdout.split('\n');
    expect(wide[3]).toMatch(/^│ ffa38848 │ charged_back │/);
    expect(wide[4]).toMatch(/^│ 0b6f3e0c │ queued /);
    for (const line of onTerminal.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    const piped = await runDouble(['transactions', 'list'], account);
    expect(piped.stdout.split('\n')[0]).toBe(
      'id\tstatus\tdue date\tamount\tcustomer\tcode\treason\tpayment method\tdescription\tattempts',
    );
    expect(piped.stdout.split('\n')[1]).toBe(
      `${ID}\tcharged_back\t2017-11-07\t€ 50.60\tAnna van der Berg-Hoogeveen\tMD06\tRefund requested by the debtor\tdirectdebit\t\t2`,
    );
  });

  it('lists GET /subscriptions/{id}/transactions, with --status and --sort', async () => {
    const result = await runDouble(
      ['transactions', 'list', '--subscription-id', '7', '--status', 'queued', '--sort', '-created_at', '--page', '2'],
      service,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      {
        method: 'GET',
        path: '/subscriptions/7/transactions',
        query: {
          include: undefined,
          'filter[status]': 'queued',
          sort: '-created_at',
          'page[number]': 2,
          'page[size]': undefined,
        },
      },
    ]);
  });

  it('columns: id, status, due date, amount (€, two decimals), payment method, description, attempts', async () => {
    const result = await runDouble(['transactions', 'list', '--subscription-id', '7'], service);
    expect(result.stdout).toBe(
      [
        'id\tstatus\tdue date\tamount\tpayment method\tdescription\tattempts',
        `${ID}\tfulfilled\t2017-11-07\t€ 50.60\tdirectdebit\t\t2`,
        '0b6f3e0c-1d2a-4c55-8f00-3a1b2c3d4e5f\tqueued\t2026-12-01\t€ 1,234.50\tdirectdebit\tMonthly box\t',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe('page 1 of 1, 2 transactions\n');
  });

  it('on a narrow terminal the id shows as its start (what `transactions get` takes) and the amount stays whole; other columns give way', async () => {
    const result = await runDouble(['transactions', 'list', '--subscription-id', '7'], service, {
      ...TERMINAL,
      columns: 70,
    });
    const lines = result.stdout.split('\n');
    expect(lines[1]).toMatch(/^│ id +│ status +│.* +amount │/);
    expect(lines[3]).toMatch(/^│ ffa38848 │ fulfilled +│.* +€ 50\.60 │/);
    expect(lines[4]).toContain('│ € 1,234.50 │');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(70);
  });

  it.each([
    [['--subscription-id', 'x'], 'error: --subscription-id must be a positive whole number, not "x"\n'],
    [['--due-from', '2026-02-30'], 'error: --due-from must be a day, YYYY-MM-DD (2027-01-31), not "2026-02-30"\n'],
    [
      ['--due-from', '2026-12-01', '--due-to', '2026-11-01'],
      'error: --due-from 2026-12-01 is after --due-to 2026-11-01: nothing could be found\n',
    ],
    [
      ['--reason-code', 'AM4'],
      'error: --reason-code must be a SEPA reason code, 4 letters and digits (e.g. AM04), not "AM4"\n',
    ],
    [['--customer-id', '0'], 'error: --customer-id must be a positive whole number, not "0"\n'],
    [
      ['--subscription-id', '7', '--status', 'paid'],
      'error: --status: must be one of: queued, scheduled, succeeded, fulfilled, charged_back, failed, rescheduled, canceled (not "paid")\n',
    ],
    [
      ['--subscription-id', '7', '--sort', 'amount'],
      'error: --sort takes one of due_date, created_at, with a leading - for descending order (e.g. -created_at), not "amount"\n',
    ],
  ])('%j: exit 2 naming the flag', async (flags, stderr) => {
    expect(await runDouble(['transactions', 'list', ...flags], service)).toEqual({
      code: 2,
      stdout: '',
      stderr,
      requests: [],
    });
  });
});

describe('transactions create', () => {
  it('without flags and no terminal names every missing flag', async () => {
    expect(await runDouble(['transactions', 'create'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: missing required flags: --subscription-id, --amount\n',
      requests: [],
    });
  });

  it("--dry-run: the amount as typed the Dutch way is the request's 12.50", async () => {
    const result = await runDouble([
      '--dry-run',
      'transactions',
      'create',
      '--subscription-id',
      '7',
      '--amount',
      '12,50',
      '--due-date',
      '2026-12-15',
      '--description',
      'Extra box',
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(printed(result.stdout)).toEqual({
      method: 'POST',
      path: '/transactions',
      body: {
        data: {
          type: 'transaction',
          attributes: { subscription_id: '7', amount: '12.50', due_date: '2026-12-15', description: 'Extra box' },
        },
      },
    });
  });

  it('bad values are exit 2 naming the flags', async () => {
    const result = await runDouble([
      'transactions',
      'create',
      '--subscription-id',
      '7',
      '--amount',
      '0',
      '--due-date',
      '15-12-2026',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--amount: must be at least 0.01');
    expect(result.stderr).toContain('--due-date: must be a date');
  });

  it('on a terminal the subscription is picked from a searchable list of the active ones', async () => {
    const answer: Answer = (r) => {
      if (r.method === 'GET' && r.path === '/subscriptions')
        return {
          status: 200,
          body: collection([resource('subscription', '7', { mandate_code: 'MNDT-7', status: 'active' })]),
        };
      if (r.method === 'POST' && r.path === '/transactions') return { status: 201, body: doc(QUEUED) };
      return undefined;
    };
    const prompter = fakePrompter(['MNDT=>7']);
    const result = await runDouble(['transactions', 'create', '--amount', '25'], answer, { prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => [q.kind, q.message])).toEqual([['search', 'Subscription: type to search']]);
    expect(result.requests[0]).toEqual({
      method: 'GET',
      path: '/subscriptions',
      query: { 'filter[status]': 'active', 'page[size]': 1 },
    });
    expect(result.requests[1]).toMatchObject({
      method: 'GET',
      path: '/subscriptions',
      query: { 'filter[status]': 'active', 'filter[search]': 'MNDT' },
    });
    expect(result.requests[2]).toEqual({
      method: 'POST',
      path: '/transactions',
      body: { data: { type: 'transaction', attributes: { amount: '25', subscription_id: 7 } } },
    });
    expect(result.stderr).toBe('created transaction 0b6f3e0c-1d2a-4c55-8f00-3a1b2c3d4e5f\n');
  });
});

describe('transactions cancel', () => {
  let deleted = false;
  const service: Answer = (r) => {
    if (r.method === 'DELETE' && r.path === `/transactions/${ID}`) {
      deleted = true;
      return { status: 204 };
    }
    if (r.method === 'GET' && r.path === `/transactions/${ID}`)
      return { status: 200, body: deleted ? CANCELED : WITH_HISTORY };
    return undefined;
  };

  it('without a terminal it needs --yes (exit 2, nothing sent)', async () => {
    expect(await runDouble(['transactions', 'cancel', ID], service)).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cancel transaction ${ID} cannot be undone: add --yes to confirm (there is no terminal to ask at)\n`,
      requests: [],
    });
  });

  it('DELETEs it, says so on stderr, then shows it as it is now (status canceled)', async () => {
    deleted = false;
    const result = await runDouble(['transactions', 'cancel', ID, '--yes', '--json'], service);
    expect(result.code).toBe(0);
    expect(result.requests.map((r) => [r.method, r.path])).toEqual([
      ['DELETE', `/transactions/${ID}`],
      ['GET', `/transactions/${ID}`],
    ]);
    expect(result.requests[0]).toEqual({ method: 'DELETE', path: `/transactions/${ID}` });
    expect(result.stderr).toBe(`canceled transaction ${ID}\n`);
    expect(JSON.parse(result.stdout).data.attributes.status).toBe('canceled');
  });

  /** Not yet collected, as the account's list shows it: with its customer's name in meta. */
  const SCHEDULED = {
    ...WITH_HISTORY.data,
    attributes: { ...WITH_HISTORY.data.attributes, status: 'scheduled', history: [] },
    meta: { customer: { id: '42', name: 'Jan Jansen' }, reason_code: null, reason: null },
  };
  const listing: Answer = (r) =>
    r.method === 'GET' && r.path === '/transactions' ? { status: 200, body: collection([SCHEDULED]) } : service(r);

  it('on a terminal it asks, naming the amount, due day and customer; no is exit 2 and nothing is sent', async () => {
    const prompter = fakePrompter([false]);
    const result = await runDouble(['transactions', 'cancel', ID], listing, { prompter });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `error: cancel transaction ${ID}: not confirmed, nothing changed\n`,
    });
    expect(result.requests).toEqual([
      { method: 'GET', path: '/transactions', query: { 'filter[id_prefix]': ID, 'page[size]': 1 } },
    ]);
    expect(prompter.asked.map((q) => [q.kind, q.message])).toEqual([
      ['confirm', 'Cancel transaction ffa38848 (€ 50.60 due 2017-11-07, Jan Jansen)? This cannot be undone.'],
    ]);
  });

  it('a server without the account-wide list: the transaction as its GET shows it', async () => {
    const prompter = fakePrompter([false]);
    const plain: Answer = (r) =>
      r.method === 'GET' && r.path === `/transactions/${ID}` ? { status: 200, body: { data: SCHEDULED } } : undefined;
    const result = await runDouble(['transactions', 'cancel', ID], plain, { prompter });
    expect(result.code).toBe(2);
    expect(result.requests.map((r) => r.path)).toEqual(['/transactions', `/transactions/${ID}`]);
    expect(prompter.asked[0].message).toBe(
      'Cancel transaction ffa38848 (€ 50.60 due 2017-11-07, Jan Jansen)? This cannot be undone.',
    );
  });

  it('one already collected is refused before anything is asked (exit 2, nothing sent)', async () => {
    const prompter = fakePrompter([]);
    deleted = false;
    const result = await runDouble(['transactions', 'cancel', ID], service, { prompter });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `error: transaction ${ID} is fulfilled: only a transaction not yet collected (queued, scheduled or rescheduled) can be cancelled (nothing changed)\n`,
    });
    expect(prompter.asked).toEqual([]);
    expect(result.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('--dry-run prints the DELETE, asks and sends nothing', async () => {
    const result = await runDouble(['--dry-run', 'transactions', 'cancel', ID], service);
    expect(result).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(printed(result.stdout)).toEqual({ method: 'DELETE', path: `/transactions/${ID}`, body: null });
  });

  it('a refusal of the service (already collected) is exit 1 with its error', async () => {
    const refuse: Answer = () => ({
      status: 400,
      body: {
        errors: [
          {
            status: '400',
            title: 'Invalid State',
            detail: 'a fulfilled transaction cannot be canceled',
            source: { pointer: '/data' },
          },
        ],
      },
    });
    const result = await runDouble(['transactions', 'cancel', ID, '--yes'], refuse);
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: Invalid State: a fulfilled transaction cannot be canceled\n',
    });
    expect(result.requests).toHaveLength(1);
  });
});

describe('transactions simulate', () => {
  it('is embedded only: exit 2 in remote mode, before anything else', async () => {
    const result = await runDouble([
      '--base-url',
      'http://127.0.0.1:9',
      '--api-key',
      'bk_x',
      'transactions',
      'simulate',
      ID,
      '--outcome',
      'failed',
    ]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: transactions simulate works only on the embedded store; it cannot run against http://127.0.0.1:9 (drop --base-url / BILLING_BASE_URL)\n',
      requests: [],
    });
  });

  it.each([
    [[ID], 'error: missing required flag: --outcome (charged_back or failed)\n'],
    [[ID, '--outcome', 'refunded'], 'error: --outcome: must be one of: charged_back, failed (not "refunded")\n'],
    [
      ['42', '--outcome', 'failed'],
      'error: ID must be a transaction id: a UUID such as ffa38848-6abc-4d22-b6b0-63fe1780969c, or its first 8 hex digits or more (ffa38848), not "42"\n',
    ],
    [
      [ID, '--outcome', 'failed', '--reason-code', 'XX99'],
      'error: --reason-code: must be a SEPA reason code, such as AM04 (Insufficient funds), MD06 (Refund requested by the debtor), AC04 (Account closed), MS02 (Refused by the debtor), MD01 (No valid mandate); not "XX99" (see billing transactions simulate --help)\n',
    ],
  ])('%j: exit 2 naming the flag', async (args, stderr) => {
    expect(await runDouble(['transactions', 'simulate', ...args])).toEqual({
      code: 2,
      stdout: '',
      stderr,
      requests: [],
    });
  });

  it('--dry-run prints what would be set (the default reason code of the outcome), changes nothing', async () => {
    const charged = await runDouble(['--dry-run', 'transactions', 'simulate', ID, '--outcome', 'charged_back']);
    expect(charged).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(JSON.parse(charged.stdout)).toEqual({
      simulate: 'transaction',
      id: ID,
      outcome: 'charged_back',
      reason_code: 'MD06',
      reason: 'Refund requested by the debtor',
    });
    const failed = await runDouble([
      '--dry-run',
      'transactions',
      'simulate',
      ID,
      '--outcome',
      'failed',
      '--reason-code',
      'ac04',
    ]);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      outcome: 'failed',
      reason_code: 'AC04',
      reason: 'Account closed',
    });
  });
});

describe('notifications list', () => {
  const NOTE = resource(
    'notification',
    '3',
    {
      kind: 'mandate_confirmation',
      channel: 'email',
      language: 'nl',
      recipient: 'jan@example.com',
      subject: 'Bevestig uw machtiging',
      body: 'Beste Jan, …',
      created_at: '2026-11-21T11:00:00+01:00',
    },
    { customer: { data: { type: 'customer', id: '42' } }, subscription: { data: { type: 'subscription', id: '7' } } },
  );
  const service: Answer = (r) => (r.path === '/notifications' ? { status: 200, body: collection([NOTE]) } : undefined);

  // Without a terminal every column is printed, an empty one too: a script's columns do not come and go with the data.
  it('sends --subscription-id and --customer-id as filters; columns id, kind, channel, recipient, subject, created, sent', async () => {
    const result = await runDouble(['notifications', 'list', '--subscription-id', '7', '--customer-id', '42'], service);
    expect(result.code).toBe(0);
    expect(result.requests[0]).toMatchObject({
      method: 'GET',
      path: '/notifications',
      query: { 'filter[subscription_id]': '7', 'filter[customer_id]': '42' },
    });
    expect(result.stdout).toBe(
      'id\tkind\tchannel\trecipient\tsubject\tcreated\tsent\n3\tmandate_confirmation\temail\tjan@example.com\tBevestig uw machtiging\t2026-11-21\t\n',
    );
    expect(result.stderr).toBe('page 1 of 1, 1 notification\n');
  });

  it('an empty list says so on stderr', async () => {
    const result = await runDouble(['notifications', 'list'], () => ({ status: 200, body: collection([]) }));
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: 'no notifications\n' });
  });

  it('a bad id is exit 2 naming the flag', async () => {
    expect(await runDouble(['notifications', 'list', '--customer-id', '1.5'], service)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --customer-id must be a positive whole number, not "1.5"\n',
      requests: [],
    });
  });
});

describe('help', () => {
  it.each([
    ['transactions', transactions],
    ['notifications', notifications],
  ] as const)(
    'the %s group shows every verb and its examples; each verb has examples and reads at 80 columns',
    async (name, group) => {
      const result = await runDouble([name, '--help']);
      expect(result.code).toBe(0);
      for (const verb of Object.keys(group.verbs)) expect(result.stdout).toMatch(new RegExp(`\\n  ${verb}\\b`));
      for (const example of group.examples ?? []) expect(result.stdout).toContain(`  $ ${example}`);
      for (const verb of Object.keys(group.verbs)) {
        const help = await runDouble([name, verb, '--help']);
        expect(help.stdout).toContain(`\nExamples:\n  $ billing ${name} ${verb}`);
        expect(overlong(help.stdout)).toEqual([]);
      }
    },
  );

  it('transactions delete suggests cancel', async () => {
    expect((await runDouble(['transactions', 'delete', ID])).stderr).toContain(
      "did you mean 'billing transactions cancel'?",
    );
  });
});
