// argv to behaviour: global options anywhere, output formats, usage errors (exit 2), flags and
// --data, help and version, and when a prompt may appear.
import { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandWords } from '../../src/cli.js';
import { accounts } from '../../src/commands/accounts/index.js';
import { customers } from '../../src/commands/customers/index.js';
import { plans } from '../../src/commands/plans/index.js';
import { createDeps } from '../../src/lib/command/deps.js';
import { addGlobalOptions, readGlobals } from '../../src/lib/cli/globals.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { tempDir } from '../helpers/store.js';
import { cli, JAN } from './harness.js';

const doc = (text: string) => JSON.parse(text) as { data: { id: string; attributes: Record<string, unknown> } };

describe('global options', () => {
  it('are accepted before and after the subcommand, with the same output', async () => {
    const c = cli();
    await c.seedCustomers(1);
    const before = await c.run(['--json', 'customers', 'get', '1']);
    const after = await c.run(['customers', 'get', '1', '--json']);
    expect(before.code).toBe(0);
    expect(after).toEqual(before);
    expect(doc(before.stdout).data.id).toBe('1');
    expect(doc(before.stdout).data.attributes.email).toBe('c1@example.com');

    // A value option before the subcommand: its value is not mistaken for a command word.
    const csvBefore = await c.run(['-o', 'csv', 'customers', 'list']);
    const csvAfter = await c.run(['customers', 'list', '-o', 'csv']);
    expect(csvBefore.code).toBe(0);
    expect(csvAfter).toEqual(csvBefore);
    expect(csvBefore.stdout.split('\r\n')[1]).toMatch(/^1,,First1,,Last1,/);
  });

  it('finds the command words past global options and their values', () => {
    expect(commandWords(['--json', 'customers', 'get', '1'])).toEqual(['customers', 'get']);
    expect(commandWords(['-o', 'csv', '--db', '/tmp/x.db', '--account', 'acme', 'customers', 'list'])).toEqual([
      'customers',
      'list',
    ]);
    expect(commandWords(['--query', 'data', 'plans', 'list', '--page', '2'])).toEqual(['plans', 'list']);
    expect(commandWords(['demo', '--json'])).toEqual(['demo']);
  });

  it('--db and --account before the subcommand reach the store (no injected core)', async () => {
    const c = cli();
    expect((await c.run(['--db', c.dbPath, 'accounts', 'create', 'acme', '--json'], { real: true })).code).toBe(0);
    const created = await c.run(
      ['--db', c.dbPath, '--account', 'acme', 'customers', 'create', ...JAN, '-q', '--json'],
      { real: true },
    );
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    const asAcme = await c.run(['--account', 'acme', 'customers', 'list', '--json'], {
      real: true,
      env: { BILLING_DB: c.dbPath },
    });
    expect(JSON.parse(asAcme.stdout).meta.total).toBe(1);
    expect(await c.customerCount()).toBe(0); // the default account sees none of acme's customers
  });

  it.each([
    ['json', (out: string) => expect(JSON.parse(out).data).toHaveLength(2)],
    [
      'ndjson',
      (out: string) =>
        expect(
          out
            .trimEnd()
            .split('\n')
            .map((l) => JSON.parse(l).id),
        ).toEqual(['1', '2']),
    ],
    ['csv', (out: string) => expect(out.split('\r\n')[0]).toMatch(/^id,gender,first_name,/)],
  ])('-o %s picks the format', async (format, check) => {
    const c = cli();
    await c.seedCustomers(2);
    const result = await c.run(['customers', 'list', '-o', format]);
    expect(result.code).toBe(0);
    check(result.stdout);
    const long = await c.run(['customers', 'list', `--output=${format}`]);
    expect(long).toEqual(result);
  });

  it('a bad -o value exits 2 and says which formats exist', async () => {
    const c = cli();
    const result = await c.run(['-o', 'xml', 'customers', 'list']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --output must be one of: table, json, ndjson, csv\n',
    });
  });
});

describe('usage errors exit 2', () => {
  it('an unknown command', async () => {
    const result = await cli().run(['customers', 'frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "error: unknown command 'billing customers frobnicate' (see billing customers --help)\n",
    );
  });

  it('an unknown top-level command', async () => {
    const result = await cli().run(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown command 'billing frobnicate' (see billing --help)\n");
  });

  it('an unknown flag', async () => {
    const result = await cli().run(['customers', 'list', '--frob']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("error: unknown option '--frob'");
  });

  it('a missing ID argument', async () => {
    const result = await cli().run(['customers', 'get']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'id'");
  });

  it('an ID that is not a number, naming it', async () => {
    const result = await cli().run(['customers', 'get', 'abc']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: ID must be a positive whole number, not "abc"\n' });
  });

  it.each(['0', '-1', '1.5', 'x'])('--page %s', async (page) => {
    const result = await cli().run(['customers', 'list', '--page', page]);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: --page must be a whole number of at least 1\n' });
  });

  it.each(['0', '101', '1000'])('--page-size %s, beyond what the service serves', async (size) => {
    const result = await cli().run(['customers', 'list', '--page-size', size]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --page-size must be a whole number from 1 to 100\n',
    });
  });

  it('--fields without TYPE=', async () => {
    const result = await cli().run(['customers', 'list', '--fields', 'bad']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --fields takes TYPE=a,b (for example customer=first_name,email), not "bad"\n',
    });
  });

  it('customers create without its required flags names every one and sends nothing', async () => {
    const c = cli();
    const result = await c.run(['customers', 'create']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: missing required flags: --first-name, --last-name, --email\n',
    });
    expect(await c.customerCount()).toBe(0);
  });

  it('customers create with one required flag missing names only that one', async () => {
    const c = cli();
    const result = await c.run(['customers', 'create', '--first-name', 'Jan', '--email', 'jan@example.com']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: missing required flag: --last-name\n' });
    expect(await c.customerCount()).toBe(0);
  });

  it('update without any flag to change', async () => {
    const c = cli();
    await c.seedCustomers(1);
    const result = await c.run(['customers', 'update', '1']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: nothing to change: give at least one flag (see billing customers update --help)\n',
    });
  });

  it('an embedded-only command in remote mode', async () => {
    const result = await cli().run(['--base-url', 'http://billing.example.com', 'accounts', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: accounts list works only on the embedded store; it cannot run against http://billing.example.com (drop --base-url / BILLING_BASE_URL)\n',
    );
  });
});

describe('attributes from flags and --data', () => {
  it('--data JSON supplies attributes, and flags win over it', async () => {
    const c = cli();
    const result = await c.run([
      'customers',
      'create',
      '--data',
      '{"first_name":"Piet","last_name":"Puk","email":"piet@example.com"}',
      '--first-name',
      'Klaas',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const attributes = doc(result.stdout).data.attributes;
    expect([attributes.first_name, attributes.last_name, attributes.email]).toEqual([
      'Klaas',
      'Puk',
      'piet@example.com',
    ]);
  });

  it('--data @file reads a file (a whole request document works too)', async () => {
    const c = cli();
    const file = join(tempDir(), 'customer.json');
    writeFileSync(
      file,
      JSON.stringify({
        data: {
          type: 'customer',
          attributes: { first_name: 'Anna', last_name: 'Bos', email: 'anna@example.com', city: 'Delft' },
        },
      }),
    );
    const result = await c.run(['customers', 'create', '--data', `@${file}`, '--json']);
    expect(result.code).toBe(0);
    const attributes = doc(result.stdout).data.attributes;
    expect([attributes.first_name, attributes.city]).toEqual(['Anna', 'Delft']);
  });

  it('--data - reads stdin', async () => {
    const c = cli();
    const result = await c.run(['customers', 'create', '--data', '-', '--email', 'flag@example.com', '--json'], {
      stdin: '{"first_name":"Stdin","last_name":"Reader","email":"stdin@example.com"}',
    });
    expect(result.code).toBe(0);
    const attributes = doc(result.stdout).data.attributes;
    expect([attributes.first_name, attributes.email]).toEqual(['Stdin', 'flag@example.com']);
  });

  it('--data that is not JSON, or not an object, or an unreadable file, exits 2 and sends nothing', async () => {
    const c = cli();
    expect(await c.run(['customers', 'create', '--data', '{nope'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --data must be a JSON object, for example --data \'{"first_name":"Jan"}\'\n',
    });
    expect(await c.run(['customers', 'create', '--data', '[1,2]'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --data must be a JSON object of attributes\n',
    });
    const missing = await c.run(['customers', 'create', '--data', '@/nonexistent/customer.json']);
    expect(missing).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --data @/nonexistent/customer.json: cannot read the file (ENOENT)\n',
    });
    expect(await c.customerCount()).toBe(0);
  });

  it('a missing required attribute is fine when --data gives it', async () => {
    const c = cli();
    const result = await c.run([
      '--dry-run',
      'customers',
      'create',
      '--first-name',
      'Jan',
      '--data',
      '{"last_name":"Jansen","email":"jan@example.com"}',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).body.data.attributes).toEqual({
      last_name: 'Jansen',
      email: 'jan@example.com',
      first_name: 'Jan',
    });
  });

  it('update sends only the flags given (no defaults, no booleans left unset)', async () => {
    const c = cli();
    await c.seedCustomers(1);
    const result = await c.run(['--dry-run', 'customers', 'update', '1', '--city', 'Utrecht']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      method: 'PATCH',
      path: '/customers/1',
      body: { data: { type: 'customer', id: '1', attributes: { city: 'Utrecht' } } },
    });
  });

  it('--archived and --no-archived on update set the boolean, and a flag beats --data', async () => {
    const c = cli();
    await c.seedCustomers(1);
    const dry = (flag: string) => c.run(['--dry-run', 'customers', 'update', '1', flag]);
    expect(JSON.parse((await dry('--archived')).stdout).body.data.attributes).toEqual({ archived: true });
    expect(JSON.parse((await dry('--no-archived')).stdout).body.data.attributes).toEqual({ archived: false });

    const archived = await c.run(['customers', 'update', '1', '--archived', '--json']);
    expect(doc(archived.stdout).data.attributes.archived).toBe(true);
    const unarchived = await c.run([
      'customers',
      'update',
      '1',
      '--data',
      '{"archived":true}',
      '--no-archived',
      '--json',
    ]);
    expect(doc(unarchived.stdout).data.attributes.archived).toBe(false);
  });
});

describe('help and version', () => {
  const verbsOf = [customers, plans, accounts].flatMap((group) =>
    Object.keys(group.verbs).map((verb) => [group.name, verb] as const),
  );

  it.each(verbsOf)('%s %s --help exits 0 with examples of that command', async (group, verb) => {
    const result = await cli().run([group, verb, '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`Usage: billing ${group} ${verb}`);
    const examples = result.stdout.slice(result.stdout.indexOf('\nExamples:\n'));
    expect(result.stdout).toContain('\nExamples:\n');
    expect(examples).toContain(`  $ billing ${group} ${verb}`);
  });

  it('billing --help lists the groups and shows examples', async () => {
    const result = await cli().run(['--help']);
    expect(result.code).toBe(0);
    for (const word of [
      'customers',
      'plans',
      'accounts',
      'api',
      'demo',
      '--json',
      '--output',
      '--no-input',
      'Examples:',
    ])
      expect(result.stdout).toContain(word);
  });

  it('customers create --help lists a flag per attribute and marks the required ones', async () => {
    const result = await cli().run(['customers', 'create', '--help']);
    expect(result.stdout).toMatch(/--first-name <text>\s+First name \(required\)/);
    expect(result.stdout).toMatch(/--email <text>\s+Email address \(required\)/);
    expect(result.stdout).toMatch(
      /--language <value>\s+Language of notifications \(nl, en, nl-be, de, fr\)\s+\[default: nl\]/,
    );
    expect(result.stdout).toContain('--data <json>');
  });

  it('customers update --help has --archived and --no-archived', async () => {
    const result = await cli().run(['customers', 'update', '--help']);
    expect(result.stdout).toContain('--archived ');
    expect(result.stdout).toContain('--no-archived ');
  });

  it('--version and -V exit 0 and print the version', async () => {
    const long = await cli().run(['--version']);
    expect(long.code).toBe(0);
    expect(long.stdout).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?\n$/);
    expect(await cli().run(['-V'])).toEqual(long);
  });

  it('--help never opens the store', async () => {
    const dbPath = join(tempDir(), 'never', 'billing.db');
    const result = await cli(dbPath).run(['--db', dbPath, 'customers', 'list', '--help'], { real: true });
    expect(result.code).toBe(0);
    const { existsSync } = await import('node:fs');
    expect(existsSync(dbPath)).toBe(false);
  });
});

describe('whether a prompt may appear', () => {
  const globalsOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const program = new Command('billing').exitOverride();
    addGlobalOptions(program);
    program.parse(argv, { from: 'user' });
    return readGlobals(program.opts(), env);
  };
  const canPrompt = (argv: string[], options: { tty: boolean; env?: NodeJS.ProcessEnv }) =>
    createDeps(memoryIO({ tty: options.tty }), globalsOf(argv, options.env), {
      BILLING_CONFIG_DIR: tempDir(),
      ...options.env,
    }).canPrompt;

  it('on a terminal, without --no-input or CI: yes', () => {
    expect(canPrompt([], { tty: true })).toBe(true);
  });

  it('not on a terminal: no', () => {
    expect(canPrompt([], { tty: false })).toBe(false);
  });

  it('with --no-input: no', () => {
    expect(globalsOf(['--no-input']).input).toBe(false);
    expect(canPrompt(['--no-input'], { tty: true })).toBe(false);
  });

  it('with CI set: no', () => {
    expect(canPrompt([], { tty: true, env: { CI: 'true' } })).toBe(false);
  });

  it('stdin a terminal but stdout piped: no', () => {
    const io = { ...memoryIO({ tty: true }), stdoutIsTTY: false };
    expect(createDeps(io, globalsOf([]), { BILLING_CONFIG_DIR: tempDir() }).canPrompt).toBe(false);
  });
});
