// Invoices against the embedded core through main() in process (harness.ts), at the harness's fixed
// time (2026-11-21T10:00Z, 11:00 in Amsterdam): a draft made, priced line by line with decimal
// commas and a discount, finalised the way support staff type it, refused every change after,
// credited, paid; the account's prefix changed between references; audit reading them all; a
// draft finalised by moving the clock past its invoice date.
import { beforeAll, describe, expect, it } from 'vitest';
import { get, run } from '../../src/lib/store/unit.js';
import { openStore } from '../../src/lib/store/store.js';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import { cli, type Cli } from './harness.js';

const json = (text: string) => JSON.parse(text);

async function seeded(): Promise<Cli> {
  const c = cli();
  expect(
    (await c.run(['plans', 'create', '--name', 'Monthly box', '--amount', '12,50', '--no-send-invoice'])).code,
  ).toBe(0);
  await c.seedCustomers(1);
  const sub = await c.run([
    'subscriptions',
    'create',
    '--customer-id',
    '1',
    '--subscription-plan-id',
    '1',
    '--status',
    'active',
    '--confirmation-sent',
    '--json',
  ]);
  expect(sub.code, sub.stderr).toBe(0);
  return c;
}

async function draft(c: Cli, ...flags: string[]): Promise<string> {
  const made = await c.run(['invoices', 'create', '--subscription-id', '1', ...flags, '--json']);
  expect(made.code, made.stderr).toBe(0);
  return json(made.stdout).data.id;
}

async function line(c: Cli, invoice: string, ...flags: string[]): Promise<void> {
  const made = await c.run(['lines', 'create', '--invoice-id', invoice, ...flags, '-q']);
  expect(made.code, made.stderr).toBe(0);
}

describe('an invoice through its life', () => {
  let c: Cli;
  let id: string;
  beforeAll(async () => {
    c = await seeded();
    id = await draft(c);
    await line(c, id, '--description', 'Lunchbox', '--amount', '10,00', '--tax-rate', '21', '--quantity', '2');
    await line(c, id, '--description', 'Korting', '--amount', '-2,50', '--tax-rate', '21');
  });

  it('shows the draft with exact totals, right-aligned in the list', async () => {
    const shown = json((await c.run(['invoices', 'get', id, '--json'])).stdout).data.attributes;
    // 2 x 10.00 - 2.50 = 17.50 excl; tax 2 x 2.10 - 0.53 (0.525 rounded away from zero) = 3.67.
    expect([shown.amount_excl, shown.tax_amount, shown.amount_incl]).toEqual(['17.50', '3.67', '21.17']);
    const listed = await c.run(['invoices', 'list'], { tty: true, columns: 100 });
    expect(listed.stdout).toMatch(/DRAFT .*€ 21\.17/);
  });

  it('refuses an amount with three decimals before sending anything (exit 2, naming the flag)', async () => {
    const refused = await c.run([
      'lines',
      'create',
      '--invoice-id',
      id,
      '--description',
      'x',
      '--amount',
      '1.005',
      '--tax-rate',
      '21',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--amount');
  });

  it('finalises as `billing invoices finalise ID`: INV-1, open, its transaction linked', async () => {
    const finalised = await c.run(['invoices', 'finalise', id, '--json']);
    expect(finalised.code, finalised.stderr).toBe(0);
    const data = json(finalised.stdout).data;
    expect(data.attributes).toMatchObject({ status: 'open', reference: 'INV-1', amount_incl: '21.17' });
    expect(data.relationships.transaction.data.type).toBe('transaction');
  });

  it('refuses every change after finalising (exit 1, Invalid State) and changes nothing', async () => {
    const before = (await c.run(['invoices', 'get', id, '--json'])).stdout;
    for (const argv of [
      ['invoices', 'finalise', id],
      ['invoices', 'update', id, '--send-email'],
      ['invoices', 'delete', id, '--yes'],
      ['lines', 'create', '--invoice-id', id, '--description', 'x', '--amount', '1', '--tax-rate', '0'],
    ]) {
      const refused = await c.run(argv);
      expect(refused.code, argv.join(' ')).toBe(1);
      expect(refused.stderr).toContain('draft');
    }
    expect((await c.run(['invoices', 'get', id, '--json'])).stdout).toBe(before);
  });

  it('credits after confirming: a draft of the negated lines; the original unchanged', async () => {
    const before = (await c.run(['invoices', 'get', id, '--json'])).stdout;
    const noTerminal = await c.run(['invoices', 'credit', id]);
    expect(noTerminal.code).toBe(2);
    const no = fakePrompter([false]);
    const declined = await c.run(['invoices', 'credit', id], { prompter: no });
    expect(declined.code).not.toBe(0);
    // Named by its reference, amount and customer, as the API gives them.
    expect(no.asked[0].message).toBe(
      'Credit invoice INV-1 (€ 21.17, First1 Last1)? A draft credit invoice with the negated lines is made.',
    );
    const credited = await c.run(['invoices', 'credit', id, '--yes', '--json']);
    expect(credited.code, credited.stderr).toBe(0);
    const credit = json(credited.stdout).data;
    expect(credit.attributes).toMatchObject({
      status: 'draft',
      amount_excl: '-17.50',
      tax_amount: '-3.67',
      amount_incl: '-21.17',
    });
    expect(credit.relationships['original-invoice'].data).toEqual({ type: 'invoice', id });
    expect((await c.run(['invoices', 'get', id, '--json'])).stdout).toBe(before);
    // A credit of zero or less completes when finalised, and takes the next number.
    const done = json((await c.run(['invoices', 'finalise', credit.id, '--json'])).stdout).data.attributes;
    expect(done).toMatchObject({ status: 'completed', reference: 'INV-2' });
    // Collected already (the command's catch-up collected it on its due day): left open, the credit owed back.
    const original = json((await c.run(['invoices', 'get', id, '--json'])).stdout).data;
    expect(original.attributes.status).toBe('open');
    const tx = json(
      (await c.run(['transactions', 'get', original.relationships.transaction.data.id, '--json'])).stdout,
    );
    expect(tx.data.attributes.status).toBe('succeeded');
    const due = await c.run(['invoices', 'list', '--status', 'completed', '--refund-due', '--json']);
    expect(json(due.stdout).data.map((i: any) => i.id)).toEqual([credit.id]);
    const again = await c.run(['invoices', 'credit', id, '--yes']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `invoice ${id} (INV-1) is credited in full already, by credit invoice ${credit.id} (INV-2)`,
    );
    const ofCredit = await c.run(['invoices', 'credit', credit.id, '--yes']);
    expect(ofCredit.code).toBe(1);
    expect(ofCredit.stderr).toContain('a credit invoice cannot be credited');
  });

  it('refuses to mark paid by hand an invoice whose collection succeeded; audit finds the references whole', async () => {
    // INV-1's collection succeeded: paid by hand too, its customer would pay twice.
    const before = (await c.run(['invoices', 'get', id, '--json'])).stdout;
    const refused = await c.run(['invoices', 'pay', id, '--json']);
    expect(refused.code).toBe(1);
    expect(json(refused.stdout).errors[0].detail).toMatch(
      /transaction \S+ succeeded\): it becomes paid when the funds settle/,
    );
    expect((await c.run(['invoices', 'get', id, '--json'])).stdout).toBe(before);
    const audit = await c.run(['invoices', 'audit', '--json']);
    expect(audit.code, audit.stderr).toBe(0);
    expect(json(audit.stdout)).toMatchObject({
      invoices: 2,
      first: 1,
      last: 2,
      gaps: [],
      duplicates: [],
      malformed: [],
      ok: true,
    });
  });

  it('uses a new prefix for later references, numbers going on', async () => {
    expect((await c.run(['accounts', 'update', 'default', '--invoice-prefix', 'ECUR-', '-q'])).code).toBe(0);
    const next = await draft(c);
    await line(c, next, '--description', 'Box', '--amount', '12.50', '--tax-rate', '9');
    expect(json((await c.run(['invoices', 'finalise', next, '--json'])).stdout).data.attributes.reference).toBe(
      'ECUR-3',
    );
    expect(json((await c.run(['invoices', 'audit', '--json'])).stdout)).toMatchObject({
      invoices: 3,
      last: 3,
      ok: true,
    });
  });

  it('audit exits 1 and names a gap when a number is missing', async () => {
    // No request can make a gap: only a store changed behind the service's back has one.
    const store = await openStore(c.dbPath);
    try {
      await store.write(() =>
        run((q) => q.updateTable('invoices').set({ number: 5, reference: 'ECUR-5' }).where('reference', '=', 'ECUR-3')),
      );
      expect(
        await store.read(() => get((q) => q.selectFrom('invoices').select('id').where('reference', '=', 'ECUR-5'))),
      ).toBeDefined();
    } finally {
      await store.close();
    }
    const audit = await c.run(['invoices', 'audit', '--json']);
    expect(audit.code).toBe(1);
    expect(json(audit.stdout)).toMatchObject({ gaps: [[3, 4]], ok: false });
  });
});

describe('automatic finalisation through the clock', () => {
  it('finalises a draft whose invoice date is today once the day has ended', async () => {
    const c = await seeded();
    const id = await draft(c, '--invoice-date', '2026-11-21');
    await line(c, id, '--description', 'Box', '--amount', '12.50', '--tax-rate', '9');
    expect(json((await c.run(['invoices', 'get', id, '--json'])).stdout).data.attributes.status).toBe('draft');
    const moved = await c.run(['clock', 'advance', 'PT13H', '--json']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(json((await c.run(['invoices', 'get', id, '--json'])).stdout).data.attributes).toMatchObject({
      status: 'open',
      reference: 'INV-1',
    });
    const listed = json((await c.run(['invoices', 'list', '--status', 'open', '--json'])).stdout);
    expect(listed.data.map((i: { id: string }) => i.id)).toEqual([id]);
  });
});

describe('credits follow money rules (docs/credits.md)', () => {
  it('credits chosen lines, lists a paid invoice’s credit as refund due until it is marked refunded', async () => {
    const c = await seeded();
    // Collected on 20 December: paid by hand before then, its transaction is canceled.
    const id = await draft(c, '--transaction-date', '2026-12-20');
    await line(c, id, '--description', 'Lunchbox', '--amount', '10', '--tax-rate', '21', '--quantity', '2');
    expect((await c.run(['invoices', 'finalise', id, '-q'])).code).toBe(0);
    expect((await c.run(['invoices', 'pay', id, '-q'])).code).toBe(0);
    const lineId = json((await c.run(['invoices', 'lines', id, '--json'])).stdout).data[0].id;
    const bad = await c.run(['invoices', 'credit', id, '--line', 'x:1', '--yes']);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'error: --line: must be LINE_ID or LINE_ID:QUANTITY, whole numbers from 1 (not "x:1")\n',
    ]);
    const tooMany = await c.run(['invoices', 'credit', id, '--line', `${lineId}:3`, '--yes']);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain(`is more than the 2 of line ${lineId} left to credit (of 2)`);
    const made = await c.run(['invoices', 'credit', id, '--line', `${lineId}:1`, '--yes', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const credit = json(made.stdout).data;
    expect(credit.attributes.amount_incl).toBe('-12.10');
    expect((await c.run(['invoices', 'finalise', credit.id, '-q'])).code).toBe(0);
    // A credit of a paid invoice leaves it paid, and is owed back.
    expect(json((await c.run(['invoices', 'get', id, '--json'])).stdout).data.attributes.status).toBe('paid');
    const due = await c.run(['invoices', 'list', '--status', 'completed', '--refund-due', '--json']);
    expect(json(due.stdout).data.map((i: any) => i.id)).toEqual([credit.id]);
    const refunded = await c.run(['invoices', 'refunded', credit.id, '--date', '2026-11-21', '--json']);
    expect(refunded.code, refunded.stderr).toBe(0);
    expect(json(refunded.stdout).data.attributes.refunded_on).toBe('2026-11-21T00:00:00+01:00');
    expect(json((await c.run(['invoices', 'list', '--refund-due', '--json'])).stdout).data).toEqual([]);
    const twice = await c.run(['invoices', 'refunded', credit.id]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('marked refunded already, on 2026-11-21');
  });
});
