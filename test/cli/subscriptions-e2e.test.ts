// subscriptions, transactions, notifications and the clock against the embedded core, through
// main() in process (harness.ts), on a store at the harness's fixed time (2026-11-21T10:00Z,
// 11:00 in Amsterdam). A subscription's life: made, refused activation without a mandate, activated
// with one, its first collection run by moving the clock, returned by simulation, a one-off
// transaction made and cancelled, paused, resumed, cancelled.
import { beforeAll, describe, expect, it } from 'vitest';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import { cli, type Cli } from './harness.js';

const json = (text: string) => JSON.parse(text);
type Resource = { id: string; attributes: Record<string, unknown> };

/** A store with one plan (monthly € 12.50, one storno retry) and two customers. */
async function seeded(): Promise<Cli> {
  const c = cli();
  const plan = await c.run([
    'plans',
    'create',
    '--name',
    'Monthly box',
    '--amount',
    '12,50',
    '--frequency',
    'monthly',
    '--storno-retries',
    '1',
  ]);
  expect(plan.code, plan.stderr).toBe(0);
  await c.seedCustomers(2);
  return c;
}

async function subscription(c: Cli, ...flags: string[]): Promise<Resource> {
  const made = await c.run([
    'subscriptions',
    'create',
    '--customer-id',
    '1',
    '--subscription-plan-id',
    '1',
    ...flags,
    '--json',
  ]);
  expect(made.code, made.stderr).toBe(0);
  return json(made.stdout).data;
}

async function transactionsOf(c: Cli, id: string, ...flags: string[]): Promise<Resource[]> {
  const listed = await c.run(['subscriptions', 'transactions', id, '--all', '--json', ...flags]);
  expect(listed.code, listed.stderr).toBe(0);
  return json(listed.stdout).data;
}

describe('a subscription through its life', () => {
  let c: Cli;
  let id: string;
  beforeAll(async () => {
    c = await seeded();
    // Starting on Dec 1: its first collection falls due only when the clock is moved.
    id = (await subscription(c, '--start-date', '2026-12-01')).id;
  });

  it('is made unverified, with the customer sent a mandate confirmation', async () => {
    const shown = json(
      (await c.run(['subscriptions', 'get', id, '--include', 'customer,subscription-plan', '--json'])).stdout,
    );
    expect(shown.data.attributes.status).toBe('unverified');
    expect(shown.included.map((r: { type: string }) => r.type).sort()).toEqual(['customer', 'subscription-plan']);
    const notes = await c.run(['notifications', 'list', '--subscription-id', id, '--json']);
    expect(notes.code, notes.stderr).toBe(0);
    expect(json(notes.stdout).data.map((n: Resource) => n.attributes.kind)).toContain('mandate_confirmation');
  });

  it('activate without the mandate is refused (exit 1) with a hint, and changes nothing', async () => {
    const refused = await c.run(['subscriptions', 'activate', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*\nhint: .*--mandate-accepted-date/);
    expect(json((await c.run(['subscriptions', 'get', id, '--json'])).stdout).data.attributes.status).toBe(
      'unverified',
    );
  });

  it('--dry-run of activate changes nothing', async () => {
    const dry = await c.run(['--dry-run', 'subscriptions', 'activate', id, '--mandate-accepted-date', '2026-11-20']);
    expect(dry.code).toBe(0);
    expect(json((await c.run(['subscriptions', 'get', id, '--json'])).stdout).data.attributes.status).toBe(
      'unverified',
    );
  });

  it('activate --mandate-accepted-date activates in one request, and the first collection is scheduled', async () => {
    const active = await c.run(['subscriptions', 'activate', id, '--mandate-accepted-date', '2026-11-20', '--json']);
    expect(active.code, active.stderr).toBe(0);
    expect(active.stderr).toBe(`activated subscription ${id}\n`);
    expect(json(active.stdout).data.attributes).toMatchObject({
      status: 'active',
      mandate_accepted: true,
      mandate_accepted_date: '2026-11-20T00:00:00+01:00',
    });
    const txs = await transactionsOf(c, id);
    expect(txs).toHaveLength(1);
    expect(txs[0].attributes).toMatchObject({
      amount: 12.5,
      description: 'Monthly box',
      due_date: '2026-12-01T00:00:00+01:00',
      canceled_on: null,
    });
    expect(['queued', 'scheduled']).toContain(txs[0].attributes.status);
  });

  it('lists filter by status and customer', async () => {
    const active = await c.run(['subscriptions', 'list', '--status', 'active', '--customer-id', '1', '--json']);
    expect(active.code, active.stderr).toBe(0);
    expect(json(active.stdout).data.map((s: Resource) => s.id)).toEqual([id]);
    const paused = await c.run(['subscriptions', 'list', '--status', 'paused']);
    expect(paused).toEqual({ code: 0, stdout: '', stderr: 'no subscriptions\n' });
  });

  it("clock show: real time, in the account's zone", async () => {
    expect(await c.run(['clock', 'show'])).toEqual({
      code: 0,
      stdout: '2026-11-21 11:00 +01:00 (real time)\n',
      stderr: '',
    });
    expect(json((await c.run(['clock', 'show', '--json'])).stdout)).toEqual({
      now: '2026-11-21T11:00:00+01:00',
      test: false,
    });
  });

  it('clock advance --dry-run says where it would go and moves nothing', async () => {
    const dry = await c.run(['--dry-run', 'clock', 'advance', 'P1M']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(json(dry.stdout)).toEqual({
      clock: 'advance',
      from: '2026-11-21T11:00:00+01:00',
      to: '2026-12-21T11:00:00+01:00',
      test: true,
    });
    expect(json((await c.run(['clock', 'show', '--json'])).stdout).test).toBe(false);
  });

  it('clock advance P1M runs the collection of Dec 1 (succeeded, then fulfilled three days later) and reports it', async () => {
    const moved = await c.run(['clock', 'advance', 'P1M']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toBe('clock moved from 2026-11-21 11:00 +01:00 to 2026-12-21 11:00 +01:00 (test time)\n');
    const rows = moved.stdout.trimEnd().split('\n');
    expect(rows[0]).toBe('change\tcount');
    expect(rows).toContain('transaction.succeeded\t1');
    expect(rows).toContain('transaction.fulfilled\t1');
    expect(await c.run(['clock', 'show'])).toEqual({
      code: 0,
      stdout: '2026-12-21 11:00 +01:00 (test time)\n',
      stderr: '',
    });
  });

  it('the clock never goes back (exit 2), and reset is refused while the test time is ahead', async () => {
    const back = await c.run(['clock', 'set', '2026-12-01']);
    expect(back.code).toBe(2);
    expect(back.stderr).toMatch(/^error: .*never goes back/);
    const reset = await c.run(['clock', 'reset']);
    expect(reset.code).toBe(2);
    // A dry run is refused as the move itself is, with the same words.
    const dryBack = await c.run(['--dry-run', 'clock', 'set', '2026-12-01']);
    expect([dryBack.code, dryBack.stdout, dryBack.stderr]).toEqual([2, '', back.stderr]);
    const dry = await c.run(['--dry-run', 'clock', 'reset']);
    expect([dry.code, dry.stdout, dry.stderr]).toEqual([2, '', reset.stderr]);
    expect(reset.stderr).toMatch(/^error: the test time .* is ahead of real time/);
  });

  it('clock advance with nothing due says so, with --json the report', async () => {
    const quiet = await c.run(['clock', 'advance', 'PT1H']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toBe(
      'clock moved from 2026-12-21 11:00 +01:00 to 2026-12-21 12:00 +01:00 (test time)\nnothing fell due\n',
    );
    const report = json((await c.run(['clock', 'advance', 'PT1H', '--json'])).stdout);
    expect(report).toEqual({
      from: '2026-12-21T12:00:00+01:00',
      to: '2026-12-21T13:00:00+01:00',
      test: true,
      changes: {},
    });
  });

  it('transactions get shows the collected transaction with its history', async () => {
    const collected = (await transactionsOf(c, id, '--status', 'fulfilled'))[0];
    expect(collected).toBeDefined();
    const shown = await c.run(['transactions', 'get', collected.id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('status\tfulfilled\n');
    expect(shown.stdout).toContain('amount\t€ 12.50\n');
    expect(shown.stdout).toMatch(/\nhistory\t.* succeeded; .* fulfilled/);
  });

  it('transactions list --subscription-id is the same list as subscriptions transactions', async () => {
    const a = await c.run(['transactions', 'list', '--subscription-id', id, '--json']);
    const b = await c.run(['subscriptions', 'transactions', id, '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });

  it('transactions simulate: --dry-run changes nothing; then the collection is charged back (MD06) and retried', async () => {
    const collected = (await transactionsOf(c, id, '--status', 'fulfilled'))[0];
    const before = await c.run(['transactions', 'get', collected.id, '--json']);
    const dry = await c.run(['--dry-run', 'transactions', 'simulate', collected.id, '--outcome', 'charged_back']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(await c.run(['transactions', 'get', collected.id, '--json'])).toEqual(before);

    const simulated = await c.run(['transactions', 'simulate', collected.id, '--outcome', 'charged_back', '--json']);
    expect(simulated.code, simulated.stderr).toBe(0);
    expect(simulated.stderr).toBe(`transaction ${collected.id}: charged back (MD06 Refund requested by the debtor)\n`);
    const history = json(simulated.stdout).data.attributes.history as { status: string; reason_code: string | null }[];
    expect(history).toContainEqual(expect.objectContaining({ status: 'charged_back', reason_code: 'MD06' }));
  });

  it('transactions simulate of an unknown transaction is exit 1 (not found)', async () => {
    const result = await c.run([
      'transactions',
      'simulate',
      'ffa38848-6abc-4d22-b6b0-63fe1780969c',
      '--outcome',
      'failed',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: /);
  });

  it('a one-off transaction: created queued, cancelled with --yes, shown canceled', async () => {
    const made = await c.run([
      'transactions',
      'create',
      '--subscription-id',
      id,
      '--amount',
      '5',
      '--due-date',
      '2027-01-15',
      '--description',
      'Extra',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const tx = json(made.stdout).data as Resource;
    expect(tx.attributes).toMatchObject({ status: 'queued', amount: 5, description: 'Extra' });
    expect(made.stderr).toBe(`created transaction ${tx.id}\n`);

    expect((await c.run(['transactions', 'cancel', tx.id])).code).toBe(2);
    const canceled = await c.run(['transactions', 'cancel', tx.id, '--yes', '--json']);
    expect(canceled.code, canceled.stderr).toBe(0);
    expect(canceled.stderr).toBe(`canceled transaction ${tx.id}\n`);
    expect(json(canceled.stdout).data.attributes.status).toBe('canceled');
    expect(json(canceled.stdout).data.attributes.canceled_on).not.toBeNull();
  });

  it('pause, resume, then cancel on a day and at once', async () => {
    const paused = await c.run(['subscriptions', 'pause', id, '--json']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(json(paused.stdout).data.attributes.status).toBe('paused');
    // Again: nothing changes, and it says so (exit 0, as a script rerunning a step needs).
    const pausedAgain = await c.run(['subscriptions', 'pause', id]);
    expect(pausedAgain.code, pausedAgain.stderr).toBe(0);
    expect(pausedAgain.stderr).toBe(`subscription ${id} is already paused\n`);
    expect(json((await c.run(['subscriptions', 'get', id, '--json'])).stdout).data.attributes.updated_at).toBe(
      json(paused.stdout).data.attributes.updated_at,
    );
    expect(
      (await transactionsOf(c, id, '--status', 'scheduled')).length +
        (await transactionsOf(c, id, '--status', 'queued')).length,
    ).toBe(0);

    const resumed = await c.run(['subscriptions', 'resume', id, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(json(resumed.stdout).data.attributes.status).toBe('active');

    const scheduled = await c.run(['subscriptions', 'cancel', id, '--on', '2027-06-30', '--yes', '--json']);
    expect(scheduled.code, scheduled.stderr).toBe(0);
    expect(json(scheduled.stdout).data.attributes).toMatchObject({
      status: 'active',
      cancel_date: '2027-06-30T00:00:00+02:00',
    });

    // A day before today by the store's clock (test time, a month on) is refused before asking.
    const past = fakePrompter([]);
    const early = await c.run(['subscriptions', 'cancel', id, '--on', '2026-12-01'], { prompter: past });
    expect(early).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: --on: 2026-12-01 is before today (2026-12-21 by the store's clock): give today to cancel at once, or a later day (nothing changed)\n",
    });
    expect(past.asked).toEqual([]);

    const no = fakePrompter([false]);
    const declined = await c.run(['subscriptions', 'cancel', id], { prompter: no });
    expect(declined.code).toBe(2);
    expect(no.asked[0].message).toBe(
      `Cancel subscription ${id} (Monthly box, First1 Last1) now? This cannot be undone.`,
    );
    expect(json((await c.run(['subscriptions', 'get', id, '--json'])).stdout).data.attributes.status).toBe('active');

    const cancelled = await c.run(['subscriptions', 'cancel', id], { prompter: fakePrompter([true]) });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(json((await c.run(['subscriptions', 'get', id, '--json'])).stdout).data.attributes.status).toBe('cancelled');

    const again = await c.run(['subscriptions', 'resume', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: /);
    expect(again.stderr).not.toContain('hint:');
  });
});

describe('create', () => {
  it('on a terminal: the customer and the plan are picked from searchable lists', async () => {
    const c = await seeded();
    const prompter = fakePrompter(['First2=>2', '1']);
    const result = await c.run(['subscriptions', 'create', '--confirmation-sent', '--json'], { prompter });
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked.map((q) => q.kind)).toEqual(['search', 'search']);
    expect(json(result.stdout).data.relationships.customer.data.id).toBe('2');
  });

  it('a --status active create activates at once and schedules', async () => {
    const c = await seeded();
    const made = await subscription(
      c,
      '--status',
      'active',
      '--mandate-accepted',
      '--mandate-accepted-date',
      '2026-11-21',
      '--start-date',
      '2026-12-01',
    );
    expect(made.attributes.status).toBe('active');
    const txs = await transactionsOf(c, made.id);
    expect(txs.map((t) => t.attributes.due_date)).toEqual(['2026-12-01T00:00:00+01:00']);
  });

  it('list shows the status column, and the table ends with the footer', async () => {
    const c = await seeded();
    await subscription(c);
    const listed = await c.run(['subscriptions', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    // The customer and the plan by name, as the list's meta gives them.
    expect(listed.stdout).toBe(
      'id\tcustomer\tplan\tstatus\tmandate\tstart\n1\tFirst1 Last1\tMonthly box\tunverified\tMNDT-1\t2026-11-21\n',
    );
    expect(listed.stderr).toBe('page 1 of 1, 1 subscription\n');
  });

  it('update changes what its flags say', async () => {
    const c = await seeded();
    const made = await subscription(c);
    const updated = await c.run([
      'subscriptions',
      'update',
      made.id,
      '--transaction-webhook-url',
      'https://example.com/hooks',
      '--json',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(json(updated.stdout).data.attributes.transaction_webhook_url).toBe('https://example.com/hooks');
  });
});
