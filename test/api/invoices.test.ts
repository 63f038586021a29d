// Invoices and their lines through the router: exact money, drafts that change and finalised
// invoices that never do, gapless references, credit invoices, and invoices following their
// transaction and their invoice date.
import { describe, expect, it } from 'vitest';
import { createAccount, updateAccount } from '../../src/lib/core/accounts.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { simulateOutcome } from '../../src/lib/core/transaction-writes.js';
import { all } from '../../src/lib/store/unit.js';
import { testCore, type TestCore } from '../helpers/store.js';
import {
  context,
  createCustomer,
  expectError,
  expectInvalidAttributes,
  makePlan,
  send,
  type Answer,
} from './support.js';

const body = (type: string, attributes: Record<string, unknown>, id?: string) => ({
  data: { type, ...(id ? { id } : {}), attributes },
});
const postInvoice = (core: TestCore, attributes: Record<string, unknown>) =>
  send(core, 'POST', '/invoices', { body: body('invoice', attributes) });
const postLine = (core: TestCore, attributes: Record<string, unknown>) =>
  send(core, 'POST', '/invoice-lines', { body: body('invoice-line', attributes) });
const getInvoice = async (core: TestCore, id: string) => (await send(core, 'GET', `/invoices/${id}`)).body.data;
const finalise = (core: TestCore, id: string, attributes?: Record<string, unknown>) =>
  send(core, 'PATCH', `/invoices/${id}/finalise`, attributes ? { body: body('invoice', attributes, id) } : {});

const ok = (answer: Answer, status = 200): any => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body.data;
};

/** An active subscription (monthly plan of 12.50 from 2026-12-01) and a draft invoice on it; TEST_NOW is 2026-11-21 11:00 in Amsterdam. */
async function arrange(options: { sendInvoice?: boolean; status?: string; retries?: number } = {}) {
  const core = await testCore();
  const customer = await createCustomer(core);
  const plan = await makePlan(core, {
    name: 'Gold',
    amount: '12.50',
    send_invoice: options.sendInvoice ?? false,
    storno_retries: options.retries ?? 0,
  });
  const subscription = ok(
    await send(core, 'POST', '/subscriptions', {
      body: body('subscription', {
        customer_id: customer,
        subscription_plan_id: plan,
        status: options.status ?? 'active',
        start_date: '2026-12-01',
        confirmation_sent: true,
      }),
    }),
    201,
  ).id as string;
  const invoice = ok(await postInvoice(core, { subscription_id: subscription }), 201).id as string;
  return { core, customer, plan, subscription, invoice };
}

const lunchbox = (invoice: string, extra: Record<string, unknown> = {}) => ({
  invoice_id: Number(invoice),
  description: 'lunchbox',
  amount: 10.0,
  tax_rate: 21.0,
  tax_included: false,
  quantity: 2,
  ...extra,
});

describe('POST /invoices', () => {
  it('answers 201 with a draft shaped as the hosted service’s: DRAFT, zero amounts, no transaction, no original', async () => {
    const { core, subscription, customer } = await arrange();
    const answer = await postInvoice(core, { subscription_id: subscription });
    const data = ok(answer, 201);
    expect(answer.headers.location).toBe(`http://127.0.0.1:8080/invoices/${data.id}`);
    expect(data.attributes).toEqual({
      status: 'draft',
      reference: 'DRAFT',
      amount_excl: '0.00',
      amount_incl: '0.00',
      tax_rates: [],
      tax_amount: '0.00',
      invoice_date: null,
      transaction_date: null,
      hosted_invoice_url: null,
      send_email: false,
      refunded_on: null,
      created_at: '2026-11-21T11:00:00+01:00',
      updated_at: '2026-11-21T11:00:00+01:00',
    });
    expect(data.relationships).toEqual({
      subscription: {
        links: { related: `http://127.0.0.1:8080/invoices/${data.id}/subscription` },
        data: { type: 'subscription', id: subscription },
      },
      customer: {
        links: { related: `http://127.0.0.1:8080/invoices/${data.id}/customer` },
        data: { type: 'customer', id: customer },
      },
      'invoice-lines': { links: { related: `http://127.0.0.1:8080/invoices/${data.id}/lines` }, data: [] },
      transaction: { data: null },
      'original-invoice': { data: null },
    });
  });

  it('takes send_email from the plan when not given', async () => {
    const { core, subscription } = await arrange({ sendInvoice: true });
    expect(ok(await postInvoice(core, { subscription_id: subscription }), 201).attributes.send_email).toBe(true);
    expect(
      ok(await postInvoice(core, { subscription_id: subscription, send_email: false }), 201).attributes.send_email,
    ).toBe(false);
  });

  it('copies one date into the other when missing, and checks them against today and each other', async () => {
    const { core, subscription } = await arrange();
    const both = ok(
      await postInvoice(core, { subscription_id: subscription, invoice_date: '2026-11-21' }),
      201,
    ).attributes;
    expect([both.invoice_date, both.transaction_date]).toEqual([
      '2026-11-21T00:00:00+01:00',
      '2026-11-21T00:00:00+01:00',
    ]);
    // A transaction date alone: the invoice date copies it, and the draft is finalised when that day has ended.
    const later = ok(
      await postInvoice(core, { subscription_id: subscription, transaction_date: '2026-12-10' }),
      201,
    ).attributes;
    expect([later.invoice_date, later.transaction_date]).toEqual([
      '2026-12-10T00:00:00+01:00',
      '2026-12-10T00:00:00+01:00',
    ]);
    expectInvalidAttributes(
      await postInvoice(core, { subscription_id: subscription, invoice_date: '2026-11-22' }),
      ['invoice_date'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await postInvoice(core, {
        subscription_id: subscription,
        invoice_date: '2026-11-20',
        transaction_date: '2026-11-19',
      }),
      ['transaction_date'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await postInvoice(core, { subscription_id: subscription, invoice_date: 'tomorrow' }),
      ['invoice_date'],
      expect.anything(),
    );
  });

  it('refuses an unknown subscription, an unknown or draft original, and read-only attributes, writing nothing', async () => {
    const { core, subscription, invoice } = await arrange();
    expectInvalidAttributes(await postInvoice(core, { subscription_id: 999 }), ['subscription_id'], expect.anything());
    expectInvalidAttributes(
      await postInvoice(core, { subscription_id: subscription, original_invoice_id: 999 }),
      ['original_invoice_id'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await postInvoice(core, { subscription_id: subscription, original_invoice_id: Number(invoice) }),
      ['original_invoice_id'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await postInvoice(core, { subscription_id: subscription, reference: 'INV-9' }),
      ['reference'],
      expect.anything(),
    );
    expect((await send(core, 'GET', '/invoices')).body.meta.total).toBe(1);
  });
});

describe('invoice lines and exact money', () => {
  it('prices a line as the hosted service does and keeps the invoice’s totals', async () => {
    const { core, invoice } = await arrange();
    const answer = await postLine(core, lunchbox(invoice));
    const line = ok(answer, 201);
    expect(answer.headers.location).toBe(`http://127.0.0.1:8080/invoice-lines/${line.id}`);
    expect(line.attributes).toEqual({
      description: 'lunchbox',
      amount_excl: '10.00',
      amount_incl: '12.10',
      tax_rate: '21.00',
      tax_amount: '2.10',
      tax_included: false,
      quantity: 2,
      created_at: '2026-11-21T11:00:00+01:00',
      updated_at: '2026-11-21T11:00:00+01:00',
    });
    expect(line.relationships).toBeUndefined();
    ok(
      await postLine(
        core,
        lunchbox(invoice, { description: 'soup', amount: '3.27', tax_rate: '9', tax_included: true, quantity: 3 }),
      ),
      201,
    );
    const attributes = (await getInvoice(core, invoice)).attributes;
    // 3.27 incl 9%: excl round(327 x 100 / 109) = 300, tax 27; three of them.
    expect([attributes.amount_excl, attributes.tax_amount, attributes.amount_incl]).toEqual(['29.00', '5.01', '34.01']);
    expect(attributes.tax_rates).toEqual([
      { amount: '4.20', rate: '21.00' },
      { amount: '0.81', rate: '9.00' },
    ]);
  });

  it('rounds half away from zero, discounts included', async () => {
    const { core, invoice } = await arrange();
    // 0.05 at 21%: 1.05 cents of tax is 1 cent; -0.05 is -1 cent; 0.10 at 5%: 0.5 cents is 1 cent.
    const tax = async (amount: string, rate: string) =>
      ok(await postLine(core, lunchbox(invoice, { amount, tax_rate: rate, quantity: 1 })), 201).attributes.tax_amount;
    expect(await tax('0.05', '21')).toBe('0.01');
    expect(await tax('-0.05', '21')).toBe('-0.01');
    expect(await tax('0.10', '5')).toBe('0.01');
    expect(await tax('-0.10', '5')).toBe('-0.01');
  });

  it('refuses amounts with more than two decimals, rates outside 0 to 100, quantities below 1, and changes nothing', async () => {
    const { core, invoice } = await arrange();
    expectInvalidAttributes(await postLine(core, lunchbox(invoice, { amount: 10.005 })), ['amount'], expect.anything());
    expectInvalidAttributes(await postLine(core, lunchbox(invoice, { amount: '1e3' })), ['amount'], expect.anything());
    expectInvalidAttributes(
      await postLine(core, lunchbox(invoice, { tax_rate: 21.555 })),
      ['tax_rate'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await postLine(core, lunchbox(invoice, { tax_rate: 100.01 })),
      ['tax_rate'],
      expect.anything(),
    );
    expectInvalidAttributes(await postLine(core, lunchbox(invoice, { tax_rate: -1 })), ['tax_rate'], expect.anything());
    expectInvalidAttributes(await postLine(core, lunchbox(invoice, { quantity: 0 })), ['quantity'], expect.anything());
    expectInvalidAttributes(
      await postLine(core, lunchbox(invoice, { quantity: 1.5 })),
      ['quantity'],
      expect.anything(),
    );
    expectInvalidAttributes(
      await postLine(core, lunchbox(invoice, { invoice_id: 999 })),
      ['invoice_id'],
      expect.anything(),
    );
    expect((await getInvoice(core, invoice)).relationships['invoice-lines'].data).toEqual([]);
  });

  it('changes and deletes lines of a draft, the totals following', async () => {
    const { core, invoice } = await arrange();
    const line = ok(await postLine(core, lunchbox(invoice)), 201).id as string;
    const changed = ok(
      await send(core, 'PATCH', `/invoice-lines/${line}`, { body: body('invoice-line', { quantity: 7 }, line) }),
    );
    expect(changed.attributes.quantity).toBe(7);
    expect((await getInvoice(core, invoice)).attributes.amount_incl).toBe('84.70');
    expectInvalidAttributes(
      await send(core, 'PATCH', `/invoice-lines/${line}`, { body: body('invoice-line', { invoice_id: 999 }, line) }),
      ['invoice_id'],
      expect.anything(),
    );
    expect((await send(core, 'DELETE', `/invoice-lines/${line}`)).status).toBe(204);
    expect((await send(core, 'GET', `/invoice-lines/${line}`)).status).toBe(404);
    expect((await getInvoice(core, invoice)).attributes).toMatchObject({
      amount_excl: '0.00',
      amount_incl: '0.00',
      tax_rates: [],
    });
  });
});

describe('finalising', () => {
  it('needs a draft with a line; gives gapless references and links a transaction due today', async () => {
    const { core, subscription, invoice } = await arrange();
    expectError(await finalise(core, invoice), 400, 'Invalid State', { pointer: '/data' });
    ok(await postLine(core, lunchbox(invoice)), 201);
    const open = ok(await finalise(core, invoice));
    expect(open.attributes).toMatchObject({
      status: 'open',
      reference: 'INV-1',
      amount_incl: '24.20',
      invoice_date: '2026-11-21T00:00:00+01:00',
      transaction_date: '2026-11-21T00:00:00+01:00',
    });
    expect(open.attributes.hosted_invoice_url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/invoice\/[A-Za-z0-9_-]{32}$/);
    const tx = open.relationships.transaction.data;
    expect(tx.type).toBe('transaction');
    const transaction = (await send(core, 'GET', `/transactions/${tx.id}`)).body.data.attributes;
    expect(transaction).toMatchObject({
      status: 'queued',
      amount: 24.2,
      due_date: '2026-11-21T00:00:00+01:00',
      description: 'INV-1 Gold',
    });
    expect(
      (await send(core, 'GET', `/subscriptions/${subscription}/transactions`)).body.data.map((t: any) => t.id),
    ).toContain(tx.id);
    const second = ok(await postInvoice(core, { subscription_id: subscription }), 201).id;
    ok(await postLine(core, lunchbox(second)), 201);
    expect(ok(await finalise(core, second)).attributes.reference).toBe('INV-2');
  });

  it('refuses every change after finalising as Invalid State, and changes nothing', async () => {
    const { core, invoice } = await arrange();
    const line = ok(await postLine(core, lunchbox(invoice)), 201).id as string;
    const before = ok(await finalise(core, invoice));
    const refusals = [
      await finalise(core, invoice),
      await send(core, 'PATCH', `/invoices/${invoice}`, { body: body('invoice', { send_email: true }, invoice) }),
      await send(core, 'DELETE', `/invoices/${invoice}`),
      await postLine(core, lunchbox(invoice)),
      await send(core, 'PATCH', `/invoice-lines/${line}`, { body: body('invoice-line', { quantity: 9 }, line) }),
      await send(core, 'DELETE', `/invoice-lines/${line}`),
    ];
    for (const answer of refusals) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.errors[0].title).toBe('Invalid State');
    }
    expect(await getInvoice(core, invoice)).toEqual(before);
    expect((await send(core, 'GET', `/invoice-lines/${line}`)).body.data.attributes.quantity).toBe(2);
  });

  it('completes an invoice of zero or less without a transaction', async () => {
    const { core, invoice, subscription } = await arrange();
    ok(await postLine(core, lunchbox(invoice, { amount: '-5.00' })), 201);
    const done = ok(await finalise(core, invoice));
    expect(done.attributes).toMatchObject({
      status: 'completed',
      reference: 'INV-1',
      amount_incl: '-12.10',
      transaction_date: null,
    });
    expect(done.relationships.transaction.data).toBeNull();
    expect(
      (await send(core, 'GET', `/subscriptions/${subscription}/transactions`)).body.data.every(
        (t: any) => t.attributes.description !== 'INV-1 Gold',
      ),
    ).toBe(true);
  });

  it('collects only under an active subscription: paused, the invoice stays open without a transaction', async () => {
    const { core, invoice, subscription } = await arrange();
    ok(
      await send(core, 'PATCH', `/subscriptions/${subscription}`, {
        body: body('subscription', { status: 'paused' }, subscription),
      }),
    );
    ok(await postLine(core, lunchbox(invoice)), 201);
    const open = ok(await finalise(core, invoice));
    expect(open.attributes.status).toBe('open');
    expect(open.relationships.transaction.data).toBeNull();
  });

  it('records the invoice email when send_email resolves to true, in the customer’s language, with the page’s link', async () => {
    const { core, invoice, subscription } = await arrange({ sendInvoice: false });
    ok(await postLine(core, lunchbox(invoice)), 201);
    const open = ok(await finalise(core, invoice, { send_email: true }));
    expect(open.attributes.send_email).toBe(true);
    const notes = (await send(core, 'GET', '/notifications')).body.data.filter(
      (n: any) => n.attributes.kind === 'invoice',
    );
    expect(notes).toHaveLength(1);
    expect(notes[0].attributes).toMatchObject({
      channel: 'email',
      language: 'nl',
      recipient: 'person1@example.com',
      subject: 'Factuur INV-1',
    });
    expect(notes[0].attributes.body).toContain(open.attributes.hosted_invoice_url);
    expect(notes[0].attributes.body).toContain('24.20');
    // Left to the plan (send_invoice false): no email.
    const quiet = ok(await postInvoice(core, { subscription_id: subscription }), 201).id;
    ok(await postLine(core, lunchbox(quiet)), 201);
    ok(await finalise(core, quiet));
    expect(
      (await send(core, 'GET', '/notifications')).body.data.filter((n: any) => n.attributes.kind === 'invoice'),
    ).toHaveLength(1);
  });

  it('uses the account’s prefix at the time: a new prefix changes later references, the numbers go on', async () => {
    const { core, invoice, subscription } = await arrange();
    ok(await postLine(core, lunchbox(invoice)), 201);
    ok(await finalise(core, invoice));
    const account = await core.account();
    expect((await updateAccount(core.store, core.clock, account.name, { invoice_prefix: 'ECUR-' })).ok).toBe(true);
    const next = ok(await postInvoice(core, { subscription_id: subscription }), 201).id;
    ok(await postLine(core, lunchbox(next)), 201);
    expect(ok(await finalise(core, next)).attributes.reference).toBe('ECUR-2');
    expect((await getInvoice(core, invoice)).attributes.reference).toBe('INV-1');
  });
});

describe('credit invoices', () => {
  it('copies the lines negated, sets the original, leaves the dates empty and the original as it was', async () => {
    const { core, invoice } = await arrange();
    ok(await postLine(core, lunchbox(invoice)), 201);
    ok(
      await postLine(core, lunchbox(invoice, { amount: '3.27', tax_rate: '9', tax_included: true, quantity: 3 })),
      201,
    );
    expectError(await send(core, 'PATCH', `/invoices/${invoice}/credit`), 400, 'Invalid State', { pointer: '/data' });
    const original = ok(await finalise(core, invoice));
    for (const method of ['POST', 'PATCH']) {
      const credit = ok(await send(core, method, `/invoices/${invoice}/credit`));
      expect(credit.attributes).toMatchObject({
        status: 'draft',
        reference: 'DRAFT',
        amount_excl: '-29.00',
        tax_amount: '-5.01',
        amount_incl: '-34.01',
        tax_rates: [
          { amount: '-4.20', rate: '21.00' },
          { amount: '-0.81', rate: '9.00' },
        ],
        invoice_date: null,
        transaction_date: null,
      });
      expect(credit.relationships['original-invoice'].data).toEqual({ type: 'invoice', id: invoice });
      const lines = (await send(core, 'GET', `/invoices/${credit.id}/lines`)).body.data.map((l: any) => l.attributes);
      expect(lines.map((l: any) => [l.amount_excl, l.amount_incl, l.tax_rate, l.tax_included, l.quantity])).toEqual([
        ['-10.00', '-12.10', '21.00', false, 2],
        ['-3.00', '-3.27', '9.00', true, 3],
      ]); // Credited in full once: the draft goes before the other method credits again.
      expect((await send(core, 'DELETE', `/invoices/${credit.id}`)).status).toBe(204);
    }
    expect(await getInvoice(core, invoice)).toEqual(original);
    expect((await send(core, 'PATCH', '/invoices/999/credit')).status).toBe(404);
  });
});

/** Issue 23, point 1: credits follow money rules (docs/credits.md). */
describe('credits follow money rules', () => {
  const credit = (core: TestCore, id: string, lines?: unknown[]) =>
    send(core, 'POST', `/invoices/${id}/credit`, lines ? { body: body('invoice', { lines }) } : {});
  const txStatus = async (core: TestCore, invoice: any) =>
    (await send(core, 'GET', `/transactions/${invoice.relationships.transaction.data.id}`)).body.data.attributes
      .status as string;
  const refundDue = async (core: TestCore) =>
    (await send(core, 'GET', '/invoices', { query: 'filter[status]=completed&filter[refund_due]=true' })).body.data.map(
      (i: any) => i.id as string,
    );
  /** An open invoice of 24.20 (2 lunchboxes) and 3.27 (3 x 1.09, tax included): 27.47 in all. */
  async function open(options: { retries?: number } = {}) {
    const arranged = await arrange(options);
    const { core, invoice } = arranged;
    ok(await postLine(core, lunchbox(invoice)), 201);
    ok(
      await postLine(core, lunchbox(invoice, { amount: '1.09', tax_rate: '9', tax_included: true, quantity: 3 })),
      201,
    );
    const lines = (await send(core, 'GET', `/invoices/${invoice}/lines`)).body.data.map((l: any) => Number(l.id));
    return { ...arranged, lines, opened: ok(await finalise(core, invoice)) };
  }

  it('credits an invoice in full once: a second credit is Invalid State naming the credit invoice, draft or finalised', async () => {
    const { core, invoice } = await open();
    const dropped = ok(await credit(core, invoice)).id as string;
    const again = await credit(core, invoice);
    expectError(again, 400, 'Invalid State', { pointer: '/data' });
    expect(again.body.errors[0].detail).toBe(
      `invoice ${invoice} (INV-1) is credited in full already, by credit invoice ${dropped} (a draft)`,
    );
    // A deleted draft credits nothing: the invoice may be credited again.
    expect((await send(core, 'DELETE', `/invoices/${dropped}`)).status).toBe(204);
    const first = ok(await credit(core, invoice)).id as string;
    ok(await finalise(core, first));
    const after = await credit(core, invoice);
    expectError(after, 400, 'Invalid State', { pointer: '/data' });
    expect(after.body.errors[0].detail).toContain(`by credit invoice ${first} (INV-2)`);
    const credits = (await send(core, 'GET', '/invoices')).body.data.filter(
      (i: any) => i.relationships['original-invoice'].data?.id === invoice,
    );
    expect(credits.map((i: any) => i.id)).toEqual([first]);
  });

  it('never credits a credit invoice, by credit or by naming it as an original', async () => {
    const { core, invoice, subscription } = await open();
    const made = ok(await credit(core, invoice)).id as string;
    ok(await finalise(core, made));
    const refused = await credit(core, made);
    expectError(refused, 400, 'Invalid State', { pointer: '/data' });
    expect(refused.body.errors[0].detail).toContain('a credit invoice cannot be credited');
    const attributes = { subscription_id: subscription, original_invoice_id: Number(made) };
    expectInvalidAttributes(await postInvoice(core, attributes), ['original_invoice_id'], {
      data: { type: 'invoice', attributes },
    });
  });

  it('a credit in full of an open invoice not yet collected cancels its transaction and the invoice: nothing is charged', async () => {
    const { core, invoice, opened } = await open();
    expect(await txStatus(core, opened)).toBe('queued');
    const made = ok(await credit(core, invoice)).id as string;
    const finalised = ok(await finalise(core, made));
    expect(finalised.attributes).toMatchObject({ status: 'completed', amount_incl: '-27.47', refunded_on: null });
    expect(finalised.relationships.transaction.data).toBeNull();
    expect((await getInvoice(core, invoice)).attributes.status).toBe('cancelled');
    expect(await txStatus(core, opened)).toBe('canceled');
    await setClock(core, '2026-11-30T12:00:00Z');
    expect(await txStatus(core, opened)).toBe('canceled');
    expect((await getInvoice(core, invoice)).attributes.status).toBe('cancelled');
    // Nothing was collected, so nothing is owed back.
    expect(await refundDue(core)).toEqual([]);
  });

  it('a credit of a collected or paid invoice leaves it so; the credit is refund due until marked refunded', async () => {
    const { core, invoice, opened } = await open();
    await setClock(core, '2026-11-21T12:00:00Z');
    expect(await txStatus(core, opened)).toBe('succeeded');
    const made = ok(await credit(core, invoice)).id as string;
    expect(await refundDue(core)).toEqual([]); // a draft owes nothing yet
    ok(await finalise(core, made));
    expect((await getInvoice(core, invoice)).attributes.status).toBe('open');
    expect(await txStatus(core, opened)).toBe('succeeded');
    expect(await refundDue(core)).toEqual([made]);
    await setClock(core, '2026-11-25T12:00:00Z');
    expect((await getInvoice(core, invoice)).attributes.status).toBe('paid');
    expect(await refundDue(core)).toEqual([made]);
    // Only a credit owed to the customer is refunded, on or before today, once.
    expectError(await send(core, 'PATCH', `/invoices/${invoice}/refunded`), 400, 'Invalid State', { pointer: '/data' });
    const future = { data: { type: 'invoice', attributes: { refunded_on: '2026-11-26' } } };
    expectInvalidAttributes(
      await send(core, 'PATCH', `/invoices/${made}/refunded`, { body: future }),
      ['refunded_on'],
      future,
    );
    const on = { data: { type: 'invoice', attributes: { refunded_on: '2026-11-24' } } };
    const refunded = ok(await send(core, 'PATCH', `/invoices/${made}/refunded`, { body: on }));
    expect(refunded.attributes.refunded_on).toBe('2026-11-24T00:00:00+01:00');
    expect(await refundDue(core)).toEqual([]);
    const twice = await send(core, 'PATCH', `/invoices/${made}/refunded`);
    expectError(twice, 400, 'Invalid State', { pointer: '/data' });
    expect(twice.body.errors[0].detail).toBe(`invoice ${made}: marked refunded already, on 2026-11-24`);
    const others = (await send(core, 'GET', '/invoices', { query: 'filter[refund_due]=false' })).body.data;
    expect(others.map((i: any) => i.id)).toEqual([invoice, made]);
  });

  it('a returned collection of an invoice credited in full is not retried: it fails for good, and nothing is owed back', async () => {
    const { core, invoice, opened } = await open({ retries: 2 });
    const tx = opened.relationships.transaction.data.id as string;
    await setClock(core, '2026-11-21T12:00:00Z');
    ok(await finalise(core, ok(await credit(core, invoice)).id));
    const made = (await refundDue(core))[0];
    expect(made).toBeDefined();
    // The bank gives the money back: the customer has paid nothing, and a retry would charge for the credit.
    expect((await simulateOutcome(await context(core), tx, 'charged_back', 'MS03')).ok).toBe(true);
    const history = async () =>
      (await send(core, 'GET', `/transactions/${tx}`)).body.data.attributes.history.map((h: any) => h.status);
    expect(await txStatus(core, opened)).toBe('failed');
    expect(await history()).toEqual(['scheduled', 'succeeded', 'charged_back', 'failed']);
    expect((await getInvoice(core, invoice)).attributes.status).toBe('charged_back');
    expect(await refundDue(core)).toEqual([]);
    await setClock(core, '2026-12-10T12:00:00Z');
    expect(await txStatus(core, opened)).toBe('failed');
  });

  it('a returned collection of an invoice credited in part is retried in full, the credit owed back once it is collected', async () => {
    const { core, invoice, lines, opened } = await open({ retries: 2 });
    const tx = opened.relationships.transaction.data.id as string;
    await setClock(core, '2026-11-21T12:00:00Z');
    const part = ok(await credit(core, invoice, [{ line_id: lines[1] }]));
    ok(await finalise(core, part.id));
    expect((await simulateOutcome(await context(core), tx, 'charged_back', 'MS03')).ok).toBe(true);
    expect(await txStatus(core, opened)).toBe('rescheduled');
    expect(await refundDue(core)).toEqual([]);
    await setClock(core, '2026-12-10T12:00:00Z');
    expect(await txStatus(core, opened)).toBe('fulfilled');
    expect(await refundDue(core)).toEqual([part.id]);
  });

  it('credits chosen lines; all the credits of an invoice never come to more than it (Invalid Attribute with the pointer)', async () => {
    const { core, invoice, lines, opened } = await open();
    const [boxes, small] = lines;
    const part = ok(await credit(core, invoice, [{ line_id: boxes, quantity: 1 }]));
    expect(part.attributes).toMatchObject({ amount_incl: '-12.10' });
    const original = (over: unknown[]) => ({ data: { type: 'invoice', attributes: { lines: over } } });
    const over = [{ line_id: small }, { line_id: boxes, quantity: 2 }];
    const refused = await credit(core, invoice, over);
    expectInvalidAttributes(refused, ['lines/1/quantity'], original(over));
    expect(refused.body.errors[0].detail).toBe(
      `lines/1/quantity is more than the 1 of line ${boxes} left to credit (of 2)`,
    );
    expectInvalidAttributes(
      await credit(core, invoice, [{ line_id: 999_999 }]),
      ['lines/0/line_id'],
      original([{ line_id: 999_999 }]),
    );
    expectInvalidAttributes(
      await credit(core, invoice, [{ line_id: small, quantity: 0 }]),
      ['lines/0/quantity'],
      original([{ line_id: small, quantity: 0 }]),
    );
    // A partial credit of an open invoice leaves it open, its transaction to collect in full.
    ok(await finalise(core, part.id));
    expect((await getInvoice(core, invoice)).attributes.status).toBe('open');
    expect(await txStatus(core, opened)).toBe('queued');
    // Without lines, the rest: one lunchbox and the three small ones. That credits it in full: cancelled.
    const rest = ok(await credit(core, invoice));
    expect(rest.attributes.amount_incl).toBe('-15.37');
    const restLines = (await send(core, 'GET', `/invoices/${rest.id}/lines`)).body.data.map(
      (l: any) => l.attributes.quantity,
    );
    expect(restLines).toEqual([1, 3]);
    expectError(await credit(core, invoice, [{ line_id: small }]), 400, 'Invalid Attribute', {
      pointer: '/data/attributes/lines/0/line_id',
    });
    ok(await finalise(core, rest.id));
    expect((await getInvoice(core, invoice)).attributes.status).toBe('cancelled');
    expect(await txStatus(core, opened)).toBe('canceled');
  });

  it('refuses to finalise a credit made by hand that would take the credits past the invoice, and writes nothing', async () => {
    const { core, invoice, subscription } = await open();
    const full = ok(await credit(core, invoice)).id as string;
    const byHand = ok(
      await postInvoice(core, { subscription_id: subscription, original_invoice_id: Number(invoice) }),
      201,
    ).id;
    ok(await postLine(core, lunchbox(byHand, { amount: -1 })), 201);
    ok(await finalise(core, byHand));
    const refused = await finalise(core, full);
    expectError(refused, 400, 'Invalid State', { pointer: '/data' });
    expect(refused.body.errors[0].detail).toBe(
      `invoice ${full}: the credits of invoice ${invoice} would come to 29.89, more than its 27.47 (2.42 credited already)`,
    );
    expect((await getInvoice(core, full)).attributes.status).toBe('draft');
    expect((await getInvoice(core, invoice)).attributes.status).toBe('open');
  });

  it('refuses to finalise a credit whose lines were changed to a total above zero: a credit is never collected', async () => {
    const { core, invoice } = await open();
    const draft = ok(await credit(core, invoice));
    const [line] = (await send(core, 'GET', `/invoices/${draft.id}/lines`)).body.data;
    ok(
      await send(core, 'PATCH', `/invoice-lines/${line.id}`, {
        body: body('invoice-line', { amount: '50.00', quantity: 5 }, line.id),
      }),
    );
    const refused = await finalise(core, draft.id);
    expectError(refused, 400, 'Invalid State', { pointer: '/data' });
    expect(refused.body.errors[0].detail).toMatch(
      new RegExp(
        `a credit of invoice ${invoice} \\([\\d.]+\\) must come to zero or less, and this one comes to \\d+\\.\\d\\d`,
      ),
    );
    expect((await getInvoice(core, draft.id)).attributes.status).toBe('draft');
    expect((await getInvoice(core, draft.id)).relationships.transaction.data).toBeNull();
    expect((await getInvoice(core, invoice)).attributes.status).toBe('open');
  });
});

describe('paying and following the transaction', () => {
  it('pay marks an open invoice paid and cancels its transaction not yet collected; other states are Invalid State', async () => {
    const { core, invoice } = await arrange();
    expectError(await send(core, 'PATCH', `/invoices/${invoice}/pay`), 400, 'Invalid State', { pointer: '/data' });
    ok(await postLine(core, lunchbox(invoice)), 201);
    const open = ok(await finalise(core, invoice));
    expect(ok(await send(core, 'PATCH', `/invoices/${invoice}/pay`)).attributes.status).toBe('paid');
    expect(
      (await send(core, 'GET', `/transactions/${open.relationships.transaction.data.id}`)).body.data.attributes.status,
    ).toBe('canceled');
    expect((await getInvoice(core, invoice)).attributes.status).toBe('paid');
    expectError(await send(core, 'PATCH', `/invoices/${invoice}/pay`), 400, 'Invalid State', { pointer: '/data' });
  });

  it('pay is refused while its collection has succeeded and the funds settle; once the bank returns them, pay cancels the retry: collected once', async () => {
    const { core, invoice } = await arrange({ retries: 2 });
    ok(await postLine(core, lunchbox(invoice)), 201);
    const txId = ok(await finalise(core, invoice)).relationships.transaction.data.id as string;
    const status = async () => (await send(core, 'GET', `/transactions/${txId}`)).body.data.attributes.status;
    await setClock(core, '2026-11-21T10:00:01Z'); // its collection, due today, is made
    expect(await status()).toBe('succeeded');
    const refused = await send(core, 'PATCH', `/invoices/${invoice}/pay`);
    expectError(refused, 400, 'Invalid State', { pointer: '/data' });
    expect(JSON.stringify(refused.body)).toContain(`transaction ${txId} succeeded`);
    expect((await getInvoice(core, invoice)).attributes.status).toBe('open');
    // The bank returns the funds: a storno retry is scheduled; paid by hand now, it is canceled.
    expect((await simulateOutcome(await context(core), txId, 'charged_back', 'AM04')).ok).toBe(true);
    expect(await status()).toBe('rescheduled');
    expect(ok(await send(core, 'PATCH', `/invoices/${invoice}/pay`)).attributes.status).toBe('paid');
    expect(await status()).toBe('canceled');
    await setClock(core, '2026-12-10T10:00:00Z');
    expect(await status()).toBe('canceled');
    expect((await getInvoice(core, invoice)).attributes.status).toBe('paid');
  });

  it('is paid when its transaction is fulfilled, charged back when it fails for good, cancelled when it is canceled', async () => {
    const { core, subscription, invoice } = await arrange({ retries: 0 });
    const finalised = async (id: string) => {
      ok(await postLine(core, lunchbox(id)), 201);
      return ok(await finalise(core, id)).relationships.transaction.data.id as string;
    };
    const paid = invoice;
    await finalised(paid);
    const failing = ok(await postInvoice(core, { subscription_id: subscription }), 201).id;
    const failingTx = await finalised(failing);
    expect((await simulateOutcome(await context(core), failingTx, 'failed', 'AM04')).ok).toBe(true);
    const canceled = ok(
      await postInvoice(core, { subscription_id: subscription, transaction_date: '2026-12-20' }),
      201,
    ).id;
    // Its invoice date copies the transaction date (in the future): finalised by hand now.
    const canceledTx = await finalised(canceled);
    expect((await send(core, 'DELETE', `/transactions/${canceledTx}`)).status).toBe(204);
    expect((await getInvoice(core, canceled)).attributes.status).toBe('cancelled');
    await setClock(core, '2026-11-25T12:00:00Z');
    expect((await getInvoice(core, paid)).attributes.status).toBe('paid');
    expect((await getInvoice(core, failing)).attributes.status).toBe('charged_back');
    // Charged back, it can still be paid by hand.
    expect(ok(await send(core, 'PATCH', `/invoices/${failing}/pay`)).attributes.status).toBe('paid');
  });
});

describe('automatic finalisation', () => {
  it('finalises a draft with lines when its invoice date has ended, in date order; a draft without lines waits for one', async () => {
    const { core, subscription, invoice } = await arrange();
    ok(
      await send(core, 'PATCH', `/invoices/${invoice}`, {
        body: body('invoice', { invoice_date: '2026-11-21' }, invoice),
      }),
    );
    ok(await postLine(core, lunchbox(invoice)), 201);
    const empty = ok(await postInvoice(core, { subscription_id: subscription, invoice_date: '2026-11-20' }), 201).id;
    await setClock(core, '2026-11-21T22:59:59Z'); // 23:59:59 in Amsterdam: the day has not ended
    expect((await getInvoice(core, invoice)).attributes.status).toBe('draft');
    await setClock(core, '2026-11-21T23:00:00Z');
    const open = await getInvoice(core, invoice);
    expect(open.attributes).toMatchObject({
      status: 'open',
      reference: 'INV-1',
      updated_at: '2026-11-22T00:00:00+01:00',
    });
    expect((await getInvoice(core, empty)).attributes.status).toBe('draft');
    ok(await postLine(core, lunchbox(empty)), 201);
    await setClock(core, '2026-11-21T23:00:01Z');
    // Dated the 20th, finalised on the 22nd: its transaction is due, and dated, the 22nd.
    const late = await getInvoice(core, empty);
    expect(late.attributes).toMatchObject({
      status: 'open',
      reference: 'INV-2',
      invoice_date: '2026-11-20T00:00:00+01:00',
      transaction_date: '2026-11-22T00:00:00+01:00',
    });
    expect(
      (await send(core, 'GET', `/transactions/${late.relationships.transaction.data.id}`)).body.data.attributes
        .due_date,
    ).toBe('2026-11-22T00:00:00+01:00');
  });
});

describe('deleting and reading', () => {
  it('deletes a draft and its lines (204)', async () => {
    const { core, invoice } = await arrange();
    const line = ok(await postLine(core, lunchbox(invoice)), 201).id;
    const answer = await send(core, 'DELETE', `/invoices/${invoice}`);
    expect(answer.status).toBe(204);
    expect(answer.body).toBeUndefined();
    expect((await send(core, 'GET', `/invoices/${invoice}`)).status).toBe(404);
    expect((await send(core, 'GET', `/invoice-lines/${line}`)).status).toBe(404);
    expect((await send(core, 'DELETE', `/invoices/${invoice}`)).status).toBe(404);
  });

  it('lists with filters and include=subscriptions, and serves the related subscription, customer and lines', async () => {
    const { core, invoice, subscription, customer } = await arrange();
    ok(await postLine(core, lunchbox(invoice)), 201);
    ok(await finalise(core, invoice));
    const draft = ok(await postInvoice(core, { subscription_id: subscription }), 201).id;
    const listed = (query: string) => send(core, 'GET', '/invoices', { query });
    expect((await listed('filter[status]=draft')).body.data.map((i: any) => i.id)).toEqual([draft]);
    expect((await listed(`filter[customer_id]=${customer}&sort=-id`)).body.data.map((i: any) => i.id)).toEqual([
      draft,
      invoice,
    ]);
    expect((await listed('filter[search]=inv-1')).body.data.map((i: any) => i.id)).toEqual([invoice]);
    // Each names its customer in meta (an extension), beside the relationship.
    expect((await listed('')).body.data.map((i: any) => [i.id, i.meta])).toEqual([
      [invoice, { customer: { id: customer, name: 'First1 Last1' } }],
      [draft, { customer: { id: customer, name: 'First1 Last1' } }],
    ]);
    // A draft has no reference: it is found by its customer's words, as customers are searched.
    expect((await listed('filter[search]=LAST1%20first')).body.data.map((i: any) => i.id)).toEqual([invoice, draft]);
    expect((await listed('filter[search]=last1&filter[status]=draft')).body.data.map((i: any) => i.id)).toEqual([
      draft,
    ]);
    expect((await listed('filter[search]=nobody')).body.data).toEqual([]);
    const withCustomer = (await listed('include=customer&filter[status]=draft')).body;
    expect(withCustomer.data[0].relationships.customer.data.id).toBe(customer);
    expect(withCustomer.included.map((r: any) => [r.type, r.id, r.attributes.last_name])).toEqual([
      ['customer', customer, 'Last1'],
    ]);
    expectError(await listed('filter[status]=late'), 400, 'Invalid Parameter', { parameter: 'filter[status]' });
    const included = (await listed('include=subscriptions')).body.included;
    expect(included.map((s: any) => [s.type, s.id])).toEqual([['subscription', subscription]]);
    expect((await send(core, 'GET', `/invoices/${invoice}/subscription`)).body.data.id).toBe(subscription);
    expect((await send(core, 'GET', `/invoices/${invoice}/customer`)).body.data.id).toBe(customer);
    const lines = (await send(core, 'GET', `/invoices/${invoice}/lines`)).body;
    expect(lines.meta.total).toBe(1);
    expect(lines.data[0].type).toBe('invoice-line');
    expect((await send(core, 'GET', '/invoices/999/lines')).status).toBe(404);
  });

  it('keeps invoices of one account from another', async () => {
    const { core, invoice } = await arrange();
    const rows = await core.store.read(() => all((q) => q.selectFrom('invoices').select('account_id')));
    expect(rows).toHaveLength(1);
    expect((await createAccount(core.store, core.clock, 'other')).ok).toBe(true);
    const other = await testCore({ dbPath: core.dbPath, account: 'other' });
    expect((await send(other, 'GET', `/invoices/${invoice}`)).status).toBe(404);
    expect((await send(other, 'GET', '/invoices')).body.meta.total).toBe(0);
    expect((await send(other, 'PATCH', `/invoices/${invoice}/finalise`)).status).toBe(404);
    expect((await send(other, 'DELETE', `/invoices/${invoice}`)).status).toBe(404);
  });
});
