// Views a person reads: tables that fit the terminal, TSV without one, one resource as labelled
// fields, colour only when it is on, and nothing from data that can steer the terminal.
import { describe, expect, it } from 'vitest';
import type { ResourceLike } from '../../src/lib/output/columns.js';
import { STATE_COLOURS } from '../../src/lib/output/paint.js';
import { fitColumns, listTable, resourceTable, type View } from '../../src/lib/output/table.js';
import { displayWidth } from '../../src/lib/output/text.js';
import { viewOf } from '../../src/lib/output/view.js';
import { memoryIO } from '../../src/lib/cli/io.js';

const ANSI = '\u001b['; // toMatch with a string: contains it
// eslint-disable-next-line no-control-regex -- the ESC that opens an ANSI colour code, on purpose
const strip = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
const terminal = (columns: number, color = false): View => ({ color, tty: true, columns });
const pipe: View = { color: false, tty: false };
/** The lines of an output that ends in a newline (trailing tabs of TSV kept). */
const lines = (text: string) => text.replace(/\n$/, '').split('\n');
const widest = (text: string) => Math.max(...lines(strip(text)).map(displayWidth));
/** The cells of a table line, trimmed. */
const cells = (line: string) =>
  line
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());

const customer = (id: number, attributes: Record<string, unknown> = {}): ResourceLike => ({
  type: 'customer',
  id: String(id),
  attributes: {
    first_name: `First${id}`,
    middle_name: null,
    last_name: `Last${id}`,
    email: `customer${id}@example.com`,
    payment_method: 'directdebit',
    archived: false,
    created_at: '2026-11-21T11:00:00+01:00',
    ...attributes,
  },
});

const plan = (id: number, amount: string, status = 'active'): ResourceLike => ({
  type: 'subscription-plan',
  id: String(id),
  attributes: { name: `Plan ${id}`, amount, frequency: 'monthly', status, mandate_authentication_method: 'email' },
});

const customers = [
  customer(1, { first_name: 'Jeroen', middle_name: 'van der', last_name: 'Geer', email: 'jeroen.geer@example.com' }),
  customer(2),
  customer(3, { archived: true }),
];

describe('list tables on a terminal', () => {
  it('at 120 columns: every column, a header rule, one line per resource, and the archived state', async () => {
    const table = await listTable(customers, 'customer', terminal(120));
    expect(lines(table)).toEqual([
      '┌────┬─────────────────────┬─────────────────────────┬────────────────┬────────────┬──────────┐',
      '│ id │ name                │ email                   │ payment method │ created    │ state    │',
      '├────┼─────────────────────┼─────────────────────────┼────────────────┼────────────┼──────────┤',
      '│ 1  │ Jeroen van der Geer │ jeroen.geer@example.com │ directdebit    │ 2026-11-21 │          │',
      '│ 2  │ First2 Last2        │ customer2@example.com   │ directdebit    │ 2026-11-21 │          │',
      '│ 3  │ First3 Last3        │ customer3@example.com   │ directdebit    │ 2026-11-21 │ archived │',
      '└────┴─────────────────────┴─────────────────────────┴────────────────┴────────────┴──────────┘',
    ]);
  });

  it('at 80 columns: fits, the least needed column (payment method) dropped first', async () => {
    const table = await listTable(customers, 'customer', terminal(80));
    expect(widest(table)).toBeLessThanOrEqual(80);
    expect(cells(lines(table)[1])).toEqual(['id', 'name', 'email', 'created', 'state']);
    expect(cells(lines(table)[5])).toEqual(['3', 'First3 Last3', 'customer3@example.com', '2026-11-21', 'archived']);
  });

  it('without an archived customer on the page, the state column takes no room on a terminal', async () => {
    const table = await listTable(customers.slice(0, 2), 'customer', terminal(120));
    expect(cells(lines(table)[1])).toEqual(['id', 'name', 'email', 'payment method', 'created']);
  });

  it('at 40 columns: columns are dropped least needed first, then name and email are cut with …', async () => {
    const table = await listTable(customers.slice(0, 2), 'customer', terminal(40));
    expect(lines(table)).toEqual([
      '┌────┬────────────────┬────────────────┐',
      '│ id │ name           │ email          │',
      '├────┼────────────────┼────────────────┤',
      '│ 1  │ Jeroen van de… │ jeroen.geer@e… │',
      '│ 2  │ First2 Last2   │ customer2@exa… │',
      '└────┴────────────────┴────────────────┘',
    ]);
  });

  it('at 40 columns with an archived customer: the state is kept, a flexible column dropped when cutting is not enough', async () => {
    const table = await listTable(customers, 'customer', terminal(40));
    expect(widest(table)).toBeLessThanOrEqual(40);
    expect(cells(lines(table)[1])).toEqual(['id', 'name', 'state']);
    expect(cells(lines(table)[3])).toEqual(['1', 'Jeroen van der Geer', '']);
  });

  it('a name of 200 characters ends in … and the table still fits, at 80 and at 40 columns', async () => {
    const long = customer(7, { first_name: 'A'.repeat(100), last_name: 'B'.repeat(99) });
    for (const width of [80, 40]) {
      const table = await listTable([long, customer(8)], 'customer', terminal(width));
      expect(widest(table)).toBeLessThanOrEqual(width);
      expect(lines(table).every((line) => displayWidth(line) === displayWidth(lines(table)[0]))).toBe(true);
      const name = cells(lines(table)[3])[1];
      expect(name).toMatch(/^A+…$/);
    }
    // At 80 the long name does not push out the email: the name is cut instead.
    expect(cells(lines(await listTable([long], 'customer', terminal(80)))[1])).toEqual([
      'id',
      'name',
      'email',
      'created',
    ]);
  });

  it('wide characters are measured as two columns', async () => {
    const table = await listTable(
      [customer(1, { first_name: '日本語', last_name: 'テスト' })],
      'customer',
      terminal(80),
    );
    expect(new Set(lines(table).map(displayWidth)).size).toBe(1);
  });

  it('even at 10 columns something fits', async () => {
    const table = await listTable(customers, 'customer', terminal(10));
    expect(widest(table)).toBeLessThanOrEqual(10);
  });

  it('money is right-aligned with separators, negative too; status and amounts are never cut', async () => {
    const table = await listTable(
      [plan(1, '1000000.00'), plan(2, '-12.00', 'inactive'), plan(3, '9.5')],
      'subscription-plan',
      terminal(120),
    );
    expect(lines(table).slice(1, 6)).toEqual([
      '│ id │ name   │         amount │ frequency │ status   │ mandate method │',
      '├────┼────────┼────────────────┼───────────┼──────────┼────────────────┤',
      '│ 1  │ Plan 1 │ € 1,000,000.00 │ monthly   │ active   │ email          │',
      '│ 2  │ Plan 2 │       -€ 12.00 │ monthly   │ inactive │ email          │',
      '│ 3  │ Plan 3 │         € 9.50 │ monthly   │ active   │ email          │',
    ]);
    // Narrow: the state stays longest after id and name; what is shown is whole.
    const narrow = await listTable([plan(1, '1000000.00')], 'subscription-plan', terminal(40));
    expect(widest(narrow)).toBeLessThanOrEqual(40);
    expect(cells(lines(narrow)[3])).toEqual(['1', 'Plan 1', 'active']);
    const medium = await listTable([plan(1, '1000000.00')], 'subscription-plan', terminal(50));
    expect(widest(medium)).toBeLessThanOrEqual(50);
    expect(cells(lines(medium)[3])).toEqual(['1', 'Plan 1', '€ 1,000,000.00', 'active']);
  });

  it('subscriptions show customer, plan, status, mandate and start', async () => {
    const subscription: ResourceLike = {
      type: 'subscription',
      id: '5',
      attributes: { status: 'paused', mandate_code: 'MD-1', start_date: '2026-12-01T00:00:00+01:00' },
      relationships: {
        customer: { data: { type: 'customer', id: '1' } },
        'subscription-plan': { data: { type: 'subscription-plan', id: '2' } },
      },
    };
    const table = await listTable([subscription], 'subscription', terminal(80));
    expect(cells(lines(table)[1])).toEqual(['id', 'customer', 'plan', 'status', 'mandate', 'start']);
    // A server that names nobody (the hosted service): the ids.
    expect(cells(lines(table)[3])).toEqual(['5', '1', '2', 'paused', 'MD-1', '2026-12-01']);
    // This server's lists name the customer and the plan in meta: the names, at 80 columns too.
    const named = {
      ...subscription,
      meta: { customer: { id: '1', name: 'Jan Jansen' }, plan: { id: '2', name: 'Gold monthly' } },
    };
    const shown = await listTable([named], 'subscription', terminal(80));
    expect(cells(lines(shown)[3])).toEqual(['5', 'Jan Jansen', 'Gold monthly', 'paused', 'MD-1', '2026-12-01']);
    expect(lines(await listTable([named], 'subscription', pipe))[1]).toBe(
      '5\tJan Jansen\tGold monthly\tpaused\tMD-1\t2026-12-01',
    );
  });

  it("invoices show the customer's name; at 80 columns a long one is cut before the invoice date gives way", async () => {
    const invoice = (id: number, name: string): ResourceLike => ({
      type: 'invoice',
      id: String(id),
      attributes: {
        status: 'charged_back',
        reference: `INV-${id}`,
        amount_incl: '1234.50',
        invoice_date: '2026-11-21T00:00:00+01:00',
        transaction_date: '2026-11-28T00:00:00+01:00',
      },
      relationships: { customer: { data: { type: 'customer', id: '42' } } },
      meta: { customer: { id: '42', name } },
    });
    const table = await listTable(
      [invoice(8, 'Jan Jansen'), invoice(9, 'Jeroen van der Geer-Vermeulen')],
      'invoice',
      terminal(80),
    );
    expect(widest(table)).toBeLessThanOrEqual(80);
    expect(cells(lines(table)[1])).toEqual(['id', 'reference', 'status', 'customer', 'amount incl', 'invoice date']);
    expect(cells(lines(table)[3])).toEqual(['8', 'INV-8', 'charged_back', 'Jan Jansen', '€ 1,234.50', '2026-11-21']);
    expect(cells(lines(table)[4])[3]).toMatch(/^Jeroen van der.*…$/);
    expect(lines(await listTable([invoice(8, 'Jan Jansen')], 'invoice', pipe))).toEqual([
      'id\treference\tstatus\tcustomer\tamount incl\tinvoice date\ttransaction date',
      '8\tINV-8\tcharged_back\tJan Jansen\t€ 1,234.50\t2026-11-21\t2026-11-28',
    ]);
  });

  it('a URL column is whole or, at narrow widths, dropped: never cut or wrapped', async () => {
    const url = `https://hooks.example.com/billing/${'x'.repeat(60)}`;
    const delivery: ResourceLike = {
      type: 'webhook-delivery',
      id: '3',
      attributes: { event: 'subscription.cancelled', status: 'failed', url, attempts: 2 },
    };
    const narrow = await listTable([delivery], 'webhook-delivery', terminal(80));
    expect(widest(narrow)).toBeLessThanOrEqual(80);
    expect(cells(lines(narrow)[1])).toEqual(['id', 'event', 'status', 'tries']);
    const wide = await listTable([delivery], 'webhook-delivery', terminal(160));
    expect(cells(lines(wide)[3])).toContain(url);
    expect(lines(await listTable([delivery], 'webhook-delivery', pipe))[1]).toContain(url);
  });
});

describe('fitColumns', () => {
  const spec = (priority: number, natural: number, truncate = false, minWidth = 4) => ({
    priority,
    natural,
    truncate,
    minWidth,
  });

  it('keeps everything when it fits', () => {
    expect(fitColumns([spec(0, 2), spec(1, 10)], 80)).toEqual({ kept: [0, 1], widths: [2, 10] });
  });

  it('drops the least needed column first, the rightmost of equals', () => {
    expect(fitColumns([spec(0, 2), spec(3, 10), spec(1, 10), spec(3, 10)], 30).kept).toEqual([0, 2]);
  });

  it('cuts the widest truncatable column before dropping more', () => {
    expect(fitColumns([spec(0, 2), spec(1, 100, true, 10), spec(2, 10)], 60)).toEqual({
      kept: [0, 1, 2],
      widths: [2, 38, 10],
    });
    // Narrower: the long column counts as 30 wide when deciding what to drop, then is cut.
    expect(fitColumns([spec(0, 2), spec(1, 100, true, 10), spec(2, 10)], 40)).toEqual({
      kept: [0, 1],
      widths: [2, 31],
    });
    // Narrower still than every column at its minimum: more columns go, the last one is cut.
    expect(fitColumns([spec(0, 2), spec(1, 100, true, 10), spec(2, 10)], 12)).toEqual({ kept: [0], widths: [2] });
    expect(fitColumns([spec(0, 50), spec(1, 100, true, 10)], 12)).toEqual({ kept: [0], widths: [8] });
  });
});

describe('not on a terminal: tab-separated lines', () => {
  it('a header row and one line per resource, every column, nothing cut, no borders', async () => {
    const long = customer(7, { first_name: 'A'.repeat(100), last_name: 'B'.repeat(99) });
    const table = await listTable([...customers, long], 'customer', pipe);
    expect(lines(table)).toEqual([
      'id\tname\temail\tpayment method\tcreated\tstate',
      '1\tJeroen van der Geer\tjeroen.geer@example.com\tdirectdebit\t2026-11-21\t',
      '2\tFirst2 Last2\tcustomer2@example.com\tdirectdebit\t2026-11-21\t',
      '3\tFirst3 Last3\tcustomer3@example.com\tdirectdebit\t2026-11-21\tarchived',
      `7\t${'A'.repeat(100)} ${'B'.repeat(99)}\tcustomer7@example.com\tdirectdebit\t2026-11-21\t`,
    ]);
  });

  it('tabs and line breaks inside a value do not break the lines', async () => {
    const table = await listTable([customer(1, { first_name: 'Jan\tKees', last_name: 'de\nVries' })], 'customer', pipe);
    expect(lines(table)[1]).toBe('1\tJan Kees de Vries\tcustomer1@example.com\tdirectdebit\t2026-11-21\t');
    expect(lines(table)).toHaveLength(2);
  });

  it('money keeps its format but no padding', async () => {
    expect(lines(await listTable([plan(1, '1234.50')], 'subscription-plan', pipe))[1]).toBe(
      '1\tPlan 1\t€ 1,234.50\tmonthly\tactive\temail',
    );
  });

  it('one resource is field<TAB>value lines', async () => {
    const text = await resourceTable(customer(1, { city: null, street: '' }), pipe);
    expect(text).toBe(
      'id\t1\nfirst name\tFirst1\nlast name\tLast1\nemail\tcustomer1@example.com\npayment method\tdirectdebit\narchived\tno\ncreated\t2026-11-21 11:00 +01:00\n',
    );
  });

  it('memoryIO without tty gives the plain view; with tty, a terminal of 80 columns', () => {
    expect(viewOf({ color: false }, memoryIO())).toEqual({ color: false, tty: false, columns: undefined });
    expect(viewOf({ color: true }, memoryIO({ tty: true }))).toEqual({ color: true, tty: true, columns: 80 });
  });
});

describe('one resource as labelled fields', () => {
  const full: ResourceLike = {
    type: 'subscription-plan',
    id: '1',
    attributes: {
      name: 'Gold',
      description: null,
      terms: '',
      status: 'active',
      send_invoice: true,
      amount: '1234.50',
      tax_amount: '-12.00',
      amount_incl: '1000000.00',
      created_at: '2026-12-01T14:03:00+01:00',
    },
    relationships: {
      subscriptions: { data: [] },
      customer: { data: null },
      owner: {},
      items: { data: [{ id: '4' }, { id: '9' }] },
    },
  };

  it('labels as words, empties left out, money right-aligned together, times with their offset', async () => {
    expect(lines(await resourceTable(full, terminal(80)))).toEqual([
      '┌──────────────┬─────────────────────────┐',
      '│ id           │ 1                       │',
      '│ name         │ Gold                    │',
      '│ status       │ active                  │',
      '│ send invoice │ yes                     │',
      '│ amount       │     € 1,234.50          │',
      '│ tax amount   │       -€ 12.00          │',
      '│ amount incl  │ € 1,000,000.00          │',
      '│ created      │ 2026-12-01 14:03 +01:00 │',
      '│ items        │ 4, 9                    │',
      '└──────────────┴─────────────────────────┘',
    ]);
  });

  it('long values wrap within the terminal instead of being lost', async () => {
    const text = await resourceTable(
      { type: 'customer', id: '1', attributes: { first_name: 'N'.repeat(200) } },
      terminal(80),
    );
    expect(widest(text)).toBeLessThanOrEqual(80);
    expect(text.replace(/[│\s]/g, '')).toContain('N'.repeat(200));
    const narrow = await resourceTable(customer(1), terminal(40));
    expect(widest(narrow)).toBeLessThanOrEqual(40);
  });

  it('a URL too wide for the value column is printed whole under the table, labelled, never wrapped in a cell', async () => {
    const page = `http://127.0.0.1:8080/mandate/accept/2/${'a4'.repeat(32)}`;
    const subscription: ResourceLike = {
      type: 'subscription',
      id: '2',
      attributes: {
        mandate_code: 'MNDT-2',
        start_date: '2026-06-17T00:00:00+02:00',
        confirmation_page: page,
        success_redirect_url: 'https://shop.example.com/thanks',
      },
    };
    expect(lines(await resourceTable(subscription, terminal(80)))).toEqual([
      '┌──────────────────────┬─────────────────────────────────┐',
      '│ id                   │ 2                               │',
      '│ mandate code         │ MNDT-2                          │',
      '│ start date           │ 2026-06-17                      │',
      '│ success redirect url │ https://shop.example.com/thanks │',
      '└──────────────────────┴─────────────────────────────────┘',
      `confirmation page: ${page}`,
    ]);
    // Wide enough, it stays in its place; without a terminal it is a field like any other.
    expect(lines(await resourceTable(subscription, terminal(200)))[4]).toBe(`│ confirmation page    │ ${page} │`);
    expect(await resourceTable(subscription, pipe)).toContain(`\nconfirmation page\t${page}\n`);
  });

  it("an invoice line's amounts say they are per unit, and its total follows the quantity", async () => {
    const line: ResourceLike = {
      type: 'invoice-line',
      id: '31',
      attributes: {
        description: 'Lunchbox',
        amount_excl: '10.00',
        amount_incl: '12.10',
        tax_amount: '2.10',
        quantity: 3,
      },
    };
    expect(await resourceTable(line, pipe)).toBe(
      'id\t31\ndescription\tLunchbox\nunit excl\t€ 10.00\nunit incl\t€ 12.10\nunit tax\t€ 2.10\nquantity\t3\ntotal incl\t€ 36.30\n',
    );
  });

  it('the id label can be named (accounts: name)', async () => {
    expect(
      await resourceTable(
        { type: 'account', id: 'acme', attributes: { api_key: 'bk_x', webhook_secret: null } },
        pipe,
        'name',
      ),
    ).toBe('name\tacme\nAPI key\tbk_x\n');
  });
});

describe('control characters never reach the terminal', () => {
  const evil = customer(1, {
    first_name: 'Mal\x1b[2J\x07lory',
    last_name: 'Over\rwrite\u202Etxt.exe\u2066',
    email: 'e\x9b1m@x.nl',
    city: 'C\bD\x7f',
  });
  const DANGEROUS = /[^\P{Cc}\t\n]|[\u202a-\u202e\u2066-\u2069]/u;

  it('in a list table, in TSV, and in the single view, each in both modes', async () => {
    const outputs = [
      await listTable([evil], 'customer', terminal(200)),
      await listTable([evil], 'customer', pipe),
      await resourceTable(evil, terminal(200)),
      await resourceTable(evil, pipe),
    ];
    for (const output of outputs) {
      expect(output).not.toMatch(DANGEROUS);
      expect(output).toContain('Mal\\x1b[2J\\x07lory');
    }
    expect(outputs[0]).toContain('Over\\x0dwrite\\u202etxt.exe\\u2066');
    expect(outputs[1]).toContain('e\\x9b1m@x.nl');
    expect(outputs[2]).toContain('C\\x08D\\x7f');
  });

  it('with colour on, only the colour codes themselves are escapes', async () => {
    const output = await listTable([evil], 'customer', terminal(200, true));
    expect(strip(output)).not.toMatch(DANGEROUS);
  });
});

describe('colour', () => {
  it('only when colour is on: states, headers and borders', async () => {
    const plans = [plan(1, '1.00'), plan(2, '2.00', 'inactive')];
    expect(await listTable(plans, 'subscription-plan', terminal(80))).not.toMatch(ANSI);
    expect(await listTable(plans, 'subscription-plan', pipe)).not.toMatch(ANSI);
    expect(await resourceTable(plans[0], terminal(80))).not.toMatch(ANSI);

    const coloured = await listTable(plans, 'subscription-plan', terminal(80, true));
    expect(coloured).toContain('\u001b[32mactive\u001b[39m');
    expect(coloured).toContain('\u001b[90minactive\u001b[39m');
    expect(coloured).toContain('\u001b[36mid\u001b[39m');
    // Colour does not change the layout.
    expect(strip(coloured)).toBe(await listTable(plans, 'subscription-plan', terminal(80)));
    expect(strip(await resourceTable(plans[0], terminal(80, true)))).toBe(await resourceTable(plans[0], terminal(80)));
  });

  it('the archived state is coloured too', async () => {
    expect(await listTable(customers, 'customer', terminal(120, true))).toContain('\u001b[90marchived\u001b[39m');
  });

  it('every state has a colour by what it means', () => {
    const states = [
      'unverified',
      'active',
      'paused',
      'cancelled',
      'inactive',
      'draft',
      'open',
      'paid',
      'completed',
      'charged_back',
      'queued',
      'scheduled',
      'succeeded',
      'fulfilled',
      'failed',
      'rescheduled',
      'canceled',
      'archived',
    ];
    for (const state of states) expect(STATE_COLOURS[state], state).toBeDefined();
    expect(STATE_COLOURS.active).toBe('green');
    expect(STATE_COLOURS.failed).toBe('red');
    expect(STATE_COLOURS.charged_back).toBe('red');
    expect(STATE_COLOURS.paused).toBe('yellow');
  });
});
