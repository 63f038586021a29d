// What the support person at an 80-column terminal reads (issue 23, point 8), through both doors
// (the router in process, and billing serve over loopback HTTP) on the run's engine: names in the
// subscription and invoice lists, days as days, an invoice's lines per unit with their totals, a
// URL never wrapped in a cell, and confirmations that name their subject and refuse, before
// asking, what the service would refuse. Everything a command shows comes through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import type { Prompter } from '../../src/lib/prompts/prompter.js';
import type { Transport, TransportRequest } from '../../src/lib/transport/types.js';
import { tempDbPath, tempDir } from '../helpers/store.js';
import { doors, type OpenDoor } from './doors.js';

const post = (path: string, type: string, attributes: Record<string, unknown>): TransportRequest => ({
  method: 'POST',
  path,
  body: { data: { type, attributes } },
});

describe.each(doors)('tables people can read ($name)', (door) => {
  let open: OpenDoor;
  let customer: string;
  let subscription: string;
  let invoice: string;
  // The door's transport for every run: main() closes what it is given, the door stays open.
  const kept = (): Transport => ({
    mode: open.transport.mode,
    request: (request) => open.transport.request(request),
    close: async () => {},
  });
  const env = { BILLING_CONFIG_DIR: tempDir('billing-config-'), BILLING_DB: tempDbPath(), NO_COLOR: '1' };
  /** A terminal of 80 columns; a person answering through `prompter` when given. */
  async function run(argv: string[], prompter?: Prompter) {
    const io = memoryIO({ tty: true, columns: 80 });
    const code = await main(argv, io, env, { transport: kept(), ...(prompter ? { prompter, canPrompt: true } : {}) });
    return { code, stdout: io.stdout, stderr: io.stderr };
  }
  const made = async (request: TransportRequest): Promise<string> => {
    const answer = await open.transport.request(request);
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return (answer.body as { data: { id: string } }).data.id;
  };

  beforeAll(async () => {
    open = await door.open();
    await open.seedPlan({ name: 'Gold monthly', amount: '30.00', frequency: 'monthly' });
    const plans = await open.transport.request({ method: 'GET', path: '/subscription-plans' });
    const plan = (plans.body as { data: { id: string }[] }).data[0].id;
    customer = await made(
      post('/customers', 'customer', {
        first_name: 'Jan',
        middle_name: 'van der',
        last_name: 'Geer',
        email: 'jan@example.com',
      }),
    );
    subscription = await made(
      post('/subscriptions', 'subscription', {
        customer_id: Number(customer),
        subscription_plan_id: Number(plan),
        mandate_accepted: true,
        mandate_accepted_date: '2026-11-20',
        start_date: '2026-12-01',
        status: 'active',
      }),
    );
    invoice = await made(post('/invoices', 'invoice', { subscription_id: Number(subscription), send_email: false }));
    await made(
      post('/invoice-lines', 'invoice-line', {
        invoice_id: Number(invoice),
        description: 'Lunchbox',
        amount: 10,
        tax_rate: 21,
        quantity: 3,
      }),
    );
    const finalised = await open.transport.request({ method: 'PATCH', path: `/invoices/${invoice}/finalise` });
    expect(finalised.status).toBe(200);
  });
  afterAll(() => open.close());

  it("subscription lists show the customer's and the plan's names, and the start as a day", async () => {
    const listed = await run(['subscriptions', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout.split('\n');
    expect(rows[1]).toMatch(/^│ id │ customer +│ plan +│ status +│ mandate +│ start +│$/);
    expect(rows[3]).toMatch(/^│ \d+ +│ Jan van der Geer │ Gold monthly │ active +│ MNDT-\d+ +│ 2026-12-01 │$/);
    expect(Math.max(...rows.map((row) => row.length))).toBeLessThanOrEqual(80);
    const ofCustomer = await run(['customers', 'subscriptions', customer]);
    expect(ofCustomer.stdout).toContain('│ Jan van der Geer │ Gold monthly │');
  });

  it("invoice lists show the customer's name and the invoice date as a day", async () => {
    const listed = await run(['invoices', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout.split('\n');
    expect(rows[1]).toContain('│ customer ');
    expect(rows[3]).toMatch(/│ INV-1 +│ open +│ Jan van der Geer │ +€ 36\.30 │ 2026-11-21 +│/);
  });

  it('invoices lines says unit where the amount is per unit, and shows the line total', async () => {
    const lines = await run(['invoices', 'lines', invoice]);
    expect(lines.code, lines.stderr).toBe(0);
    const rows = lines.stdout.split('\n');
    expect(rows[1]).toMatch(/│ unit incl │ total incl │$/);
    expect(rows[3]).toMatch(/│ Lunchbox +│ +3 │ .*│ +€ 12\.10 │ +€ 36\.30 │$/);
  });

  it('one subscription: days as days, and its confirmation page under the table, whole', async () => {
    const shown = await run(['subscriptions', 'get', subscription]);
    expect(shown.code, shown.stderr).toBe(0);
    const rows = shown.stdout.trimEnd().split('\n');
    expect(rows).toContain(`│ start date            │ 2026-12-01${' '.repeat(43)}│`);
    expect(rows.filter((row) => row.startsWith('│')).every((row) => row.length <= 80)).toBe(true);
    expect(rows.some((row) => row.startsWith('│') && row.includes('/mandate/'))).toBe(false);
    expect(rows.at(-1)).toMatch(/^confirmation page: http:\/\/127\.0\.0\.1:\d+\/mandate\/accept\/\d+\/[0-9a-f]+$/);
  });

  it("the credit's question names the invoice by its reference, its amount and its customer", async () => {
    const prompter = fakePrompter([false]);
    const declined = await run(['invoices', 'credit', invoice], prompter);
    expect(declined).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: credit invoice ${invoice}: not confirmed, nothing changed\n`,
    });
    expect(prompter.asked.map((q) => q.message)).toEqual([
      'Credit invoice INV-1 (€ 36.30, Jan van der Geer)? A draft credit invoice with the negated lines is made.',
    ]);
  });

  it("a cancel day before the store's today is refused before asking; a later one is asked naming plan and customer", async () => {
    const nobody = fakePrompter([]);
    const past = await run(['subscriptions', 'cancel', subscription, '--on', '2026-11-20'], nobody);
    expect(past).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: --on: 2026-11-20 is before today (2026-11-21 by the store's clock): give today to cancel at once, or a later day (nothing changed)\n",
    });
    expect(nobody.asked).toEqual([]);
    const prompter = fakePrompter([false]);
    const later = await run(['subscriptions', 'cancel', subscription, '--on', '2027-06-30'], prompter);
    expect(later.code).toBe(2);
    expect(prompter.asked.map((q) => q.message)).toEqual([
      `Cancel subscription ${subscription} (Gold monthly, Jan van der Geer) on 2027-06-30? From that day it cannot be undone.`,
    ]);
    const still = await open.transport.request({ method: 'GET', path: `/subscriptions/${subscription}` });
    expect((still.body as { data: { attributes: Record<string, unknown> } }).data.attributes).toMatchObject({
      status: 'active',
      cancel_date: null,
    });
  });
});
