// Prompts from the schemas, through a scripted prompter: what is asked, by which kind of question,
// how a bad answer is refused by the service's own rule, when nobody is asked, and Ctrl-C.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDeps } from '../../src/lib/command/deps.js';
import { readGlobals } from '../../src/lib/cli/globals.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { askMissing } from '../../src/lib/command/prompting.js';
import { CTRL_C, fakePrompter } from '../../src/lib/prompts/fake.js';
import { integer, oneOf, requiredText } from '../../src/lib/schemas/common.js';
import { LANGUAGES } from '../../src/lib/schemas/vocabulary.js';
import { testCore } from '../helpers/store.js';
import { cli } from './harness.js';

const doc = (text: string) => JSON.parse(text) as { data: { id: string; attributes: Record<string, unknown> } };

describe('create asks for the missing required attributes', () => {
  it('asks each one, refuses a bad email with the reason and asks again, then creates', async () => {
    const c = cli();
    const prompter = fakePrompter(['Jan', 'Jansen', 'not-an-email', 'jan@', 'jan@example.com', '']);
    const result = await c.run(['customers', 'create', '--json'], { prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => [q.kind, q.message])).toEqual([
      ['text', 'First name (e.g. Jan)'],
      ['text', 'Last name (e.g. Jansen)'],
      ['text', 'Email address (e.g. jan@example.com)'],
      ['text', 'IBAN of the account to debit (Enter skips)'],
    ]);
    expect(prompter.asked[2].refused).toEqual([
      'Email address must be a valid email address',
      'Email address must be a valid email address',
    ]);
    expect(doc(result.stdout).data.attributes).toMatchObject({
      first_name: 'Jan',
      last_name: 'Jansen',
      email: 'jan@example.com',
    });
    expect(await c.customerCount()).toBe(1);
  });

  it('asks only for what the flags left out', async () => {
    const c = cli();
    const prompter = fakePrompter(['Bos', '']);
    const result = await c.run(
      ['customers', 'create', '--first-name', 'Anna', '--email', 'anna@example.com', '--json'],
      { prompter },
    );
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => q.message)).toEqual([
      'Last name (e.g. Jansen)',
      'IBAN of the account to debit (Enter skips)',
    ]);
    expect(doc(result.stdout).data.attributes.last_name).toBe('Bos');
  });

  it('asks nothing when every required flag is given', async () => {
    const c = cli();
    const prompter = fakePrompter([]);
    const result = await c.run(
      ['customers', 'create', '--first-name', 'A', '--last-name', 'B', '--email', 'a@example.com'],
      { prompter },
    );
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual([]);
  });

  it('an amount typed the Dutch way (12,50) is accepted at the prompt of plans create', async () => {
    const c = cli();
    const prompter = fakePrompter(['Monthly', '12.505', 'twelve', '12,50']);
    const result = await c.run(['plans', 'create', '--json'], { prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked[1].refused).toHaveLength(2);
    expect(prompter.asked[1].refused[0]).toMatch(/at most two decimals/);
    expect(doc(result.stdout).data.attributes.amount).toBe('12.50');
  });
});

describe('when nobody may be asked', () => {
  const cases: [string, string[], Parameters<ReturnType<typeof cli>['run']>[1]][] = [
    ['--no-input on a terminal', ['--no-input'], { tty: true }],
    ['stdin and stdout not a terminal', [], { tty: false }],
    ['CI set', [], { tty: true, env: { CI: 'true' } }],
  ];
  it.each(cases)('%s: exit 2 naming every missing flag, nothing asked or created', async (_name, flags, options) => {
    const c = cli();
    const result = await c.run(['customers', 'create', '--last-name', 'Jansen', ...flags], options);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: missing required flags: --first-name, --email\n' });
    expect(await c.customerCount()).toBe(0);
  });

  it('a prompt needs a terminal on stdin and stdout, no --no-input and no CI', () => {
    const can = (tty: { stdin: boolean; stdout: boolean }, argvInput: boolean, env: NodeJS.ProcessEnv) =>
      createDeps(
        { ...memoryIO(), stdinIsTTY: tty.stdin, stdoutIsTTY: tty.stdout },
        readGlobals({ input: argvInput }, env),
        env,
      ).canPrompt;
    expect(can({ stdin: true, stdout: true }, true, {})).toBe(true);
    expect(can({ stdin: false, stdout: true }, true, {})).toBe(false);
    expect(can({ stdin: true, stdout: false }, true, {})).toBe(false);
    expect(can({ stdin: true, stdout: true }, false, {})).toBe(false);
    expect(can({ stdin: true, stdout: true }, true, { CI: '1' })).toBe(false);
  });
});

describe('Ctrl-C inside a prompt', () => {
  it('exits 130 and writes nothing', async () => {
    const c = cli();
    const prompter = fakePrompter(['Jan', CTRL_C]);
    const result = await c.run(['customers', 'create'], { prompter });
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(await c.customerCount()).toBe(0);
  });

  it('also in the picker of an update, changing nothing', async () => {
    const c = cli();
    await c.seedCustomers(1);
    const before = await c.run(['customers', 'get', '1', '--json']);
    const result = await c.run(['customers', 'update', '1'], { prompter: fakePrompter([['language'], CTRL_C]) });
    expect(result.code).toBe(130);
    expect(await c.run(['customers', 'get', '1', '--json'])).toEqual(before);
  });
});

describe('update without flags on a terminal', () => {
  it('asks which attributes to change, offers the current values, a select for an enumeration and a confirm for a boolean', async () => {
    const c = cli();
    await c.seedCustomers(1);
    const prompter = fakePrompter([['language', 'archived', 'city'], 'en', true, 'Utrecht']);
    const result = await c.run(['customers', 'update', '1', '--json'], { prompter });
    expect(result.code).toBe(0);
    const [which, language, archived, city] = prompter.asked;
    expect(which.kind).toBe('checkbox');
    expect(which.choices?.find((choice) => choice.value === 'first_name')?.description).toBe('First1');
    expect([language.kind, language.default]).toEqual(['select', 'nl']);
    expect(language.choices?.map((choice) => choice.value)).toEqual(['', ...LANGUAGES]);
    expect([archived.kind, archived.default]).toEqual(['confirm', false]);
    expect(city.kind).toBe('text');
    expect(doc(result.stdout).data.attributes).toMatchObject({ language: 'en', archived: true, city: 'Utrecht' });
  });

  it('without a terminal it still says there is nothing to change (exit 2)', async () => {
    const c = cli();
    await c.seedCustomers(1);
    expect((await c.run(['customers', 'update', '1'])).code).toBe(2);
  });
});

describe('the machinery is generic: a schema is all a verb declares', () => {
  // A verb added later (subscriptions create) declares fields like these and gets these prompts.
  const shape = {
    customer_id: integer(1).meta({
      kind: 'id',
      description: 'Customer',
      related: { path: '/customers', noun: 'customer' },
    }),
    mandate_code: requiredText({ description: 'Mandate code' }),
    language: oneOf(LANGUAGES).meta({ kind: 'enum', choices: LANGUAGES, description: 'Language' }),
    confirmation_sent: z.boolean().meta({ kind: 'boolean', description: 'Confirmation sent' }),
  };

  it('an id is picked from a searchable list of the related resources, narrowed by what is typed', async () => {
    const core = await testCore();
    try {
      for (const [first, email] of [
        ['Jan', 'jan@example.com'],
        ['Piet', 'piet@example.com'],
        ['Janneke', 'janneke@example.com'],
      ]) {
        const response = await core.transport.request({
          method: 'POST',
          path: '/customers',
          body: { data: { type: 'customer', attributes: { first_name: first, last_name: 'Test', email } } },
        });
        expect(response.status).toBe(201);
      }
      const prompter = fakePrompter(['jan=>3', 'MNDT-1', 'de', true]);
      const io = memoryIO({ tty: true });
      const deps = createDeps(
        io,
        readGlobals({}, {}),
        {},
        { runtime: core, transport: core.transport, prompter, canPrompt: true },
      );
      const attributes: Record<string, unknown> = {};
      await askMissing(deps, shape, attributes);
      expect(attributes).toEqual({ customer_id: 3, mandate_code: 'MNDT-1', language: 'de', confirmation_sent: true });
      expect(prompter.asked.map((q) => q.kind)).toEqual(['search', 'text', 'select', 'confirm']);
      // What "jan" offered: Jan and Janneke, not Piet, each as a person recognises them.
      expect(prompter.asked[0].choices?.map((choice) => choice.name)).toEqual([
        '1  Jan Test <jan@example.com>',
        '3  Janneke Test <janneke@example.com>',
      ]);
    } finally {
      await core.store.close();
    }
  });
});
