// Help a person can navigate: where it goes, what each level shows, and that it reads at 80 columns.
import { describe, expect, it } from 'vitest';
import { helpArgv } from '../../src/cli.js';
import { accounts } from '../../src/commands/accounts/index.js';
import { config } from '../../src/commands/config/index.js';
import { customers } from '../../src/commands/customers/index.js';
import { invoices } from '../../src/commands/invoices/index.js';
import { lines } from '../../src/commands/lines/index.js';
import { plans } from '../../src/commands/plans/index.js';
import { profiles } from '../../src/commands/profiles/index.js';
import { store } from '../../src/commands/store/index.js';
import { cli } from './harness.js';

const GROUPS = [customers, plans, invoices, lines, accounts, store, config, profiles];

describe('where help goes', () => {
  it('billing alone prints help on stdout and exits 0', async () => {
    const result = await cli().run([]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: billing /);
    expect(result.stdout).toContain('\nCommands:\n');
  });

  it('a group alone prints its help on stdout and exits 0', async () => {
    const result = await cli().run(['customers']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: billing customers /);
  });

  it("billing help customers list, and billing customers help list, show the verb's help", async () => {
    const direct = await cli().run(['customers', 'list', '--help']);
    expect(direct.stdout).toMatch(/^Usage: billing customers list /);
    expect(await cli().run(['help', 'customers', 'list'])).toEqual(direct);
    expect(await cli().run(['customers', 'help', 'list'])).toEqual(direct);
    expect((await cli().run(['help', 'customers'])).stdout).toMatch(/^Usage: billing customers /);
    expect((await cli().run(['help'])).stdout).toMatch(/^Usage: billing /);
  });

  it('"help" as a value or a later word is not taken for the help command', () => {
    expect(helpArgv(['--profile', 'help', 'customers', 'list'])).toEqual(['--profile', 'help', 'customers', 'list']);
    expect(helpArgv(['customers', 'list', '--search', 'help'])).toEqual(['customers', 'list', '--search', 'help']);
    expect(helpArgv(['--json', 'help', 'customers', 'get'])).toEqual(['--json', 'customers', 'get', '--help']);
  });
});

describe('what each level shows', () => {
  it.each(GROUPS.map((g) => [g.name, g] as const))(
    'the %s group shows every verb with its arguments, and examples',
    async (name, group) => {
      const result = await cli().run([name, '--help']);
      expect(result.code).toBe(0);
      for (const verb of Object.keys(group.verbs)) expect(result.stdout).toMatch(new RegExp(`\\n  ${verb}\\b`));
      expect(result.stdout).toContain('\nExamples:\n');
      expect(group.examples?.length).toBeGreaterThan(0);
      for (const example of group.examples ?? []) expect(result.stdout).toContain(`  $ ${example}`);
    },
  );

  it('group help shows arguments: get <id>, update <id>', async () => {
    const result = await cli().run(['customers', '--help']);
    expect(result.stdout).toMatch(/\n {2}get \[options\] <id>\s+show one customer/);
    expect(result.stdout).toMatch(/\n {2}update \[options\] <id>\s+change a customer/);
    expect(result.stdout).toMatch(/\n {2}archive <id>\s+archive a customer/);
  });

  it('the global options are listed once, in billing --help; other help points there', async () => {
    const top = await cli().run(['--help']);
    expect(top.stdout.match(/--pool-size/g)).toHaveLength(1);
    expect(top.stdout).not.toContain('see billing --help');
    for (const argv of [
      ['customers', '--help'],
      ['customers', 'list', '--help'],
      ['accounts', 'show', '--help'],
    ]) {
      const result = await cli().run(argv);
      expect(result.stdout).not.toContain('--pool-size');
      expect(result.stdout).not.toContain('Global Options:');
      expect(result.stdout.replace(/\n/g, ' ')).toContain('--dry-run, --yes and more): see billing --help');
    }
  });

  it('accounts get suggests accounts show (exit 2); other verbs of other words too', async () => {
    expect(await cli().run(['accounts', 'get', 'acme'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: unknown command 'billing accounts get'; did you mean 'billing accounts show'? (see billing accounts --help)\n",
    });
    expect((await cli().run(['profiles', 'rm', 'x'])).stderr).toContain("did you mean 'billing profiles remove'?");
    expect((await cli().run(['customers', 'ls'])).stderr).toContain("did you mean 'billing customers list'?");
    expect((await cli().run(['customers', 'edit', '1'])).stderr).toContain("did you mean 'billing customers update'?");
  });

  it('one format for every mistyped word: groups, verbs and options, also after help', async () => {
    const refused = (stderr: string) => ({ code: 2, stdout: '', stderr: `${stderr}\n` });
    expect(await cli().run(['help', 'invoice'])).toEqual(
      refused("error: unknown command 'billing invoice'; did you mean 'billing invoices'? (see billing --help)"),
    );
    expect(await cli().run(['--json', 'custmers', 'list'])).toEqual(
      refused("error: unknown command 'billing custmers'; did you mean 'billing customers'? (see billing --help)"),
    );
    expect(await cli().run(['customers', 'lst'])).toEqual(
      refused(
        "error: unknown command 'billing customers lst'; did you mean 'billing customers list'? (see billing customers --help)",
      ),
    );
    expect(await cli().run(['help', 'customers', 'lst'])).toEqual(await cli().run(['customers', 'lst']));
    expect(await cli().run(['customers', 'list', '--serch', 'x'])).toEqual(
      refused("error: unknown option '--serch'; did you mean '--search'?"),
    );
    expect(await cli().run(['xyzzy'])).toEqual(refused("error: unknown command 'billing xyzzy' (see billing --help)"));
    // An unknown option before the command is what is named: the word after it may be its value.
    expect(await cli().run(['--frob', 'x', 'customers', 'list'])).toEqual(refused("error: unknown option '--frob'"));
  });
});

describe('help reads at 80 columns', () => {
  const everyHelp = [
    [],
    ...GROUPS.flatMap((g) => [[g.name], ...Object.keys(g.verbs).map((v) => [g.name, v])]),
    ['api'],
    ['demo'],
    ['serve'],
  ];

  it.each(everyHelp.map((argv) => [argv.join(' ') || 'billing', argv] as const))(
    '%s: lines wrap at words, within 80 columns',
    async (_name, argv) => {
      const result = await cli().run([...argv, '--help']);
      expect(result.code).toBe(0);
      for (const line of result.stdout.split('\n')) {
        // Example command lines are copied as a whole, never wrapped.
        if (line.startsWith('  $ ')) continue;
        expect(line.length, line).toBeLessThanOrEqual(80);
      }
    },
  );
});

describe('every command shows how it is used', () => {
  it('every group, verb and single command has a description and at least one example of its own real use', async () => {
    const { buildProgram } = await import('../../src/cli.js');
    const { memoryIO } = await import('../../src/lib/cli/io.js');
    const program = await buildProgram(memoryIO(), undefined, { all: true });
    const missing: string[] = [];
    let seen = 0;
    const walk = (command: typeof program, path: string[]) => {
      for (const sub of command.commands) {
        if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
        const words = [...path, sub.name()];
        let text = '';
        sub.configureOutput({ writeOut: (t) => (text += t), writeErr: (t) => (text += t) });
        sub.outputHelp();
        seen++;
        // An example names the command itself: `$ billing invoices finalise 42`, not just any billing line.
        const example = new RegExp(
          `\\n {2}\\$ (?:cat .*\\| )?billing (?:--\\S+(?: \\S+)? )*${words.join(' ')}(?: |\\n|$)`,
        );
        if (!sub.description()) missing.push(`${words.join(' ')}: no description`);
        if (!example.test(text)) missing.push(`${words.join(' ')}: no example of its own use`);
        walk(sub, words);
      }
    };
    walk(program, []);
    expect(seen).toBeGreaterThan(80);
    expect(missing).toEqual([]);
  });
});
