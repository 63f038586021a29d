// Pickers that search and never waste answers (issue 23, point 5): each list searches every row on
// the service by what is typed, offers only valid choices and says so before any question when there
// is none; an answer the service refuses is asked again alone, the others kept; customers create
// offers the IBAN and its holder.
import { describe, expect, it } from 'vitest';
import { CTRL_C, fakePrompter } from '../../src/lib/prompts/fake.js';
import type { TransportRequest } from '../../src/lib/transport/types.js';
import { cli, JAN, type Cli } from './harness.js';
import { doc, resource, runDouble, type Answer } from './service-double.js';

const IBAN_QUESTION = 'IBAN of the account to debit (Enter skips)';
const HOLDER_QUESTION = 'Account holder name (needed with --iban) (e.g. J. Jansen)';
const words = (text: string) => text.split(' ');
const created = (text: string) => JSON.parse(text) as { data: { id: string; attributes: Record<string, unknown> } };

/** Runs a command that must succeed, for setting up; its created id. */
async function made(c: Cli, argv: string[]): Promise<string> {
  const result = await c.run([...argv, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return created(result.stdout).data.id;
}

describe('customers create on a terminal asks for the IBAN and its holder', () => {
  it('a bad IBAN is refused at once by the service’s rule; once there is one, the holder is needed', async () => {
    const c = cli();
    const prompter = fakePrompter([
      'Jan',
      'Jansen',
      'jan@example.com',
      'NL91 ABNA 0417 1643 01',
      'nl91 abna 0417 1643 00',
      '',
      'J. Jansen',
    ]);
    const result = await c.run(['customers', 'create', '--json'], { prompter });
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked.map((q) => q.message).slice(3)).toEqual([IBAN_QUESTION, HOLDER_QUESTION]);
    expect(prompter.asked[3].refused).toEqual([
      'IBAN of the account to debit must be a valid IBAN (country length and check digits)',
    ]);
    expect(prompter.asked[4].refused).toEqual(['Account holder name (needed with --iban) must not be empty']);
    expect(created(result.stdout).data.attributes).toMatchObject({
      first_name: 'Jan',
      iban: 'NL91ABNA0417164300',
      bank_holder: 'J. Jansen',
    });
  });

  it('an empty answer skips the IBAN, and then the holder is not asked', async () => {
    const c = cli();
    const prompter = fakePrompter(['Jan', 'Jansen', 'jan@example.com', '']);
    const result = await c.run(['customers', 'create', '--json'], { prompter });
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked).toHaveLength(4);
    expect(prompter.remaining()).toBe(0);
    expect(created(result.stdout).data.attributes).toMatchObject({ iban: null, bank_holder: null });
  });

  it('an IBAN given as a flag is not asked again, but its holder is', async () => {
    const c = cli();
    const prompter = fakePrompter(['jan@example.com', 'J. Jansen']);
    const result = await c.run(
      ['customers', 'create', '--first-name', 'Jan', '--last-name', 'Jansen', '--iban', 'NL91ABNA0417164300', '--json'],
      { prompter },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked.map((q) => q.message)).toEqual(['Email address (e.g. jan@example.com)', HOLDER_QUESTION]);
    expect(created(result.stdout).data.attributes.bank_holder).toBe('J. Jansen');
  });
});

describe('a refused answer is asked again, alone', () => {
  const ANSWERS = ['Jan', 'Jansen', 'jan@example.com', 'NL91ABNA0417164300', 'J. Jansen'];
  const refusal = (pointer: string, detail: string) => ({
    status: 400,
    body: { errors: [{ status: '400', title: 'Invalid Attribute', detail, source: { pointer } }] },
  });
  /** A service that refuses the first `times` creates with `refuse`, then creates. */
  const service =
    (times: number, refuse = refusal('/data/attributes/iban', 'iban is not of a SEPA country')): Answer =>
    (r) => {
      if (r.method !== 'POST') return undefined;
      if (times-- > 0) return refuse;
      const attributes = (r.body as { data: { attributes: Record<string, unknown> } }).data.attributes;
      return { status: 201, body: doc(resource('customer', '7', attributes)) };
    };
  const posted = (requests: TransportRequest[]) =>
    requests
      .filter((r) => r.method === 'POST')
      .map((r) => (r.body as { data: { attributes: Record<string, unknown> } }).data.attributes);

  it('shows the service’s words, asks only that question (the refused answer as default), keeps the rest', async () => {
    const prompter = fakePrompter([...ANSWERS, 'DE89 3704 0044 0532 0130 00']);
    const result = await runDouble(['customers', 'create'], service(1), { prompter });
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked).toHaveLength(6);
    expect(prompter.asked[5]).toMatchObject({ message: IBAN_QUESTION, default: 'NL91ABNA0417164300' });
    expect(posted(result.requests)).toEqual([
      {
        first_name: 'Jan',
        last_name: 'Jansen',
        email: 'jan@example.com',
        iban: 'NL91ABNA0417164300',
        bank_holder: 'J. Jansen',
      },
      {
        first_name: 'Jan',
        last_name: 'Jansen',
        email: 'jan@example.com',
        iban: 'DE89 3704 0044 0532 0130 00',
        bank_holder: 'J. Jansen',
      },
    ]);
    expect(result.stderr).toBe('error: iban: is not of a SEPA country\ncreated customer 7\n');
  });

  it('gives up after three more tries: the last refusal ends the command (exit 1)', async () => {
    const prompter = fakePrompter([...ANSWERS, 'NL91ABNA0417164300', '', '']);
    const result = await runDouble(['customers', 'create'], service(9), { prompter });
    expect(result.code).toBe(1);
    expect(posted(result.requests)).toHaveLength(4);
    expect(prompter.asked).toHaveLength(8);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual(Array(4).fill('error: iban: is not of a SEPA country'));
  });

  it('Ctrl-C at the question asked again ends with 130, nothing sent again', async () => {
    const prompter = fakePrompter([...ANSWERS, CTRL_C]);
    const result = await runDouble(['customers', 'create'], service(1), { prompter });
    expect(result.code).toBe(130);
    expect(posted(result.requests)).toHaveLength(1);
  });

  it('a refusal of what a flag gave is not a question: it ends the command as before', async () => {
    const prompter = fakePrompter(['Jansen', '']);
    const result = await runDouble(
      ['customers', 'create', '--first-name', 'Jan', '--email', 'jan@example.com'],
      service(1, refusal('/data/attributes/email', 'email is already in use')),
      { prompter },
    );
    expect(result.code).toBe(1);
    expect(prompter.asked).toHaveLength(2);
    expect(result.stderr).toBe('error: email: is already in use\n');
  });

  it('without a terminal a refusal is an error exit, as always', async () => {
    const result = await runDouble(
      ['customers', 'create', '--first-name', 'Jan', '--last-name', 'Jansen', '--email', 'jan@example.com'],
      service(1),
    );
    expect(result).toMatchObject({ code: 1, stderr: 'error: iban: is not of a SEPA country\n' });
    expect(posted(result.requests)).toHaveLength(1);
  });
});

describe('lines create offers the drafts only', () => {
  it('with no draft it says so before asking anything (exit 2)', async () => {
    const c = cli();
    const prompter = fakePrompter([]);
    const result = await c.run(['lines', 'create'], { prompter });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: there is no draft invoice to choose from\nhint: make one with `billing invoices create`\n',
    });
    expect(prompter.asked).toEqual([]);
  });

  it('finds a draft by its customer’s name (a draft has no reference), never a finalised invoice', async () => {
    const c = cli();
    const plan = await made(c, ['plans', 'create', '--name', 'Box', '--amount', '10']);
    const jan = await made(c, ['customers', 'create', ...JAN]);
    const bos = await made(c, [
      'customers',
      'create',
      ...words('--first-name Anna --last-name Bos --email a@example.com'),
    ]);
    const invoiceOf = async (customer: string) => {
      const sub = await made(c, ['subscriptions', 'create', '--customer-id', customer, '--subscription-plan-id', plan]);
      return made(c, ['invoices', 'create', '--subscription-id', sub]);
    };
    const finalised = await invoiceOf(jan);
    await made(c, [
      'lines',
      'create',
      '--invoice-id',
      finalised,
      ...words('--description Box --amount 10 --tax-rate 21'),
    ]);
    expect((await c.run(['invoices', 'finalise', finalised])).code).toBe(0);
    const draft = await invoiceOf(jan);
    await invoiceOf(bos);
    const prompter = fakePrompter([`jansen=>${draft}`, 'Lunchbox', '10', '21']);
    const result = await c.run(['lines', 'create', '--json'], { prompter });
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked[0].choices).toEqual([{ value: draft, name: `${draft}  DRAFT · Jan Jansen (0.00)` }]);
    expect(prompter.asked.map((q) => q.kind)).toEqual(['search', 'text', 'text', 'text']);
  });
});

describe('subscriptions create searches every customer on the service', () => {
  async function store(customers: number) {
    const c = cli();
    await made(c, ['plans', 'create', '--name', 'Box', '--amount', '10']);
    if (customers) await c.seedCustomers(customers);
    return c;
  }

  it('what is typed finds a customer past the first page; nothing typed shows the first page', async () => {
    const c = await store(30);
    const prompter = fakePrompter(['last30=>30', '1']);
    const result = await c.run(['subscriptions', 'create', '--json'], { prompter });
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked[0].choices).toEqual([{ value: '30', name: '30  First30 Last30 <c30@example.com>' }]);
    expect(prompter.asked[1].choices).toEqual([{ value: '1', name: '1  Box (10.00)' }]);
    expect(created(result.stdout).data.attributes).toMatchObject({ status: 'unverified' });

    const first = fakePrompter(['=>2', '1']);
    expect((await c.run(['subscriptions', 'create'], { prompter: first })).code).toBe(0);
    expect(first.asked[0].choices?.map((choice) => choice.value)).toEqual(
      Array.from({ length: 20 }, (_, i) => String(i + 1)),
    );
  });

  it('an archived customer is not offered; with none left, it says so before asking anything', async () => {
    const c = await store(2);
    expect((await c.run(['customers', 'archive', '1'])).code).toBe(0);
    const prompter = fakePrompter(['=>2', '1']);
    expect((await c.run(['subscriptions', 'create'], { prompter })).code).toBe(0);
    expect(prompter.asked[0].choices?.map((choice) => choice.value)).toEqual(['2']);

    expect((await c.run(['customers', 'archive', '2'])).code).toBe(0);
    const none = fakePrompter([]);
    expect(await c.run(['subscriptions', 'create'], { prompter: none })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: there is no active customer to choose from\nhint: make one with `billing customers create`\n',
    });
    expect(none.asked).toEqual([]);
  });
});
