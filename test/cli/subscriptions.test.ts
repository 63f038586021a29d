// subscriptions: what each verb sends (checked on the request itself, through a service double or
// --dry-run), what it refuses before sending (exit 2 naming the flag), and the confirmation of cancel.
// The same verbs against the embedded core are in subscriptions-e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { subscriptions } from '../../src/commands/subscriptions/index.js';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import {
  collection,
  doc,
  invalidState,
  overlong,
  printed,
  resource,
  runDouble,
  type Answer,
} from './service-double.js';

const SUBSCRIPTION = resource(
  'subscription',
  '7',
  {
    mandate_code: 'MNDT-7',
    mandate_accepted: true,
    mandate_accepted_date: '2026-12-01T00:00:00+01:00',
    start_date: '2026-11-21T00:00:00+01:00',
    status: 'active',
    cancel_date: null,
    created_at: '2026-11-21T11:00:00+01:00',
  },
  {
    customer: { data: { type: 'customer', id: '42' } },
    'subscription-plan': { data: { type: 'subscription-plan', id: '1' } },
  },
);

/** Answers every PATCH of subscription 7 with the subscription, every GET of it too. */
const service: Answer = (request) =>
  request.path === '/subscriptions/7' ? { status: 200, body: doc(SUBSCRIPTION) } : undefined;

const patchOf = (attributes: Record<string, unknown>) => ({
  method: 'PATCH',
  path: '/subscriptions/7',
  body: { data: { type: 'subscription', id: '7', attributes } },
});

describe('activate', () => {
  it('sends status and the mandate in ONE request with --mandate-accepted-date', async () => {
    const result = await runDouble(
      ['subscriptions', 'activate', '7', '--mandate-accepted-date', '2026-12-01', '--json'],
      service,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      patchOf({ status: 'active', mandate_accepted: true, mandate_accepted_date: '2026-12-01' }),
    ]);
    expect(result.stderr).toBe('activated subscription 7\n');
    expect(JSON.parse(result.stdout)).toEqual(doc(SUBSCRIPTION));
  });

  it('--dry-run prints that one request and sends nothing', async () => {
    const result = await runDouble(
      ['--dry-run', 'subscriptions', 'activate', '7', '--mandate-accepted-date', '2026-12-01T09:30:00+01:00'],
      service,
    );
    expect(result).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(printed(result.stdout)).toEqual(
      patchOf({ status: 'active', mandate_accepted: true, mandate_accepted_date: '2026-12-01T09:30:00+01:00' }),
    );
  });

  it('without the date it sends only the status', async () => {
    const result = await runDouble(['subscriptions', 'activate', '7'], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([patchOf({ status: 'active' })]);
  });

  it('refused for the mandate (400 Invalid State): the error, then a hint to give --mandate-accepted-date', async () => {
    const refuse: Answer = () =>
      invalidState(
        'a subscription is activated only when its mandate is accepted: send mandate_accepted with mandate_accepted_date',
      );
    const result = await runDouble(['subscriptions', 'activate', '7'], refuse);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      'error: status: a subscription is activated only when its mandate is accepted: send mandate_accepted with mandate_accepted_date',
    );
    expect(lines[1]).toMatch(/^hint: .*billing subscriptions activate 7 --mandate-accepted-date /);
  });

  it('with --json: the error document on stdout, no hint', async () => {
    const refuse: Answer = () => invalidState('the mandate is not accepted');
    const result = await runDouble(['subscriptions', 'activate', '7', '--json'], refuse);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).errors[0].title).toBe('Invalid State');
    expect(result.stderr).toBe('');
  });

  it('no hint when the date was given, or when the refusal is not about the mandate', async () => {
    const withDate = await runDouble(['subscriptions', 'activate', '7', '--mandate-accepted-date', '2026-12-01'], () =>
      invalidState('the mandate is not accepted'),
    );
    expect(withDate.code).toBe(1);
    expect(withDate.stderr).not.toContain('hint:');
    const cancelled = await runDouble(['subscriptions', 'activate', '7'], () =>
      invalidState('a cancelled subscription cannot change its status'),
    );
    expect(cancelled.code).toBe(1);
    expect(cancelled.stderr).not.toContain('hint:');
  });

  it.each([
    [
      ['subscriptions', 'activate', '7', '--mandate-accepted-date', '2026-02-30'],
      'error: --mandate-accepted-date: must be a date (2026-12-01) or a datetime with an offset (2026-12-01T09:00:00+01:00), not "2026-02-30"\n',
    ],
    [
      ['subscriptions', 'activate', '7', '--mandate-accepted-date', 'yesterday'],
      'error: --mandate-accepted-date: must be a date (2026-12-01) or a datetime with an offset (2026-12-01T09:00:00+01:00), not "yesterday"\n',
    ],
    [['subscriptions', 'activate', 'seven'], 'error: ID must be a positive whole number, not "seven"\n'],
    [['subscriptions', 'activate', '0'], 'error: ID must be a positive whole number, not "0"\n'],
  ])('%j: exit 2 naming what is wrong, nothing sent', async (argv, stderr) => {
    expect(await runDouble(argv, service)).toEqual({ code: 2, stdout: '', stderr, requests: [] });
  });
});

describe('pause and resume', () => {
  it('pause sends status paused, with the resume date when given', async () => {
    expect((await runDouble(['subscriptions', 'pause', '7'], service)).requests).toEqual([
      patchOf({ status: 'paused' }),
    ]);
    const dated = await runDouble(['subscriptions', 'pause', '7', '--resume-date', '2027-03-01'], service);
    expect(dated.requests).toEqual([patchOf({ status: 'paused', resume_date: '2027-03-01' })]);
    expect(dated.stderr).toBe('paused subscription 7\n');
  });

  it('pause with a bad --resume-date is exit 2 naming the flag', async () => {
    const result = await runDouble(['subscriptions', 'pause', '7', '--resume-date', '1-3-2027'], service);
    expect(result).toMatchObject({ code: 2, requests: [] });
    expect(result.stderr).toMatch(/^error: --resume-date: must be a date/);
  });

  it('resume sends status active and nothing else', async () => {
    const result = await runDouble(['subscriptions', 'resume', '7'], service);
    expect(result.requests).toEqual([patchOf({ status: 'active' })]);
    expect(result.stderr).toBe('resumed subscription 7\n');
  });
});

describe('cancel', () => {
  it('without a terminal it needs --yes (exit 2, nothing sent)', async () => {
    expect(await runDouble(['subscriptions', 'cancel', '7'], service)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: cancel subscription 7 cannot be undone: add --yes to confirm (there is no terminal to ask at)\n',
      requests: [],
    });
  });

  it('with --yes: status cancelled', async () => {
    const result = await runDouble(['subscriptions', 'cancel', '7', '--yes'], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([patchOf({ status: 'cancelled' })]);
    expect(result.stderr).toBe('cancelled subscription 7\n');
  });

  it('--on D schedules it: cancel_date only, the status left as it is', async () => {
    const result = await runDouble(['subscriptions', 'cancel', '7', '--on', '2027-06-30', '--yes'], service);
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([patchOf({ cancel_date: '2027-06-30' })]);
  });

  const LOOKUP = { method: 'GET', path: '/subscriptions/7', query: { include: 'customer,subscription-plan' } };
  /** GET of subscription 7 with its customer and plan included, and the store's today. */
  const named: Answer = (request) =>
    request.method === 'GET' && request.path === '/subscriptions/7'
      ? {
          status: 200,
          body: doc(SUBSCRIPTION, {
            included: [
              resource('customer', '42', { first_name: 'Jan', middle_name: null, last_name: 'Jansen' }),
              resource('subscription-plan', '1', { name: 'Gold monthly' }),
            ],
          }),
          headers: { 'billing-today': '2026-11-21T00:00:00+01:00' },
        }
      : service(request);

  it('on a terminal it asks, naming the plan and the customer; yes cancels', async () => {
    const prompter = fakePrompter([true]);
    const result = await runDouble(['subscriptions', 'cancel', '7'], named, { prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => [q.kind, q.message, q.default])).toEqual([
      ['confirm', 'Cancel subscription 7 (Gold monthly, Jan Jansen) now? This cannot be undone.', false],
    ]);
    expect(result.requests).toEqual([LOOKUP, patchOf({ status: 'cancelled' })]);
  });

  it('on a terminal, no is exit 2 and nothing is changed', async () => {
    const prompter = fakePrompter([false]);
    const result = await runDouble(['subscriptions', 'cancel', '7', '--on', '2027-06-30'], named, { prompter });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: cancel subscription 7 on 2027-06-30: not confirmed, nothing changed\n',
      requests: [LOOKUP],
    });
    expect(prompter.asked[0].message).toBe(
      'Cancel subscription 7 (Gold monthly, Jan Jansen) on 2027-06-30? From that day it cannot be undone.',
    );
  });

  it('a server that includes nothing: the plan and the customer by their ids', async () => {
    const prompter = fakePrompter([false]);
    await runDouble(['subscriptions', 'cancel', '7'], service, { prompter });
    expect(prompter.asked[0].message).toBe('Cancel subscription 7 (plan 1, customer 42) now? This cannot be undone.');
  });

  it("a day before the store's today is refused before anything is asked (exit 2, nothing changed)", async () => {
    const prompter = fakePrompter([]);
    const result = await runDouble(['subscriptions', 'cancel', '7', '--on', '2026-11-20'], named, { prompter });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: --on: 2026-11-20 is before today (2026-11-21 by the store's clock): give today to cancel at once, or a later day (nothing changed)\n",
      requests: [LOOKUP],
    });
    expect(prompter.asked).toEqual([]);
    // Today itself, or a time of today, is asked: the service cancels at once.
    for (const on of ['2026-11-21', '2026-11-21T08:00:00+01:00']) {
      const asked = fakePrompter([false]);
      await runDouble(['subscriptions', 'cancel', '7', '--on', on], named, { prompter: asked });
      expect(asked.asked).toHaveLength(1);
    }
    const before = fakePrompter([]);
    const early = await runDouble(['subscriptions', 'cancel', '7', '--on', '2026-11-20T23:59:00+01:00'], named, {
      prompter: before,
    });
    expect(early.code).toBe(2);
    expect(before.asked).toEqual([]);
  });

  it('a subscription cancelled already: nothing to ask without --on (the service says so); a day is refused', async () => {
    const cancelled = { ...SUBSCRIPTION, attributes: { ...SUBSCRIPTION.attributes, status: 'cancelled' } };
    const answer: Answer = (request) =>
      request.path === '/subscriptions/7'
        ? {
            status: 200,
            body: request.method === 'GET' ? doc(cancelled) : { ...doc(cancelled), meta: { unchanged: true } },
          }
        : undefined;
    const prompter = fakePrompter([]);
    const again = await runDouble(['subscriptions', 'cancel', '7'], answer, { prompter });
    expect(again).toMatchObject({ code: 0, stderr: 'subscription 7 is already cancelled\n' });
    expect(again.requests).toEqual([LOOKUP, patchOf({ status: 'cancelled' })]);
    const later = await runDouble(['subscriptions', 'cancel', '7', '--on', '2027-06-30'], answer, { prompter });
    expect(later).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: subscription 7 is cancelled already: it cannot be cancelled on another day (nothing changed)\n',
      requests: [LOOKUP],
    });
    expect(prompter.asked).toEqual([]);
  });

  it('--dry-run asks nothing, prints the request, sends nothing', async () => {
    const result = await runDouble(['--dry-run', 'subscriptions', 'cancel', '7'], service);
    expect(result).toMatchObject({ code: 0, stderr: '', requests: [] });
    expect(printed(result.stdout)).toEqual(patchOf({ status: 'cancelled' }));
  });

  it('a bad --on is exit 2 before anything is asked', async () => {
    const prompter = fakePrompter([]);
    const result = await runDouble(['subscriptions', 'cancel', '7', '--on', 'soon'], service, { prompter });
    expect(result).toMatchObject({ code: 2, requests: [] });
    expect(result.stderr).toMatch(/^error: --on: must be a date/);
    expect(prompter.asked).toEqual([]);
  });
});

describe('list', () => {
  const list: Answer = (request) =>
    request.path === '/subscriptions' ? { status: 200, body: collection([SUBSCRIPTION]) } : undefined;

  it('sends each flag as its filter[…] or sort parameter', async () => {
    const result = await runDouble(
      [
        'subscriptions',
        'list',
        '--status',
        'active',
        '--customer-id',
        '42',
        '--plan-id',
        '1',
        '--search',
        'LID',
        '--sort',
        '-start_date',
        '--include',
        'customer',
        '--page-size',
        '5',
      ],
      list,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toHaveLength(1);
    expect(result.requests[0].query).toMatchObject({
      'filter[status]': 'active',
      'filter[customer_id]': '42',
      'filter[subscription_plan_id]': '1',
      'filter[search]': 'LID',
      sort: '-start_date',
      include: 'customer',
      'page[size]': 5,
    });
  });

  it('prints id, customer, plan and status (a state) as TSV without a terminal', async () => {
    const result = await runDouble(['subscriptions', 'list'], list);
    expect(result.stdout).toBe('id\tcustomer\tplan\tstatus\tmandate\tstart\n7\t42\t1\tactive\tMNDT-7\t2026-11-21\n');
    expect(result.stderr).toBe('page 1 of 1, 1 subscription\n');
  });

  it('colours the status on a terminal', async () => {
    const result = await runDouble(['subscriptions', 'list'], list, { tty: true, env: { FORCE_COLOR: '1' } });
    expect(result.stdout).toContain('\u001b[32mactive');
  });

  it.each([
    [
      ['--status', 'running'],
      'error: --status: must be one of: unverified, active, paused, cancelled (not "running")\n',
    ],
    [
      ['--sort', 'customer'],
      'error: --sort takes one of id, created_at, start_date, with a leading - for descending order (e.g. -start_date), not "customer"\n',
    ],
    [['--customer-id', 'jan'], 'error: --customer-id must be a positive whole number, not "jan"\n'],
    [['--plan-id', '-1'], 'error: --plan-id must be a positive whole number, not "-1"\n'],
    [['--search', ' '], 'error: --search must not be empty\n'],
  ])('%j: exit 2 naming the flag, nothing sent', async (flags, stderr) => {
    expect(await runDouble(['subscriptions', 'list', ...flags], list)).toEqual({
      code: 2,
      stdout: '',
      stderr,
      requests: [],
    });
  });
});

describe('get and transactions', () => {
  it('get sends the include', async () => {
    const result = await runDouble(
      ['subscriptions', 'get', '7', '--include', 'customer,subscription-plan', '--json'],
      service,
    );
    expect(result.code).toBe(0);
    expect(result.requests).toEqual([
      { method: 'GET', path: '/subscriptions/7', query: { include: 'customer,subscription-plan' } },
    ]);
  });

  it('transactions ID lists GET /subscriptions/ID/transactions with its filter and sort', async () => {
    const result = await runDouble(
      ['subscriptions', 'transactions', '7', '--status', 'failed', '--sort', 'due_date'],
      (r) => (r.path === '/subscriptions/7/transactions' ? { status: 200, body: collection([]) } : undefined),
    );
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: 'no transactions\n' });
    expect(result.requests[0]).toMatchObject({
      method: 'GET',
      path: '/subscriptions/7/transactions',
      query: { 'filter[status]': 'failed', sort: 'due_date' },
    });
  });

  it.each([
    [
      ['--status', 'paid'],
      /^error: --status: must be one of: queued, scheduled, succeeded, fulfilled, charged_back, failed, rescheduled, canceled \(not "paid"\)\n$/,
    ],
    [['--sort', 'amount'], /^error: --sort takes one of due_date, created_at, /],
  ])('transactions ID %j: exit 2 naming the flag', async (flags, stderr) => {
    const result = await runDouble(['subscriptions', 'transactions', '7', ...flags]);
    expect(result).toMatchObject({ code: 2, stdout: '', requests: [] });
    expect(result.stderr).toMatch(stderr);
  });
});

describe('create and update', () => {
  it('create without flags and no terminal names every missing flag', async () => {
    expect(await runDouble(['subscriptions', 'create'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: missing required flags: --customer-id, --subscription-plan-id\n',
      requests: [],
    });
  });

  it('create checks flag values by the schema before sending', async () => {
    const result = await runDouble([
      'subscriptions',
      'create',
      '--customer-id',
      '42',
      '--subscription-plan-id',
      '1',
      '--status',
      'running',
      '--start-date',
      'tomorrow',
    ]);
    expect(result.code).toBe(2);
    expect(result.requests).toEqual([]);
    expect(result.stderr).toContain('--status: must be one of: unverified, active, paused, cancelled');
    expect(result.stderr).toContain('--start-date: must be a date');
  });

  it('create on a terminal picks the customer and the plan from searchable lists', async () => {
    const answer: Answer = (r) => {
      if (r.method === 'GET' && r.path === '/customers')
        return {
          status: 200,
          body: collection([
            resource('customer', '42', { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' }),
          ]),
        };
      if (r.method === 'GET' && r.path === '/subscription-plans')
        return {
          status: 200,
          body: collection([resource('subscription-plan', '1', { name: 'Monthly box', amount: '12.50' })]),
        };
      if (r.method === 'POST' && r.path === '/subscriptions') return { status: 201, body: doc(SUBSCRIPTION) };
      return undefined;
    };
    const prompter = fakePrompter(['jan=>42', '1']);
    const result = await runDouble(['subscriptions', 'create', '--mandate-code', 'LID-1', '--json'], answer, {
      prompter,
    });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => [q.kind, q.message])).toEqual([
      ['search', 'Customer: type to search'],
      ['search', 'Subscription plan: type to search'],
    ]);
    expect(prompter.asked[0].choices).toEqual([{ value: '42', name: '42  Jan Jansen <jan@example.com>' }]);
    // Only valid choices: customers not archived, plans active and not archived; both checked before asking.
    expect(result.requests.filter((r) => r.method === 'GET').map((r) => [r.path, r.query])).toEqual([
      ['/customers', { 'filter[archived]': 'false', 'page[size]': 1 }],
      ['/subscription-plans', { 'filter[status]': 'active', 'filter[archived]': 'false', 'page[size]': 1 }],
      ['/customers', { 'filter[archived]': 'false', 'page[size]': 20, 'filter[search]': 'jan' }],
      ['/subscription-plans', { 'filter[status]': 'active', 'filter[archived]': 'false', 'page[size]': 20 }],
    ]);
    const post = result.requests.find((r) => r.method === 'POST');
    expect(post).toEqual({
      method: 'POST',
      path: '/subscriptions',
      body: {
        data: { type: 'subscription', attributes: { mandate_code: 'LID-1', customer_id: 42, subscription_plan_id: 1 } },
      },
    });
    expect(result.stderr).toBe('created subscription 7\n');
  });

  it('update sends the given flags only', async () => {
    const result = await runDouble([
      '--dry-run',
      'subscriptions',
      'update',
      '7',
      '--cancel-date',
      '2027-06-30',
      '--no-confirmation-sent',
    ]);
    expect(printed(result.stdout)).toEqual(patchOf({ cancel_date: '2027-06-30', confirmation_sent: false }));
  });

  it('update without flags and no terminal: nothing to change (exit 2)', async () => {
    const result = await runDouble(['subscriptions', 'update', '7']);
    expect(result).toMatchObject({ code: 2, requests: [] });
    expect(result.stderr).toBe(
      'error: nothing to change: give at least one flag (see billing subscriptions update --help)\n',
    );
  });
});

describe('help', () => {
  it('the group shows every verb and its examples', async () => {
    const result = await runDouble(['subscriptions', '--help']);
    expect(result.code).toBe(0);
    for (const verb of Object.keys(subscriptions.verbs)) expect(result.stdout).toMatch(new RegExp(`\\n  ${verb}\\b`));
    for (const example of subscriptions.examples ?? []) expect(result.stdout).toContain(`  $ ${example}`);
  });

  it.each(Object.keys(subscriptions.verbs))(
    'subscriptions %s --help has examples and reads at 80 columns',
    async (verb) => {
      const result = await runDouble(['subscriptions', verb, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('\nExamples:\n  $ billing subscriptions ');
      expect(overlong(result.stdout)).toEqual([]);
    },
  );

  it('subscriptions delete suggests cancel', async () => {
    const result = await runDouble(['subscriptions', 'delete', '7']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("did you mean 'billing subscriptions cancel'?");
  });
});
