// Subscriptions through the router: every rule of create and update, and what they schedule.
import { describe, expect, it } from 'vitest';
import { createRouter } from '../../src/lib/api/router.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { createAccount } from '../../src/lib/core/accounts.js';
import { all } from '../../src/lib/store/unit.js';
import { testCore, type TestCore } from '../helpers/store.js';
import { updatePlan } from '../../src/lib/core/plan-writes.js';
import {
  context,
  createCustomer,
  expectError,
  expectInvalidAttributes,
  makePlan,
  send,
  type Answer,
} from './support.js';

const body = (attributes: Record<string, unknown>, id?: string | number) => ({
  data: { type: 'subscription', ...(id === undefined ? {} : { id: String(id) }), attributes },
});

/** A customer and an active monthly plan; TEST_NOW is 2026-11-21 10:00 UTC (11:00 in Amsterdam). */
async function arrange(core?: TestCore) {
  const c = core ?? (await testCore());
  const customer = await createCustomer(c);
  const plan = await makePlan(c, { name: 'Gold', amount: '12.50', storno_retries: 1 });
  const create = (attributes: Record<string, unknown> = {}) =>
    send(c, 'POST', '/subscriptions', {
      body: body({ customer_id: customer, subscription_plan_id: plan, ...attributes }),
    });
  const patch = (id: string, attributes: Record<string, unknown>) =>
    send(c, 'PATCH', `/subscriptions/${id}`, { body: body(attributes, id) });
  return { core: c, customer, plan, create, patch };
}

const made = (answer: Answer): string => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data.id as string;
};

const rows = (core: TestCore, table: 'subscriptions' | 'transactions' | 'events' | 'notifications' | 'due_work') =>
  core.store.read(() =>
    all((q) =>
      q
        .selectFrom(table)
        .selectAll()
        .orderBy(table === 'transactions' ? 'seq' : 'id'),
    ),
  );

/** Everything a refused request must leave as it was. */
const everything = async (core: TestCore) => ({
  subscriptions: await rows(core, 'subscriptions'),
  transactions: await rows(core, 'transactions'),
  events: await rows(core, 'events'),
  notifications: await rows(core, 'notifications'),
  work: await rows(core, 'due_work'),
});

const transactionsOf = async (core: TestCore, id: string) =>
  (await send(core, 'GET', `/subscriptions/${id}/transactions`, { query: 'page[size]=100' })).body.data as any[];

describe('POST /subscriptions', () => {
  it('with only the customer and plan: unverified, a generated mandate code, the confirmation page, and a mandate confirmation recorded', async () => {
    const { core, create, customer, plan } = await arrange();
    const answer = await create();
    const id = made(answer);
    expect(answer.headers.location).toBe(`http://127.0.0.1:8080/subscriptions/${id}`);
    const page = answer.body.data.attributes.confirmation_page as string;
    expect(answer.body.data.attributes).toEqual({
      mandate_code: `MNDT-${id}`,
      mandate_accepted: false,
      mandate_accepted_date: null,
      start_date: '2026-11-21T00:00:00+01:00',
      status: 'unverified',
      cancel_date: null,
      resume_date: null,
      confirmation_page: expect.stringMatching(
        new RegExp(`^http://127\\.0\\.0\\.1:8080/mandate/accept/${id}/[0-9a-f]{64}$`),
      ),
      confirmation_sent: false,
      subscription_webhook_url: null,
      transaction_webhook_url: null,
      success_redirect_url: null,
      metadata: null,
      archived: false,
      created_at: '2026-11-21T11:00:00+01:00',
      updated_at: '2026-11-21T11:00:00+01:00',
    });
    expect(answer.body.data.relationships.customer.data).toEqual({ type: 'customer', id: customer });
    expect(answer.body.data.relationships['subscription-plan'].data).toEqual({
      type: 'subscription-plan',
      id: String(plan),
    });
    expect(answer.body.data.relationships.transactions.data).toEqual([]);
    const [notification] = (await send(core, 'GET', '/notifications')).body.data;
    expect(notification.attributes).toMatchObject({
      kind: 'mandate_confirmation',
      channel: 'email',
      language: 'nl',
      recipient: 'person1@example.com',
      subject: 'Bevestig je machtiging',
    });
    expect(notification.attributes.body).toContain(`${page}\n`);
    // The page's secret is in confirmation_page and nowhere else the API answers.
    const token = page.slice(page.lastIndexOf('/') + 1);
    const times = (body: unknown) => JSON.stringify(body).split(token).length - 1;
    expect(times(answer.body)).toBe(1);
    const included = await send(core, 'GET', `/subscriptions/${id}`, { query: 'include=customer,subscription-plan' });
    expect(times(included.body)).toBe(1);
    expect(times((await send(core, 'GET', '/subscriptions')).body)).toBe(1);
    expect((await rows(core, 'events')).map((e) => [e.name, e.status])).toEqual([
      ['subscription.status', 'unverified'],
    ]);
  });

  it('records the confirmation by the plan’s channel, in the customer’s language, to the telephone for sms', async () => {
    const core = await testCore();
    const customer = await createCustomer(core, {
      first_name: 'Jean',
      last_name: 'Dupont',
      email: 'jean@example.fr',
      language: 'fr',
      telephone: '+33612345678',
    });
    const plan = await makePlan(core, { name: 'Box', amount: '20', mandate_authentication_method: 'sms' });
    made(
      await send(core, 'POST', '/subscriptions', { body: body({ customer_id: customer, subscription_plan_id: plan }) }),
    );
    const [notification] = (await send(core, 'GET', '/notifications')).body.data;
    expect(notification.attributes).toMatchObject({
      channel: 'sms',
      language: 'fr',
      recipient: '+33612345678',
      subject: 'Veuillez confirmer votre mandat',
    });
  });

  it('records no confirmation when the mandate is accepted or the confirmation was sent elsewhere', async () => {
    const { core, create } = await arrange();
    made(await create({ mandate_accepted: true, mandate_accepted_date: '2026-11-20' }));
    made(await create({ confirmation_sent: true }));
    expect(await rows(core, 'notifications')).toEqual([]);
  });

  it('with status active, activates and schedules the first plan transaction at once, even without an accepted mandate (rule 5)', async () => {
    const { core, create } = await arrange();
    const answer = await create({ status: 'active' });
    const id = made(answer);
    expect(answer.body.data.attributes.status).toBe('active');
    const [tx] = await transactionsOf(core, id);
    expect(answer.body.data.relationships.transactions.data).toEqual([{ type: 'transaction', id: tx.id }]);
    expect(tx.attributes).toMatchObject({
      status: 'scheduled',
      due_date: '2026-11-21T00:00:00+01:00',
      amount: 12.5,
      description: 'Gold',
      payment_method: 'directdebit',
      scheduled_on: '2026-11-21T11:00:00+01:00',
    });
    expect(tx.attributes.history).toEqual([
      {
        attempt: 1,
        reason: null,
        reason_code: null,
        recorded_on: '2026-11-21T11:00:00+01:00',
        status: 'scheduled',
        new_due_date: null,
      },
    ]);
  });

  it('with a future start_date, delays the first transaction to it', async () => {
    const { core, create } = await arrange();
    const id = made(await create({ status: 'active', start_date: '2027-01-31' }));
    expect((await transactionsOf(core, id)).map((t) => t.attributes.due_date)).toEqual(['2027-01-31T00:00:00+01:00']);
  });

  it('refuses mandate_accepted without mandate_accepted_date, and an acceptance in the future', async () => {
    const { core, create } = await arrange();
    const before = await everything(core);
    expectInvalidAttributes(await create({ mandate_accepted: true }), ['mandate_accepted_date'], expect.anything());
    expectInvalidAttributes(
      await create({ mandate_accepted: true, mandate_accepted_date: '2026-12-24' }),
      ['mandate_accepted_date'],
      expect.anything(),
    );
    expect(await everything(core)).toEqual(before);
  });

  it('checks a supplied mandate code: the SEPA characters, 35 at most, never MNDT-<n>, unique in the account', async () => {
    const { core, create, customer, plan } = await arrange();
    made(await create({ mandate_code: "LID-2026/0042 (a.b,c'+?:)" }));
    for (const code of ['LID_1', 'Z\u00fcrich-1', 'x'.repeat(36), 'MNDT-7', 'mndt-12'])
      expectInvalidAttributes(await create({ mandate_code: code }), ['mandate_code'], expect.anything());
    const taken = await create({ mandate_code: "LID-2026/0042 (a.b,c'+?:)" });
    expectInvalidAttributes(taken, ['mandate_code'], expect.anything());
    expect(taken.body.errors[0].detail).toContain('already the mandate code of subscription 1');
    // Another account may use the same code.
    const other = await createAccount(core.store, core.clock, 'other');
    if (!other.ok) throw new Error('no account');
    const router = createRouter({ store: core.store, clock: core.clock, baseUrl: 'http://127.0.0.1:8080' });
    const post = (path: string, attributes: Record<string, unknown>, type: string) =>
      router.handle(
        { method: 'POST', path, body: JSON.stringify({ data: { type, attributes } }) },
        other.value.account,
      ) as Promise<Answer>;
    const theirs = (
      await post('/customers', { first_name: 'O', last_name: 'Ther', email: 'o@example.com' }, 'customer')
    ).body.data.id;
    const theirPlan = await makePlan(
      { ...core, account: () => Promise.resolve(other.value.account) },
      { name: 'P', amount: '1' },
    );
    expect(
      (
        await post(
          '/subscriptions',
          { customer_id: theirs, subscription_plan_id: theirPlan, mandate_code: "LID-2026/0042 (a.b,c'+?:)" },
          'subscription',
        )
      ).status,
    ).toBe(201);
    // And not this account's customer or plan.
    expectInvalidAttributes(
      await post('/subscriptions', { customer_id: customer, subscription_plan_id: plan }, 'subscription'),
      ['customer_id', 'subscription_plan_id'],
      expect.anything(),
    );
  });

  it('refuses an inactive plan, an unknown customer, and missing ids, naming each', async () => {
    const { core, customer } = await arrange();
    const inactive = await makePlan(core, { name: 'Old', amount: '5', status: 'inactive' });
    const answer = await send(core, 'POST', '/subscriptions', {
      body: body({ customer_id: customer, subscription_plan_id: inactive }),
    });
    expectInvalidAttributes(answer, ['subscription_plan_id'], expect.anything());
    expect(answer.body.errors[0].detail).toContain('only on active plans');
    expectInvalidAttributes(
      await send(core, 'POST', '/subscriptions', { body: body({ customer_id: 999, subscription_plan_id: inactive }) }),
      ['customer_id', 'subscription_plan_id'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await send(core, 'POST', '/subscriptions', { body: body({}) }),
      ['customer_id', 'subscription_plan_id'],
      expect.anything(),
    );
    expect(await rows(core, 'subscriptions')).toEqual([]);
  });

  it('keeps metadata as given (string, object, array) up to 1,024 bytes of JSON, and refuses more or other types', async () => {
    const { create } = await arrange();
    for (const metadata of ['order 42', { order: 42, tags: ['a'] }, [1, 'two']])
      expect((await create({ metadata })).body.data.attributes.metadata).toEqual(metadata);
    expect((await create({ metadata: 'é'.repeat(510) })).status).toBe(201); // 1,022 bytes as JSON
    expectInvalidAttributes(await create({ metadata: 'é'.repeat(512) }), ['metadata'], expect.anything());
    expectInvalidAttributes(await create({ metadata: 42 }), ['metadata'], expect.anything());
    expectInvalidAttributes(await create({ metadata: true }), ['metadata'], expect.anything());
  });

  it('takes only absolute http(s) webhook URLs', async () => {
    const { create } = await arrange();
    expect(
      (
        await create({
          subscription_webhook_url: 'https://hooks.example.com/s',
          transaction_webhook_url: 'http://127.0.0.1:9/t',
        })
      ).status,
    ).toBe(201);
    for (const url of ['hooks.example.com/s', 'ftp://example.com/', 'javascript:alert(1)', '/relative']) {
      expectInvalidAttributes(
        await create({ subscription_webhook_url: url }),
        ['subscription_webhook_url'],
        expect.anything(),
      );
    }
  });

  it('on a server that refuses private targets, refuses loopback, private and link-local webhook URLs', async () => {
    const core = await testCore();
    const customer = await createCustomer(core);
    const plan = await makePlan(core);
    const router = createRouter({
      store: core.store,
      clock: core.clock,
      baseUrl: 'http://127.0.0.1:8080',
      allowPrivateWebhooks: false,
    });
    const account = await core.account();
    const post = async (url: string) =>
      (await router.handle(
        {
          method: 'POST',
          path: '/subscriptions',
          body: JSON.stringify(
            body({ customer_id: customer, subscription_plan_id: plan, transaction_webhook_url: url }),
          ),
        },
        account,
      )) as Answer;
    for (const url of [
      'http://127.0.0.1/x',
      'http://localhost:8080/',
      'http://10.1.2.3/',
      'http://192.168.0.1/',
      'http://172.20.0.1/',
      'http://169.254.169.254/latest',
      'http://[::1]/',
      'http://[fd00::1]/',
      'http://2130706433/',
    ]) {
      expectInvalidAttributes(await post(url), ['transaction_webhook_url'], expect.anything());
    }
    expect((await post('https://hooks.example.com/t')).status).toBe(201);
  });

  it('refuses cancel_date before today, and resume_date unless created paused and in the future', async () => {
    const { core, create } = await arrange();
    const before = await everything(core);
    expectInvalidAttributes(await create({ cancel_date: '2026-11-20' }), ['cancel_date'], expect.anything());
    expectInvalidAttributes(await create({ resume_date: '2026-12-20' }), ['resume_date'], expect.anything());
    expectInvalidAttributes(
      await create({ status: 'paused', resume_date: '2026-11-20' }),
      ['resume_date'],
      expect.anything(),
    );
    expectInvalidAttributes(await create({ start_date: '2026-02-30' }), ['start_date'], expect.anything());
    expect(await everything(core)).toEqual(before);
  });

  it('with cancel_date today, cancels at once; created paused with a resume date, resumes on it', async () => {
    const { core, create } = await arrange();
    const cancelled = await create({ status: 'active', cancel_date: '2026-11-21' });
    expect(cancelled.body.data.attributes).toMatchObject({
      status: 'cancelled',
      cancel_date: '2026-11-21T11:00:00+01:00',
    });
    expect((await transactionsOf(core, cancelled.body.data.id)).map((t) => t.attributes.status)).toEqual(['canceled']);
    const paused = made(await create({ status: 'paused', resume_date: '2026-12-10' }));
    await setClock(core, '2026-12-10T12:00:00Z');
    const resumed = (await send(core, 'GET', `/subscriptions/${paused}`)).body.data.attributes;
    expect(resumed).toMatchObject({ status: 'active', resume_date: null });
    // Anchored on the resume day: collected on it, the next cycle a month on.
    expect((await transactionsOf(core, paused)).map((t) => [t.attributes.status, t.attributes.due_date])).toEqual([
      ['scheduled', '2027-01-10T00:00:00+01:00'],
      ['succeeded', '2026-12-10T00:00:00+01:00'],
    ]);
  });
});

describe('PATCH /subscriptions/{id}', () => {
  it('to the status it already has changes nothing (no updated_at, no event, no webhook) and says so in meta', async () => {
    const { core, create, patch } = await arrange();
    const id = made(await create({ status: 'active', mandate_accepted: true, mandate_accepted_date: '2026-11-01' }));
    const first = await patch(id, { status: 'paused' });
    expect(first.status).toBe(200);
    expect(first.body.meta).toBeUndefined();
    await setClock(core, '2026-11-22T10:00:00Z'); // a change now would show in updated_at
    for (const status of ['paused', 'cancelled'] as const) {
      if (status === 'cancelled') expect((await patch(id, { status })).body.meta).toBeUndefined();
      const before = await everything(core);
      const again = await patch(id, { status });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.meta).toEqual({ unchanged: true });
      expect(again.body.data.attributes.status).toBe(status);
      expect(await everything(core)).toEqual(before);
    }
    // With anything else in it, it is an update as before.
    const withMore = await patch(id, { status: 'cancelled', metadata: { note: 'x' } });
    expect(withMore.body.meta).toBeUndefined();
  });

  it('refuses active without an accepted mandate (Invalid State at status), and changes nothing', async () => {
    const { core, create, patch } = await arrange();
    const id = made(await create());
    const before = await everything(core);
    expectError(await patch(id, { status: 'active' }), 400, 'Invalid State', { pointer: '/data/attributes/status' });
    expect(await everything(core)).toEqual(before);
  });

  it('activates with the mandate accepted in the same request, and schedules', async () => {
    const { core, create, patch } = await arrange();
    const id = made(await create());
    const answer = await patch(id, { status: 'active', mandate_accepted: true, mandate_accepted_date: '2026-11-21' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.attributes).toMatchObject({
      status: 'active',
      mandate_accepted: true,
      mandate_accepted_date: '2026-11-21T00:00:00+01:00',
    });
    expect((await transactionsOf(core, id)).map((t) => t.attributes.status)).toEqual(['scheduled']);
  });

  it('follows the transition table: cancelled is final, unverified cannot pause', async () => {
    const { core, create, patch } = await arrange();
    const unverified = made(await create());
    expectError(await patch(unverified, { status: 'paused' }), 400, 'Invalid State', {
      pointer: '/data/attributes/status',
    });
    const id = made(await create({ status: 'active', mandate_accepted: true, mandate_accepted_date: '2026-11-01' }));
    expect((await patch(id, { status: 'cancelled' })).body.data.attributes).toMatchObject({
      status: 'cancelled',
      cancel_date: '2026-11-21T11:00:00+01:00',
    });
    const before = await everything(core);
    for (const status of ['active', 'paused', 'unverified'])
      expectError(await patch(id, { status }), 400, 'Invalid State', { pointer: '/data/attributes/status' });
    expectError(await patch(id, { cancel_date: '2026-12-01' }), 400, 'Invalid State', {
      pointer: '/data/attributes/cancel_date',
    });
    expect(await everything(core)).toEqual(before);
    // Sending the status it has changes nothing and is no error.
    expect((await patch(id, { status: 'cancelled' })).status).toBe(200);
  });

  it('pausing cancels every transaction not yet collected, manual ones too; resuming schedules the first cycle on or after the resume day', async () => {
    const { core, create, patch } = await arrange();
    const id = made(
      await create({
        status: 'active',
        mandate_accepted: true,
        mandate_accepted_date: '2026-11-01',
        start_date: '2026-12-05',
      }),
    );
    const manual = await send(core, 'POST', '/transactions', {
      body: {
        data: { type: 'transaction', attributes: { subscription_id: id, amount: '3.00', due_date: '2026-12-20' } },
      },
    });
    expect(manual.status, JSON.stringify(manual.body)).toBe(201);
    const paused = await patch(id, { status: 'paused', resume_date: '2027-02-10' });
    expect(paused.body.data.attributes).toMatchObject({ status: 'paused', resume_date: '2027-02-10T00:00:00+01:00' });
    expect((await transactionsOf(core, id)).map((t) => [t.attributes.status, t.attributes.canceled_on])).toEqual([
      ['canceled', '2026-11-21T11:00:00+01:00'],
      ['canceled', '2026-11-21T11:00:00+01:00'],
    ]);
    // Resumed by hand on Jan 7, before the resume date: Dec 5 and Jan 5 are skipped, the first cycle on or after the day is Feb 5.
    await setClock(core, '2027-01-07T09:00:00Z');
    expect((await patch(id, { status: 'active' })).body.data.attributes).toMatchObject({
      status: 'active',
      resume_date: null,
    });
    const open = (await transactionsOf(core, id)).filter((t) => t.attributes.status === 'scheduled');
    expect(open.map((t) => t.attributes.due_date)).toEqual(['2027-02-05T00:00:00+01:00']);
    // The resume date passes with nothing left to do: still one future plan transaction.
    await setClock(core, '2027-02-11T00:00:00Z');
    expect(
      (await transactionsOf(core, id)).filter((t) => ['queued', 'scheduled'].includes(t.attributes.status)),
    ).toHaveLength(1);
  });

  it('a future cancel_date leaves the status and cancels on that day; what was collected completes', async () => {
    const { core, create, patch } = await arrange();
    const id = made(await create({ status: 'active' }));
    await setClock(core, '2026-11-22T10:00:00Z'); // the first collection (Nov 21) succeeded
    const answer = await patch(id, { cancel_date: '2026-11-23' });
    expect(answer.body.data.attributes).toMatchObject({ status: 'active', cancel_date: '2026-11-23T00:00:00+01:00' });
    await setClock(core, '2026-12-31T00:00:00Z');
    expect((await send(core, 'GET', `/subscriptions/${id}`)).body.data.attributes).toMatchObject({
      status: 'cancelled',
      cancel_date: '2026-11-23T00:00:00+01:00',
    });
    expect((await transactionsOf(core, id)).map((t) => [t.attributes.due_date, t.attributes.status])).toEqual([
      ['2026-12-21T00:00:00+01:00', 'canceled'],
      ['2026-11-21T00:00:00+01:00', 'fulfilled'],
    ]);
  });

  it('setting confirmation_sent back to false on an unaccepted mandate records a new confirmation; on an accepted one it does not', async () => {
    const { core, create, patch } = await arrange();
    const id = made(await create({ confirmation_sent: true }));
    expect(await rows(core, 'notifications')).toHaveLength(0);
    await patch(id, { confirmation_sent: false });
    expect(await rows(core, 'notifications')).toHaveLength(1);
    await patch(id, { confirmation_sent: false }); // already false: not "back to false"
    expect(await rows(core, 'notifications')).toHaveLength(1);
    const accepted = made(
      await create({ confirmation_sent: true, mandate_accepted: true, mandate_accepted_date: '2026-11-20' }),
    );
    await patch(accepted, { confirmation_sent: false });
    expect(await rows(core, 'notifications')).toHaveLength(1);
  });

  it('gives confirmation_page a new secret when confirmation_sent goes from true to false, and only then', async () => {
    const { core, create, patch } = await arrange();
    const pageOf = (answer: { body: any }) => answer.body.data.attributes.confirmation_page as string;
    const created = await create({ confirmation_sent: true });
    const id = made(created);
    const first = pageOf(created);
    expect(pageOf(await patch(id, { confirmation_sent: true, metadata: 'x' }))).toBe(first);
    const second = pageOf(await patch(id, { confirmation_sent: false }));
    expect(second).not.toBe(first);
    expect(second).toMatch(new RegExp(`/mandate/accept/${id}/[0-9a-f]{64}$`));
    // The confirmation it records carries the new page.
    expect((await rows(core, 'notifications')).map((n) => n.body.includes(`${second}\n`))).toEqual([true]);
    expect(pageOf(await patch(id, { confirmation_sent: false }))).toBe(second); // already false
    expect(pageOf(await patch(id, { confirmation_sent: true }))).toBe(second);
    // On an accepted mandate too: no confirmation is due, but a leaked link can still be replaced.
    const accepted = await create({
      confirmation_sent: true,
      mandate_accepted: true,
      mandate_accepted_date: '2026-11-20',
    });
    const acceptedId = made(accepted);
    expect(pageOf(await patch(acceptedId, { confirmation_sent: false }))).not.toBe(pageOf(accepted));
    // Every subscription has a secret of its own.
    const pages = [first, second, pageOf(accepted), pageOf(await create())];
    const tokens = pages.map((url) => url.slice(url.lastIndexOf('/')));
    expect(new Set(tokens)).toHaveLength(4);
  });

  it('keeps mandate_code, customer_id and subscription_plan_id: accepted only with their current value', async () => {
    const { core, create, patch, customer, plan } = await arrange();
    const id = made(await create());
    const page = (await send(core, 'GET', `/subscriptions/${id}`)).body.data.attributes.confirmation_page as string;
    const current = { mandate_code: `MNDT-${id}`, customer_id: customer, subscription_plan_id: String(plan) };
    expect((await patch(id, { confirmation_page: page })).status).toBe(200);
    expect((await patch(id, { ...current, metadata: 'x' })).status).toBe(200);
    const before = await everything(core);
    expectInvalidAttributes(
      await patch(id, { mandate_code: 'OTHER', customer_id: 99, subscription_plan_id: 99 }),
      ['customer_id', 'mandate_code', 'subscription_plan_id'],
      expect.anything(),
    );
    // The page's URL as it was before it had a secret is not its current value.
    const oldForm = `http://127.0.0.1:8080/mandate/accept/${id}/MNDT-${id}`;
    expectInvalidAttributes(await patch(id, { confirmation_page: oldForm }), ['confirmation_page'], expect.anything());
    expect(await everything(core)).toEqual(before);
  });

  it('a new start date before the first collection starts the plan over from it; after it, Invalid State', async () => {
    const { core, create, patch } = await arrange();
    const id = made(await create({ status: 'active', start_date: '2026-12-15' }));
    await patch(id, { start_date: '2027-01-10' });
    expect((await transactionsOf(core, id)).map((t) => [t.attributes.due_date, t.attributes.status])).toEqual([
      ['2027-01-10T00:00:00+01:00', 'scheduled'],
      ['2026-12-15T00:00:00+01:00', 'canceled'],
    ]);
    await setClock(core, '2027-01-10T12:00:00Z');
    expectError(await patch(id, { start_date: '2027-03-01' }), 400, 'Invalid State', {
      pointer: '/data/attributes/start_date',
    });
  });

  it('an unknown subscription is 404', async () => {
    const { patch } = await arrange();
    expectError(await patch('999', { status: 'active' }), 404, 'Not Found');
  });
});

describe('GET /subscriptions', () => {
  it('filters by status, customer and plan, searches the mandate code, sorts, and includes customers', async () => {
    const { core, create, customer, plan } = await arrange();
    const second = await createCustomer(core, { first_name: 'B', last_name: 'Two', email: 'two@example.com' });
    const a = made(await create({ mandate_code: 'CLUB-A', start_date: '2027-03-01' }));
    const b = made(await create({ status: 'active', start_date: '2027-01-01' }));
    const c = made(
      await send(core, 'POST', '/subscriptions', { body: body({ customer_id: second, subscription_plan_id: plan }) }),
    );
    const ids = async (query: string) =>
      ((await send(core, 'GET', '/subscriptions', { query })).body.data as any[]).map((s) => s.id);
    expect(await ids('filter[status]=active')).toEqual([b]);
    expect(await ids(`filter[customer_id]=${customer}`)).toEqual([a, b]);
    expect(await ids(`filter[subscription_plan_id]=${plan}&sort=-id`)).toEqual([c, b, a]);
    expect(await ids('filter[search]=club')).toEqual([a]);
    // Or by its customer, as customers are searched (every word, any order, case and accents aside).
    expect(await ids('filter[search]=TWO%20b')).toEqual([c]);
    expect(await ids('filter[search]=two%20b&filter[status]=active')).toEqual([]);
    expect(await ids('sort=start_date')).toEqual([c, b, a]);
    const included = await send(core, 'GET', '/subscriptions', {
      query: `include=customer&filter[customer_id]=${customer}`,
    });
    expect(included.body.included.map((r: any) => [r.type, r.id, r.relationships.subscriptions.data.length])).toEqual([
      ['customer', customer, 2],
    ]);
    for (const query of ['filter[status]=gone', 'filter[customer_id]=x', 'sort=mandate_code', 'include=transactions'])
      expect((await send(core, 'GET', '/subscriptions', { query })).status).toBe(400);
  });

  it("a list's subscriptions name their customer and plan in meta: GET /subscriptions, a customer's and a plan's", async () => {
    const { core, create, customer, plan } = await arrange();
    const other = await createCustomer(core, {
      first_name: 'Jan',
      middle_name: 'van der',
      last_name: 'Geer',
      email: 'j@example.com',
    });
    const a = made(await create());
    const b = made(
      await send(core, 'POST', '/subscriptions', { body: body({ customer_id: other, subscription_plan_id: plan }) }),
    );
    const metas = async (path: string) =>
      ((await send(core, 'GET', path)).body.data as any[]).map((s) => [s.id, s.meta]);
    const first = { customer: { id: customer, name: 'First1 Last1' }, plan: { id: String(plan), name: 'Gold' } };
    const second = { customer: { id: other, name: 'Jan van der Geer' }, plan: { id: String(plan), name: 'Gold' } };
    expect(await metas('/subscriptions')).toEqual([
      [a, first],
      [b, second],
    ]);
    expect(await metas(`/customers/${other}/subscriptions`)).toEqual([[b, second]]);
    expect(await metas(`/subscription-plans/${plan}/subscriptions`)).toEqual([
      [a, first],
      [b, second],
    ]);
    // The hosted service's attributes and relationships are as they were: the names are beside them.
    const one = (await send(core, 'GET', '/subscriptions')).body.data[0];
    expect(one.relationships.customer.data).toEqual({ type: 'customer', id: customer });
  });

  it("GET one names the first instant of the account's day by the store's clock in a billing-today header", async () => {
    const { core, create } = await arrange();
    const id = made(await create());
    expect((await send(core, 'GET', `/subscriptions/${id}`)).headers['billing-today']).toBe(
      '2026-11-21T00:00:00+01:00',
    );
    await setClock(core, '2027-07-01T22:30:00Z');
    expect((await send(core, 'GET', `/subscriptions/${id}`)).headers['billing-today']).toBe(
      '2027-07-02T00:00:00+02:00',
    );
  });

  it('GET one includes its customer and plan', async () => {
    const { core, create, customer, plan } = await arrange();
    const id = made(await create());
    const answer = await send(core, 'GET', `/subscriptions/${id}`, { query: 'include=customer,subscription-plan' });
    expect(answer.body.included.map((r: any) => [r.type, r.id])).toEqual([
      ['customer', customer],
      ['subscription-plan', String(plan)],
    ]);
    expect((await send(core, 'GET', '/subscriptions/77')).status).toBe(404);
  });
});

describe('GET /subscription-plans filter[search]', () => {
  it('finds plans by text in their name, case aside (the plan picker of a prompt)', async () => {
    const core = await testCore();
    await makePlan(core, { name: 'Gold Monthly', amount: '10' });
    const silver = await makePlan(core, { name: 'Silver 100%', amount: '5' });
    const names = async (term: string) =>
      (
        (await send(core, 'GET', '/subscription-plans', { query: `filter[search]=${encodeURIComponent(term)}` })).body
          .data as any[]
      ).map((p) => p.id);
    expect(await names('GOLD')).toEqual(['1']);
    expect(await names('100%')).toEqual([String(silver)]);
    expect(await names('%')).toEqual([String(silver)]); // a wildcard is taken literally
    expect(await names('bronze')).toEqual([]);
  });

  it('filter[archived] leaves out or keeps the archived plans (the plan picker offers the others)', async () => {
    const core = await testCore();
    const gold = await makePlan(core, { name: 'Gold', amount: '10' });
    const old = await makePlan(core, { name: 'Old', amount: '5' });
    const archived = await updatePlan(await context(core), old, { archived: true });
    expect(archived.ok).toBe(true);
    const ids = async (query: string) =>
      ((await send(core, 'GET', '/subscription-plans', { query })).body.data as any[]).map((p) => Number(p.id));
    expect(await ids('filter[archived]=false')).toEqual([gold]);
    expect(await ids('filter[archived]=true')).toEqual([old]);
    expect((await send(core, 'GET', '/subscription-plans', { query: 'filter[archived]=no' })).status).toBe(400);
  });
});
