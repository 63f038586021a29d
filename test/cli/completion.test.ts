// Shell completion: what `billing completion SHELL` reads from the program (commands, flags, values
// from the schemas and vocabulary, ids), the hidden `billing __complete` helper, and the scripts
// run for real: bash driven through COMP_WORDS, zsh through its own walk and through a real Tab in
// a terminal, fish through `complete -C`, all against stores made through the CLI; and the same
// under `npx billing`, through a stand-in npx, leaving npx's completion of other packages alone.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commandReference } from '../../scripts/command-reference.js';
import { buildProgram } from '../../src/cli.js';
import { enumerations } from '../../src/commands/completion/lists.js';
import { SHELLS } from '../../src/commands/completion/index.js';
import { customers } from '../../src/commands/customers/index.js';
import { OUTPUT_FORMATS } from '../../src/lib/cli/globals.js';
import { kebab } from '../../src/lib/command/flags.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { ID_KINDS, ID_LIMIT } from '../../src/lib/completion/ids.js';
import {
  completionTree,
  listIn,
  type CompletionTree,
  type NodeSpec,
  type Values,
} from '../../src/lib/completion/tree.js';
import { CONFIG_KEYS } from '../../src/lib/config/file.js';
import { metaOf } from '../../src/lib/schemas/common.js';
import { customerCreateShape } from '../../src/lib/schemas/customer.js';
import { invoiceCreateShape, lineCreateShape } from '../../src/lib/schemas/invoice.js';
import { planCreateShape } from '../../src/lib/schemas/plan.js';
import {
  subscriptionCreateShape,
  subscriptionUpdateShape,
  transactionCreateShape,
} from '../../src/lib/schemas/subscription.js';
import {
  CUSTOMER_SORT_FIELDS,
  FREQUENCIES,
  INVOICE_SORT_FIELDS,
  OUTCOMES,
  PLAN_SORT_FIELDS,
  SUBSCRIPTION_STATUSES,
  TRANSACTION_STATUSES,
} from '../../src/lib/schemas/vocabulary.js';
import { BIN, ensureBundle, runCli, TEST_CONFIG_DIR } from '../helpers/cli.js';
import { tempDir } from '../helpers/store.js';
import { terminal } from '../helpers/tmux.js';
import { cli } from './harness.js';

// ---- the tree read from the program ----

let tree: CompletionTree;
beforeAll(async () => {
  tree = completionTree(await buildProgram(memoryIO(), undefined, { all: true }), enumerations());
});

const node = (path: string): NodeSpec => {
  const found = tree.nodes.find((n) => n.path.join(' ') === path);
  if (!found) throw new Error(`no node "${path}"`);
  return found;
};
const flagValues = (path: string, flag: string): Values | undefined => {
  const spec = [...node(path).flags, ...tree.globals].find((f) => f.names.includes(flag));
  if (!spec) throw new Error(`no flag ${flag} at "${path}"`);
  return spec.values;
};
const words = (list: readonly string[]): Values => ({ kind: 'words', words: [...list] });
const sorts = (fields: readonly string[]): Values => words([...fields, ...fields.map((f) => `-${f}`)]);

describe('what is completed, read from the program', () => {
  it('has every visible command of the program, and not the hidden helper', async () => {
    const program = await buildProgram(memoryIO(), undefined, { all: true });
    const top = node('').commands.map((c) => c.name);
    for (const command of program.commands) expect(top).toContain(command.name());
    expect(top).toEqual(expect.arrayContaining(['customers', 'plans', 'api', 'demo', 'serve', 'completion']));
    expect(tree.nodes.some((n) => n.path.includes('__complete'))).toBe(false);
    expect(node('customers').commands.map((c) => c.name)).toEqual([...Object.keys(customers.verbs), 'help']);
  });

  it.each([
    ['customers create', customerCreateShape],
    ['plans create', planCreateShape],
    ['subscriptions create', subscriptionCreateShape],
    ['subscriptions update', subscriptionUpdateShape],
    ['invoices create', invoiceCreateShape],
    ['lines create', lineCreateShape],
    ['transactions create', transactionCreateShape],
  ] as const)(
    '%s: every enum of its schema gives its flag those values, every related id gives ids of that resource',
    (path, shape) => {
      let checked = 0;
      for (const [name, schema] of Object.entries(shape)) {
        const meta = metaOf(schema);
        if (meta?.choices) {
          expect(flagValues(path, `--${kebab(name)}`), name).toEqual(words(meta.choices));
          checked++;
        }
        if (meta?.kind === 'id' && meta.related) {
          const values = flagValues(path, `--${kebab(name)}`);
          expect(values?.kind, name).toBe('ids');
          expect(ID_KINDS[(values as { ids: string }).ids].path).toBe(meta.related.path);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(0);
    },
  );

  it('flags of lists: --status, --sort (FIELD and -FIELD), --outcome, -o; and ids of filters', () => {
    expect(flagValues('subscriptions list', '--status')).toEqual(words(SUBSCRIPTION_STATUSES));
    expect(flagValues('transactions list', '--status')).toEqual(words(TRANSACTION_STATUSES));
    expect(flagValues('customers list', '--sort')).toEqual(sorts(CUSTOMER_SORT_FIELDS));
    expect(flagValues('invoices list', '--sort')).toEqual(sorts(INVOICE_SORT_FIELDS));
    expect(flagValues('transactions simulate', '--outcome')).toEqual(words(OUTCOMES));
    expect(flagValues('customers list', '-o')).toEqual(words(OUTPUT_FORMATS));
    expect(flagValues('', '--output')).toEqual(words(OUTPUT_FORMATS));
    expect(flagValues('subscriptions list', '--plan-id')).toEqual({ kind: 'ids', ids: 'plans' });
    expect(flagValues('invoices list', '--subscription-id')).toEqual({ kind: 'ids', ids: 'subscriptions' });
    expect(flagValues('', '--db')).toEqual({ kind: 'files' });
    expect(flagValues('customers list', '--search')).toEqual({ kind: 'any' });
    expect(flagValues('customers list', '--all')).toBeUndefined();
  });

  it('arguments: <id> of the four resources, the shells, the config keys', () => {
    for (const path of ['customers get', 'customers archive', 'customers subscriptions'])
      expect(node(path).args).toEqual([{ kind: 'ids', ids: 'customers' }]);
    expect(node('plans get').args).toEqual([{ kind: 'ids', ids: 'plans' }]);
    expect(node('subscriptions cancel').args).toEqual([{ kind: 'ids', ids: 'subscriptions' }]);
    expect(node('invoices finalise').args).toEqual([{ kind: 'ids', ids: 'invoices' }]);
    expect(node('lines get').args).toEqual([{ kind: 'any' }]);
    expect(node('completion').args).toEqual([words(SHELLS)]);
    expect(node('config get').args).toEqual([words(CONFIG_KEYS)]);
  });

  it('a new flag whose help spells out a list is completed with it, with no list written for completion', async () => {
    const program = await buildProgram(memoryIO(), undefined, { all: true });
    const list = program.commands.find((c) => c.name() === 'plans')!.commands.find((c) => c.name() === 'list')!;
    list.option('--frequency <value>', `only plans collected so often (${FREQUENCIES.join(', ')})`);
    const grown = completionTree(program, enumerations());
    expect(
      grown.nodes.find((n) => n.path.join(' ') === 'plans list')!.flags.find((f) => f.names.includes('--frequency'))!
        .values,
    ).toEqual(words(FREQUENCIES));
  });

  it('finds the list a help text spells out whole, never a part of a longer one', () => {
    const lists = [PLAN_SORT_FIELDS, CUSTOMER_SORT_FIELDS, OUTCOMES];
    expect(listIn('order by id, created_at, last_name, email; -field for descending', lists)).toBe(
      CUSTOMER_SORT_FIELDS,
    );
    expect(listIn('order by id, created_at; -field for descending', lists)).toBe(PLAN_SORT_FIELDS);
    expect(listIn('order by created_at, id, created_at', [PLAN_SORT_FIELDS])).toBeUndefined();
    expect(listIn('(x, id, created_at)', [PLAN_SORT_FIELDS])).toBeUndefined();
    expect(listIn('what happens: charged_back or failed (required)', lists)).toBe(OUTCOMES);
    expect(listIn('the paid_or_failed state', lists)).toBeUndefined();
  });
});

// ---- the command and the hidden helper, in process ----

describe('billing completion', () => {
  it('prints each script; its help shows how to install it', async () => {
    const c = cli();
    for (const shell of SHELLS) {
      const result = await c.run(['completion', shell]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('_billing');
    }
    const help = await c.run(['completion', '--help']);
    expect(help.stdout).toContain('\nExamples:\n');
    expect(help.stdout).toContain('  $ source <(billing completion bash)\n');
    expect(help.stdout).toContain('  $ billing completion zsh > "${fpath[1]}/_billing"\n');
    expect(help.stdout).toContain('  $ billing completion fish > ~/.config/fish/completions/billing.fish\n');
    for (const line of help.stdout.split('\n'))
      if (!line.startsWith('  $ ')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('an unknown shell is exit 2, naming the three', async () => {
    const result = await cli().run(['completion', 'tcsh']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/bash, zsh, fish/);
  });
});

describe('billing __complete (the helper the scripts run)', () => {
  it('prints the newest ids first, each with its name, at most one page', async () => {
    const c = cli();
    await c.seedCustomers(ID_LIMIT + 5);
    const result = await c.run(['--db', c.dbPath, '__complete', 'ids', 'customers'], { real: true });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(ID_LIMIT);
    expect(lines[0]).toBe(`${ID_LIMIT + 5}\tFirst${ID_LIMIT + 5} Last${ID_LIMIT + 5}`);
    expect(lines.at(-1)).toBe('6\tFirst6 Last6');
  });

  it('a missing store gives nothing, exit 0, and is never made', async () => {
    const db = join(tempDir(), 'none.db');
    const result = await cli().run(['--db', db, '__complete', 'ids', 'customers'], { real: true });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(db)).toBe(false);
  });

  it('takes only ids of the four kinds (exit 2 otherwise)', async () => {
    expect((await cli().run(['__complete', 'ids', 'lines'])).code).toBe(2);
    expect((await cli().run(['__complete', 'names', 'customers'])).code).toBe(2);
  });

  it('is in no help and not in the command reference', async () => {
    expect((await cli().run(['--help'])).stdout).not.toContain('__complete');
    expect(await commandReference()).not.toContain('__complete');
  });
});

describe('billing __complete in remote mode', () => {
  const BASE = 'https://billing.test';
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());

  it('asks for one page, newest first, with the key and base URL typed, and describes each id', async () => {
    const seen: string[] = [];
    const scope = nock(BASE, { reqheaders: { 'x-authorization': 'k_typed' } })
      .get('/subscription-plans')
      .query((query) => {
        seen.push(new URLSearchParams(query as Record<string, string>).toString());
        return true;
      })
      .reply(200, {
        data: [
          { type: 'subscription-plan', id: '9', attributes: { name: 'Gold', status: 'active' } },
          { type: 'subscription-plan', id: '4', attributes: { name: 'Old', status: 'inactive' } },
        ],
      });
    const result = await cli().run(['--base-url', BASE, '--api-key', 'k_typed', '__complete', 'ids', 'plans'], {
      real: true,
    });
    expect(result).toEqual({ code: 0, stdout: '9\tGold\n4\tOld (inactive)\n', stderr: '' });
    scope.done();
    expect(decodeURIComponent(seen[0])).toContain(`page[size]=${ID_LIMIT}`);
    expect(decodeURIComponent(seen[0])).toContain('sort=-id');
  });

  it('a server that refuses the sort (400) is asked again for one plain page, shown newest first', async () => {
    const scope = nock(BASE)
      .get('/customers')
      .query((query) => query.sort === '-id')
      .reply(400, { errors: [{ title: 'Bad Request', source: { parameter: 'sort' } }] })
      .get('/customers')
      .query({ 'page[size]': String(ID_LIMIT) })
      .reply(200, {
        data: [
          { type: 'customer', id: '1', attributes: { first_name: 'Ann' } },
          { type: 'customer', id: '2', attributes: { first_name: 'Bob' } },
        ],
      });
    expect(
      (await cli().run(['--base-url', BASE, '--api-key', 'k', '__complete', 'ids', 'customers'], { real: true }))
        .stdout,
    ).toBe('2\tBob\n1\tAnn\n');
    scope.done();
  });

  it('honours --profile (its base URL and key)', async () => {
    const c = cli();
    expect((await c.run(['profiles', 'add', 'staging', '--base-url', BASE, '--api-key', 'k_profile'])).code).toBe(0);
    const scope = nock(BASE, { reqheaders: { 'x-authorization': 'k_profile' } })
      .get('/customers')
      .query(true)
      .reply(200, {
        data: [
          {
            type: 'customer',
            id: '3',
            attributes: { first_name: 'Ann', last_name: 'Archer', company_name: 'Archer BV' },
          },
        ],
      });
    expect((await c.run(['--profile', 'staging', '__complete', 'ids', 'customers'], { real: true })).stdout).toBe(
      '3\tAnn Archer (Archer BV)\n',
    );
    scope.done();
  });

  it('a server that does not answer within the deadline gives nothing, exit 0, within it', async () => {
    nock(BASE)
      .get('/customers')
      .query(true)
      .delay(10_000)
      .reply(200, { data: [{ type: 'customer', id: '1', attributes: {} }] });
    const started = performance.now();
    const result = await cli().run(['--base-url', BASE, '--api-key', 'k', '__complete', 'ids', 'customers'], {
      real: true,
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('BILLING_COMPLETION_SECONDS lengthens the deadline; a value it does not take is the default', async () => {
    const slow = () =>
      nock(BASE)
        .get('/customers')
        .query(true)
        .delay(1500)
        .reply(200, { data: [{ type: 'customer', id: '1', attributes: { first_name: 'Ann' } }] });
    const ask = (value: string) =>
      cli().run(['--base-url', BASE, '--api-key', 'k', '__complete', 'ids', 'customers'], {
        real: true,
        env: { BILLING_COMPLETION_SECONDS: value },
      });
    slow();
    expect(await ask('3')).toEqual({ code: 0, stdout: '1\tAnn\n', stderr: '' });
    for (const value of ['0', '61', '1.5', ' 3', 'x']) {
      slow();
      expect(await ask(value), value).toEqual({ code: 0, stdout: '', stderr: '' });
      nock.cleanAll();
    }
  });

  it('a refused or failing request gives nothing', async () => {
    nock(BASE)
      .get('/invoices')
      .query(true)
      .reply(401, { errors: [{ title: 'Unauthorized' }] });
    expect(
      await cli().run(['--base-url', BASE, '--api-key', 'k', '__complete', 'ids', 'invoices'], { real: true }),
    ).toEqual({ code: 0, stdout: '', stderr: '' });
    nock(BASE).get('/invoices').query(true).replyWithError({ code: 'ECONNREFUSED' });
    expect(
      await cli().run(['--base-url', BASE, '--api-key', 'k', '__complete', 'ids', 'invoices'], { real: true }),
    ).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

// ---- the scripts, run by the shells ----

/** Stores made through the built CLI: A with Ann, Bob (Baker BV), a plan and a subscription; B with Zoe. */
const dir = tempDir('billing-completion-');
const storeA = join(dir, 'a.db');
const storeB = join(dir, 'b.db');
/** `billing` on PATH, as a person has it: the built CLI. */
const binDir = join(dir, 'bin');
/**
 * A stand-in npx, on a PATH without billing: it runs the built CLI only when asked for billing
 * without installing, as the scripts must ask; anything else fails, as npx does offline.
 */
const npxDir = join(dir, 'npx-bin');
const npxEnv = { PATH: `${npxDir}:${process.env.PATH}` };
/** A folder with one file, cu-file: what npx's file completion offers for `cu`. */
const work = join(dir, 'work');
const scripts: Record<string, string> = {};
// Reading ids may take 15 s here: a loaded test machine can take more than the default 1 s just to start node.
const shellEnv = (extra: Record<string, string> = {}) => ({
  PATH: `${binDir}:${process.env.PATH}`,
  HOME: dir,
  BILLING_CONFIG_DIR: TEST_CONFIG_DIR,
  NO_COLOR: '1',
  BILLING_COMPLETION_SECONDS: '15',
  ...extra,
});

beforeAll(async () => {
  ensureBundle('__complete');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'billing'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(binDir, 'billing'), 0o755);
  mkdirSync(npxDir);
  writeFileSync(
    join(npxDir, 'npx'),
    `#!/bin/sh
no_install=
while [ $# -gt 0 ]; do
  case $1 in
    --no-install) no_install=1; shift ;;
    --offline) shift ;;
    *) break ;;
  esac
done
if [ "$1" = billing ] && [ -n "$no_install" ]; then shift; exec "${process.execPath}" "${BIN}" "$@"; fi
echo "npx stand-in: not installing $1" >&2
exit 1
`,
  );
  chmodSync(join(npxDir, 'npx'), 0o755);
  mkdirSync(work);
  writeFileSync(join(work, 'cu-file'), '');
  const make = async (db: string, argv: string[]) => {
    const result = await runCli(['--db', db, '--no-input', ...argv]);
    if (result.code !== 0) throw new Error(`${argv.join(' ')}: ${result.stderr}`);
  };
  await make(storeA, [
    'customers',
    'create',
    '--first-name',
    'Ann',
    '--last-name',
    'Archer',
    '--email',
    'ann@example.com',
  ]);
  await make(storeA, [
    'customers',
    'create',
    '--first-name',
    'Bob',
    '--last-name',
    'Baker',
    '--email',
    'bob@example.com',
    '--company-name',
    'Baker BV',
  ]);
  await make(storeA, ['plans', 'create', '--name', 'Gold', '--amount', '10']);
  await make(storeA, ['subscriptions', 'create', '--customer-id', '2', '--subscription-plan-id', '1']);
  await make(storeB, [
    'customers',
    'create',
    '--first-name',
    'Zoe',
    '--last-name',
    'Zijl',
    '--email',
    'zoe@example.com',
  ]);
  await make(storeB, ['customers', 'create', '--first-name', 'Yan', '--last-name', 'Yu', '--email', 'yan@example.com']);
  await make(storeB, ['customers', 'create', '--first-name', 'Xia', '--last-name', 'Xu', '--email', 'xia@example.com']);
  for (const shell of SHELLS) {
    const result = await runCli(['completion', shell]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    scripts[shell] = join(dir, `billing.${shell}`);
    writeFileSync(scripts[shell], result.stdout);
  }
}, 120_000);

/**
 * The words typed (the last one is where the cursor is), through the function the bash script
 * registers for the first word (_billing, or _billing_npx), after `before`; COMPREPLY.
 */
function bash(typed: string[], env: Record<string, string> = {}, before = ''): string[] {
  const fn = typed[0] === 'npx' ? '_billing_npx' : '_billing';
  const body = `${before}\nsource "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); ${fn}; printf "%s\\n" "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', body, 'bash', scripts.bash, ...typed], {
    env: shellEnv(env),
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter(Boolean);
}

describe('bash', () => {
  it('is valid bash, registered for billing', () => {
    const result = spawnSync('bash', ['--norc', '-c', 'source "$1" && complete -p billing', 'bash', scripts.bash], {
      encoding: 'utf8',
    });
    expect(result.stdout.trim()).toBe('complete -F _billing billing');
  });

  it('completes command groups and single commands, never the hidden helper', () => {
    const top = bash(['billing', '']);
    expect(top).toEqual(
      expect.arrayContaining(['customers', 'plans', 'subscriptions', 'invoices', 'api', 'demo', 'serve', 'completion']),
    );
    expect(top.some((word) => word.startsWith('__'))).toBe(false);
    expect(bash(['billing', 'sub'])).toEqual(['subscriptions']);
  });

  it('completes verbs, also after global flags and their values, and after `help`', () => {
    expect(bash(['billing', 'customers', ''])).toEqual([...Object.keys(customers.verbs), 'help']);
    expect(bash(['billing', '--db', 'x.db', '-o', 'json', 'customers', 'ar'])).toEqual(['archive']);
    expect(bash(['billing', 'help', 'customers', 'un'])).toEqual(['unarchive']);
  });

  it("completes a verb's flags and the global flags", () => {
    expect(bash(['billing', 'customers', 'list', '--s'])).toEqual(['--search', '--sort']);
    expect(bash(['billing', 'customers', 'list', '--base'])).toEqual(['--base-url']);
    expect(bash(['billing', 'plans', 'create', '--st'])).toEqual(['--start-date', '--status', '--storno-retries']);
  });

  it('completes values of enumerations, in each way a flag takes its value', () => {
    expect(bash(['billing', 'plans', 'create', '--frequency', ''])).toEqual([...FREQUENCIES]);
    expect(bash(['billing', 'subscriptions', 'list', '--status', 'p'])).toEqual(['paused']);
    expect(bash(['billing', 'customers', 'list', '--sort', '-c'])).toEqual(['-created_at']);
    expect(bash(['billing', 'customers', 'list', '-o', 'j'])).toEqual(['json']);
    // bash splits --output=n into three words at the =.
    expect(bash(['billing', 'customers', 'list', '--output', '=', 'n'])).toEqual(['ndjson']);
    // …and keeps it one word when COMP_WORDBREAKS has no =.
    expect(bash(['billing', 'customers', 'list', '--sort=-c'])).toEqual(['--sort=-created_at']);
    expect(bash(['billing', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(bash(['billing', '--db', join(dir, 'a.')])).toContain(storeA);
    // A value already given is no command: the next word is completed as what follows it.
    expect(bash(['billing', 'plans', 'create', '--frequency', 'yearly', '--'])).toContain('--status');
  });

  it('completes ids from the store typed on the line, newest first', () => {
    expect(bash(['billing', '--db', storeA, 'customers', 'get', ''])).toEqual(['2', '1']);
    expect(bash(['billing', 'customers', 'get', '--db', storeB, ''])).toEqual(['3', '2', '1']);
    expect(bash(['billing', '--db', '=', storeA, 'plans', 'get', ''])).toEqual(['1']);
    expect(bash(['billing', `--db=${storeA}`, 'subscriptions', 'cancel', ''])).toEqual(['1']);
    expect(bash(['billing', '--db', `"${storeA}"`, 'subscriptions', 'create', '--customer-id', ''])).toEqual([
      '2',
      '1',
    ]);
    expect(bash(['billing', '--db', storeA, 'subscriptions', 'create', '--subscription-plan-id', ''])).toEqual(['1']);
    expect(bash(['billing', '--db', storeA, 'invoices', 'list', '--subscription-id', ''])).toEqual(['1']);
    // BILLING_DB, as for any command.
    expect(bash(['billing', 'customers', 'update', '3'], { BILLING_DB: storeB })).toEqual(['3']);
  });

  it('offers nothing from a store that is not there, and makes none', () => {
    const missing = join(dir, 'missing.db');
    expect(bash(['billing', '--db', missing, 'customers', 'get', ''])).toEqual([]);
    expect(existsSync(missing)).toBe(false);
  });

  describe('with a stand-in billing', () => {
    const fakeDir = join(dir, 'fake');
    const record = join(dir, 'argv.txt');
    beforeAll(() => {
      mkdirSync(fakeDir, { recursive: true });
      writeFileSync(
        join(fakeDir, 'billing'),
        `#!/bin/sh\nprintf '%s\\n' "$@" > "${record}"\n[ -n "$HANG" ] && sleep 30\nprintf '7\\tSeven\\n'\n`,
      );
      chmodSync(join(fakeDir, 'billing'), 0o755);
    });
    const fake = (typed: string[], env: Record<string, string> = {}) =>
      bash(typed, { PATH: `${fakeDir}:${process.env.PATH}`, ...env });

    it('passes on --db, --base-url, --api-key, --profile and --account as typed, and nothing else', async () => {
      expect(
        fake([
          'billing',
          '--base-url',
          'https://b.test',
          '--json',
          'customers',
          'get',
          '--api-key',
          "'k 1'",
          '--profile=p',
          '--account',
          'acme',
          '--db',
          '~/x.db',
          '',
        ]),
      ).toEqual(['7']);
      const { readFileSync } = await import('node:fs');
      expect(readFileSync(record, 'utf8').trim().split('\n')).toEqual([
        '--base-url',
        'https://b.test',
        '--api-key',
        'k 1',
        '--profile',
        'p',
        '--account',
        'acme',
        '--db',
        `${dir}/x.db`,
        '__complete',
        'ids',
        'customers',
      ]);
    });

    it('stops a helper that hangs: the Tab comes back within seconds', () => {
      const started = performance.now();
      expect(fake(['billing', 'customers', 'get', ''], { HANG: '1', BILLING_COMPLETION_SECONDS: '' })).toEqual([]);
      expect(performance.now() - started).toBeLessThan(6000);
    });

    it('stops it after BILLING_COMPLETION_SECONDS and a second more, when that is set', () => {
      const started = performance.now();
      expect(fake(['billing', 'customers', 'get', ''], { HANG: '1', BILLING_COMPLETION_SECONDS: '3' })).toEqual([]);
      expect(performance.now() - started).toBeGreaterThanOrEqual(3900);
      expect(performance.now() - started).toBeLessThan(9000);
    });
  });
});

describe('bash under npx', () => {
  const before = '_before() { COMPREPLY=(from-before); }; complete -F _before npx';

  it('registers for npx too', () => {
    const result = spawnSync('bash', ['--norc', '-c', 'source "$1" && complete -p npx', 'bash', scripts.bash], {
      encoding: 'utf8',
    });
    expect(result.stdout.trim()).toBe('complete -F _billing_npx npx');
  });

  it("completes `npx billing` as billing: commands, flags and values, after npx's own options", () => {
    expect(bash(['npx', 'billing', 'cu'])).toEqual(['customers']);
    expect(bash(['npx', '-y', 'billing', 'customers', 'list', '--se'])).toEqual(['--search']);
    expect(bash(['npx', '--package', 'billing', 'billing', 'plans', 'create', '--frequency', ''])).toEqual([
      ...FREQUENCIES,
    ]);
    expect(bash(['npx', '--package', '=', 'billing', '--no-install', 'billing', 'sub'])).toEqual(['subscriptions']);
  });

  it('reads ids through `npx --no-install billing`, from the store typed on the line', () => {
    expect(bash(['npx', 'billing', '--db', storeA, 'customers', 'get', ''], npxEnv)).toEqual(['2', '1']);
    expect(bash(['npx', '--yes', 'billing', 'customers', 'get', '--db', storeB, ''], npxEnv)).toEqual(['3', '2', '1']);
  });

  it("leaves any other package to npx's completion from before, or to readline's", () => {
    expect(bash(['npx', 'other', 'cu'])).toEqual([]);
    expect(bash(['npx', '-p', 'billing', 'other', 'cu'])).toEqual([]);
    expect(bash(['npx', 'other', 'cu'], {}, before)).toEqual(['from-before']);
    expect(bash(['npx', 'bil'], {}, before)).toEqual(['from-before']);
    expect(bash(['npx', 'billing', 'cu'], {}, before)).toEqual(['customers']);
    // Sourced twice, it still hands them to the one before, not to itself.
    expect(bash(['npx', 'other', 'cu'], {}, `${before}; source "$1"`)).toEqual(['from-before']);
  });
});

describe('zsh', () => {
  /** The zsh script's own walk (what _billing hands to _describe or compadd): kind, then candidates. */
  function zsh(typed: string[]): string[] {
    const body =
      'compdef() { :; }; source "$1"; shift; __billing_candidates $# "$@"; print -rl -- "$__billing_kind" "${__billing_list[@]}"';
    const result = spawnSync('zsh', ['-f', '-c', body, 'zsh', scripts.zsh, ...typed], {
      env: shellEnv(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    return result.stdout.split('\n').filter(Boolean);
  }

  it('is valid zsh', () => {
    const result = spawnSync('zsh', ['-n', scripts.zsh], { encoding: 'utf8' });
    expect(result).toMatchObject({ status: 0, stderr: '' });
  });

  it('offers commands, flags and values with their descriptions', () => {
    expect(zsh(['billing', 'customers', 'li'])[0]).toBe('commands');
    expect(zsh(['billing', 'customers', 'li'])).toContain('list:list customers, a page at a time');
    expect(zsh(['billing', 'plans', 'create', '--fr'])).toEqual(
      expect.arrayContaining(['flags', expect.stringMatching(/^--frequency:How often the amount is collected/)]),
    );
    expect(zsh(['billing', 'plans', 'create', '--frequency', ''])).toEqual(['values', ...FREQUENCIES]);
    expect(zsh(['billing', 'plans', 'create', '--frequency=m'])).toEqual(['values', ...FREQUENCIES]);
  });

  it('offers ids with what each is, from the store typed on the line', () => {
    expect(zsh(['billing', '--db', storeA, 'customers', 'get', ''])).toEqual([
      'ids',
      '2:Bob Baker (Baker BV)',
      '1:Ann Archer',
    ]);
    expect(zsh(['billing', '--db', storeA, 'subscriptions', 'get', ''])).toEqual([
      'ids',
      '1:Bob Baker (Baker BV) · Gold · unverified',
    ]);
    expect(zsh(['billing', '--db', `'${storeB}'`, 'subscriptions', 'create', '--customer-id', ''])).toEqual([
      'ids',
      '3:Xia Xu',
      '2:Yan Yu',
      '1:Zoe Zijl',
    ]);
  });

  it('completes for real at a terminal (compinit, $fpath, Tab)', async () => {
    const zdot = join(dir, 'zdot');
    const functions = join(zdot, 'functions');
    mkdirSync(functions, { recursive: true });
    const { copyFileSync } = await import('node:fs');
    copyFileSync(scripts.zsh, join(functions, '_billing'));
    writeFileSync(
      join(zdot, '.zshrc'),
      `PS1='%% '\nfpath=(${functions} $fpath)\nautoload -U compinit && compinit -u -D\n`,
    );
    const term = terminal('zsh -i', { width: 100, height: 30, env: { ...shellEnv(), ZDOTDIR: zdot } });
    try {
      await term.waitFor('%');
      term.type(`billing --db ${storeA} customers get `);
      term.send(['Tab']);
      await term.waitFor(/2\s+-- Bob Baker \(Baker BV\)/);
      expect(term.screen().join('\n')).toMatch(/1\s+-- Ann Archer/);
      term.send(['C-u']);
      term.type('billing subscriptions can');
      term.send(['Tab']);
      await term.waitFor(/^% billing subscriptions cancel$/m);
    } finally {
      term.close();
    }
  });

  it('completes `npx billing` for real at a terminal, and leaves other packages to _npx or files', async () => {
    const zdot = join(dir, 'zdot-npx');
    const functions = join(zdot, 'functions');
    mkdirSync(functions, { recursive: true });
    const { copyFileSync } = await import('node:fs');
    copyFileSync(scripts.zsh, join(functions, '_billing'));
    writeFileSync(
      join(zdot, '.zshrc'),
      `PS1='%% '\nfpath=(${functions} $fpath)\nautoload -U compinit && compinit -u -D\n_npx() { compadd from-npx }\n`,
    );
    const term = terminal(`cd ${work} && zsh -i`, {
      width: 100,
      height: 30,
      env: { ...shellEnv(npxEnv), ZDOTDIR: zdot },
    });
    try {
      await term.waitFor('%');
      term.type('npx billing cu');
      term.send(['Tab']);
      await term.waitFor(/^% npx billing customers$/m);
      term.type('list --sea');
      term.send(['Tab']);
      await term.waitFor(/^% npx billing customers list --search$/m);
      term.send(['C-u']);
      term.type(`npx -y billing --db ${storeA} customers get `);
      term.send(['Tab']);
      await term.waitFor(/2\s+-- Bob Baker \(Baker BV\)/);
      term.send(['C-u']);
      term.type('npx other ');
      term.send(['Tab']);
      await term.waitFor(/^% npx other from-npx$/m);
      term.send(['C-u']);
      term.type('unfunction _npx');
      term.send(['Enter']);
      term.type('npx other cu');
      term.send(['Tab']);
      await term.waitFor(/^% npx other cu-file$/m);
    } finally {
      term.close();
    }
  });
});

describe('fish', () => {
  /** fish's own completion of the command line (`complete -C`): candidate<TAB>description lines. */
  function fish(line: string): string[] {
    const result = spawnSync(
      'fish',
      ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', scripts.fish, line],
      { env: shellEnv(), encoding: 'utf8', timeout: 20_000 },
    );
    expect(result.stderr).toBe('');
    return result.stdout.split('\n').filter(Boolean);
  }

  it('is valid fish', () => {
    const result = spawnSync('fish', ['--no-execute', scripts.fish], { encoding: 'utf8' });
    expect(result).toMatchObject({ status: 0, stderr: '' });
  });

  it('completes groups, verbs and flags with descriptions, and values', () => {
    expect(fish('billing cust')).toEqual([expect.stringMatching(/^customers\t/)]);
    expect(fish('billing customers li')).toEqual(['list\tlist customers, a page at a time']);
    expect(fish('billing subscriptions list --st')).toEqual([
      expect.stringMatching(/^--status\tonly subscriptions in this status/),
    ]);
    expect(fish('billing subscriptions list --status ')).toEqual([...SUBSCRIPTION_STATUSES]);
    expect(fish('billing invoices list --sort=-inv')).toEqual(['--sort=-invoice_date']);
  });

  it('completes ids with what each is, from the store typed on the line', () => {
    expect(fish(`billing --db ${storeA} customers get `)).toEqual(['2\tBob Baker (Baker BV)', '1\tAnn Archer']);
    expect(fish(`billing invoices list --db '${storeA}' --customer-id `)).toEqual([
      '2\tBob Baker (Baker BV)',
      '1\tAnn Archer',
    ]);
    expect(fish(`billing --db ${storeB} customers get `)).toEqual(['3\tXia Xu', '2\tYan Yu', '1\tZoe Zijl']);
  });
  it("completes `npx billing` as billing, ids through `npx --no-install billing`; npx's others stay", () => {
    const env = shellEnv(npxEnv);
    const run = (line: string, before = '') => {
      const result = spawnSync(
        'fish',
        ['--no-config', '-c', `${before}\nsource $argv[1]; complete -C $argv[2]`, scripts.fish, line],
        { env, cwd: work, encoding: 'utf8', timeout: 20_000 },
      );
      expect(result.stderr).toBe('');
      return result.stdout.split('\n').filter(Boolean);
    };
    expect(run('npx billing cu')).toEqual([expect.stringMatching(/^customers\t/)]);
    expect(run('npx -y billing customers list --sea')).toEqual([expect.stringMatching(/^--search\t/)]);
    expect(run(`npx billing --db ${storeA} customers get `)).toEqual(['2\tBob Baker (Baker BV)', '1\tAnn Archer']);
    expect(run(`npx -p billing --yes billing customers get --db ${storeB} `)).toEqual([
      '3\tXia Xu',
      '2\tYan Yu',
      '1\tZoe Zijl',
    ]);
    // Another package: files, and what npx had, never billing's commands.
    expect(run('npx other cu')).toEqual(['cu-file']);
    expect(run('npx other ', 'complete -c npx -f -a from-npx')).toEqual(['from-npx']);
    expect(run('npx -p billing other cu')).toEqual(['cu-file']);
  });
});
