// The config file (issue 8, section 5): a file of the wrong shape is exit 2 naming it, for reads
// and writes alike, and quoting none of it; names of Object's own properties are never profiles or
// settings; replacing and removing a profile are confirmed; --dry-run changes nothing; and changes
// made by several processes at the same moment are all kept (a lock file around each change).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { DepsOverrides } from '../../src/lib/command/deps.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { configPath, ConfigLockError, readConfig, updateConfig } from '../../src/lib/config/file.js';
import { CTRL_C, fakePrompter } from '../../src/lib/prompts/fake.js';
import { tempDir } from '../helpers/store.js';
import { cli } from './harness.js';
import { runSource } from './source-cli.js';

const SECRET = 'k_secret_in_the_file_9999';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function freshEnv(): NodeJS.ProcessEnv {
  const dir = tempDir('billing-config-file-');
  return { BILLING_CONFIG_DIR: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), NO_COLOR: '1' };
}

async function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
  overrides: DepsOverrides & { tty?: boolean } = {},
): Promise<Run> {
  const io = memoryIO({ tty: overrides.tty });
  const code = await main(argv, io, env, overrides);
  expect(`${io.stdout}${io.stderr}`, `${argv.join(' ')}: a key was printed`).not.toContain(SECRET);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const onTerminal = (answers: Parameters<typeof fakePrompter>[0]) => {
  const prompter = fakePrompter(answers);
  return { prompter, overrides: { prompter, canPrompt: true, tty: true } };
};

function writeRaw(env: NodeJS.ProcessEnv, text: string): string {
  mkdirSync(join(configPath(env), '..'), { recursive: true });
  writeFileSync(configPath(env), text, { mode: 0o600 });
  return text;
}

const fileText = (env: NodeJS.ProcessEnv): string => readFileSync(configPath(env), 'utf8');

// ---- a file of the wrong shape ----

describe('a config file that cannot be understood', () => {
  const CORRUPT: [string, string, string][] = [
    ['not JSON (cut short)', `{"profiles": {"p": {"api_key": "${SECRET}`, 'is not valid JSON'],
    ['not JSON (a stray word)', `{"defaults": {"api_key": "${SECRET}"}} ${SECRET}`, 'is not valid JSON'],
    ['JSON that is an array', `["${SECRET}"]`, 'is not a JSON object'],
    ['JSON that is a string', `"${SECRET}"`, 'is not a JSON object'],
    ['JSON null', 'null', 'is not a JSON object'],
    ['profiles that are an array', `{"profiles": ["${SECRET}"]}`, 'has profiles that are not an object'],
    [
      'a profile that is a string',
      `{"profiles": {"ok": {"base_url": "https://ok.test"}, "p": "${SECRET}"}}`,
      'has a profile that is not an object (the 2nd in the file)',
    ],
    [
      'a profile whose base_url is a number',
      `{"profiles": {"p": {"base_url": 5, "api_key": "${SECRET}"}}}`,
      'has a profile whose base_url is not a string (the 1st in the file)',
    ],
    [
      'a profile named by a key, whose api_key is a list',
      `{"profiles": {"${SECRET}": {"api_key": ["${SECRET}"]}}}`,
      'has a profile whose api_key is not a string (the 1st in the file)',
    ],
    [
      'a current_profile that is a number',
      `{"current_profile": 3, "defaults": {"api_key": "${SECRET}"}}`,
      'has a current_profile that is not a string',
    ],
    ['defaults that are a string', `{"defaults": "${SECRET}"}`, 'has defaults that are not an object'],
    [
      'a default api_key that is an object',
      `{"defaults": {"api_key": {"v": "${SECRET}"}}}`,
      'has a default api_key that is not a string',
    ],
    [
      'a default timeout that is true',
      '{"defaults": {"timeout": true}}',
      'has a default timeout that is not a string or a number',
    ],
  ];
  const COMMANDS = [
    ['profiles', 'list'],
    ['config', 'list'],
    ['config', 'get', 'timeout'],
    ['api', 'GET', '/customers'],
    ['profiles', 'add', 'q', '--base-url', 'https://q.test'],
    ['profiles', 'add', 'q', '--base-url', 'https://q.test', '--dry-run'],
    ['profiles', 'use', 'p'],
    ['profiles', 'remove', 'p', '--yes'],
    ['config', 'set', 'timeout', '5'],
    ['config', 'set', 'timeout', '5', '--dry-run'],
    ['config', 'unset', 'timeout'],
  ];

  it.each(CORRUPT)(
    '%s: every command, reading or writing, exits 2 naming the file, quoting none of it, changing nothing',
    async (_label, text, problem) => {
      const env = freshEnv();
      writeRaw(env, text);
      for (const argv of COMMANDS) {
        const r = await run(argv, env);
        expect(r, argv.join(' ')).toEqual({
          code: 2,
          stdout: '',
          stderr: `error: ${configPath(env)} ${problem}; fix or remove it\n`,
        });
        expect(fileText(env), `${argv.join(' ')} changed the file`).toBe(text);
      }
      expect(readdirSync(join(configPath(env), '..'))).toEqual(['config.json']); // no lock or temporary file left
    },
  );

  it('an empty file holds nothing to lose: it reads as no settings, and a write fills it', async () => {
    const env = freshEnv();
    writeRaw(env, '');
    expect((await run(['config', 'list'], env)).code).toBe(0);
    expect((await run(['config', 'set', 'timeout', '5'], env)).code).toBe(0);
    expect(JSON.parse(fileText(env))).toEqual({ defaults: { timeout: '5' } });
  });

  it('a file that cannot be read is exit 2 with its path and the reason', async () => {
    const env = freshEnv();
    mkdirSync(configPath(env), { recursive: true }); // a folder where the file should be
    const r = await run(['config', 'list'], env);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `error: cannot read ${configPath(env)}: EISDIR\n` });
  });

  it('fields this version does not know are kept by a write', async () => {
    const env = freshEnv();
    writeRaw(
      env,
      JSON.stringify({ future: { x: 1 }, profiles: { p: { base_url: 'https://p.test', colour: 'blue' } } }),
    );
    expect((await run(['config', 'set', 'timeout', '5'], env)).code).toBe(0);
    expect(JSON.parse(fileText(env))).toEqual({
      future: { x: 1 },
      profiles: { p: { base_url: 'https://p.test', colour: 'blue' } },
      defaults: { timeout: '5' },
    });
  });
});

// ---- Object's own names ----

describe('names of Object.prototype are never profiles or settings', () => {
  const BUILT_IN = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf'];

  it.each(BUILT_IN)(
    '--profile %s, BILLING_PROFILE, profiles use and remove: "no profile named" (exit 2), with or without a config file',
    async (name) => {
      for (const withFile of [false, true]) {
        const env = freshEnv();
        if (withFile) writeRaw(env, JSON.stringify({ profiles: { p: { base_url: 'https://p.test' } } }));
        const missing = `error: no profile named "${name}" (see: billing profiles list)\n`;
        expect(await run(['--profile', name, 'api', 'GET', '/customers'], env)).toEqual({
          code: 2,
          stdout: '',
          stderr: missing,
        });
        expect(await run(['api', 'GET', '/customers'], { ...env, BILLING_PROFILE: name })).toEqual({
          code: 2,
          stdout: '',
          stderr: missing,
        });
        expect(await run(['profiles', 'use', name], env)).toEqual({ code: 2, stdout: '', stderr: missing });
        expect(await run(['profiles', 'remove', name, '--yes'], env)).toEqual({ code: 2, stdout: '', stderr: missing });
      }
    },
  );

  it('a current_profile of such a name (written by hand) is no profile either', async () => {
    const env = freshEnv();
    writeRaw(env, JSON.stringify({ current_profile: 'constructor', profiles: {} }));
    expect(await run(['api', 'GET', '/customers'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: no profile named "constructor" (see: billing profiles list)\n',
    });
  });

  it.each(BUILT_IN)('config get|set|unset %s: unknown setting (exit 2), nothing written', async (name) => {
    const env = freshEnv();
    const unknown = `error: unknown setting "${name}"; settings: base_url, api_key, db, timeout, account\n`;
    expect(await run(['config', 'get', name], env)).toEqual({ code: 2, stdout: '', stderr: unknown });
    expect(await run(['config', 'set', name, 'x'], env)).toEqual({ code: 2, stdout: '', stderr: unknown });
    expect(await run(['config', 'unset', name], env)).toEqual({ code: 2, stdout: '', stderr: unknown });
    expect(existsSync(configPath(env))).toBe(false);
  });

  it('"__proto__" keys in the file change no prototype: defaults and profiles are only what the file holds', async () => {
    const env = freshEnv();
    writeRaw(
      env,
      '{"defaults": {"__proto__": {"base_url": "https://evil.test"}}, "profiles": {"__proto__": {"base_url": "https://evil.test"}}}',
    );
    const config = readConfig(env);
    expect(Object.getPrototypeOf(config.defaults)).toBeNull();
    expect(config.defaults?.base_url).toBeUndefined();
    expect(({} as Record<string, unknown>).base_url).toBeUndefined();
    // So the command runs embedded, on the store of the test's own folder (a missing one: exit 2).
    const r = await run(['api', 'GET', '/customers'], env);
    expect(r.stderr).toMatch(/^error: no store at /);
  });

  it('a profile may still be called "constructor": it is then found, used and removed like any other', async () => {
    const env = freshEnv();
    const c = cli();
    await c.seedCustomers(3);
    expect((await run(['profiles', 'add', 'constructor', '--db', c.dbPath], env)).code).toBe(0);
    const used = await run(['--profile', 'constructor', 'api', 'GET', '/customers'], env);
    expect(used.code, used.stderr).toBe(0);
    expect(JSON.parse(used.stdout).meta.total).toBe(3);
    expect(
      JSON.parse((await run(['profiles', 'list', '--json'], env)).stdout).map((p: { name: string }) => p.name),
    ).toEqual(['constructor']);
    expect((await run(['profiles', 'remove', 'constructor', '--yes'], env)).code).toBe(0);
    expect(JSON.parse(fileText(env)).profiles).toEqual({});
  });
});

// ---- replacing and removing profiles ----

describe('profiles add: the API key of a remote profile', () => {
  const added = (env: NodeJS.ProcessEnv) => JSON.parse(fileText(env)).profiles.prod as Record<string, string>;

  it('is asked unseen on a terminal, an empty or unsendable answer asked again', async () => {
    const env = freshEnv();
    const asking = onTerminal(['', 'clé', SECRET]);
    const result = await run(['profiles', 'add', 'prod', '--base-url', 'https://one.test'], env, asking.overrides);
    expect(result.code, result.stderr).toBe(0);
    expect(asking.prompter.asked.map((q) => [q.kind, q.message, q.refused.length])).toEqual([
      ['password', 'API key for https://one.test:', 2],
    ]);
    expect(added(env)).toEqual({ base_url: 'https://one.test', api_key: SECRET });
  });

  it('is read from standard input with --api-key-stdin (its first line), never from the command line', async () => {
    const env = freshEnv();
    const io = memoryIO({ stdin: `${SECRET}\nignored\n` });
    const code = await main(['profiles', 'add', 'prod', '--base-url', 'https://one.test', '--api-key-stdin'], io, env);
    expect(code, io.stderr).toBe(0);
    expect(`${io.stdout}${io.stderr}`).not.toContain(SECRET);
    expect(added(env)).toEqual({ base_url: 'https://one.test', api_key: SECRET });
    const empty = memoryIO({ stdin: '\n' });
    expect(await main(['profiles', 'add', 'x', '--base-url', 'https://x.test', '--api-key-stdin'], empty, env)).toBe(2);
    expect(empty.stderr).toBe('error: --api-key-stdin: the API key is empty\n');
  });

  it('is required without a terminal unless --no-key says the server needs none; nothing is saved when refused', async () => {
    const env = freshEnv();
    expect(await run(['profiles', 'add', 'prod', '--base-url', 'https://one.test'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: a remote profile needs its API key: give --api-key KEY or --api-key-stdin, or --no-key when https://one.test asks for none\n',
    });
    expect(existsSync(configPath(env))).toBe(false);
    expect((await run(['profiles', 'add', 'prod', '--base-url', 'https://one.test', '--no-key'], env)).code).toBe(0);
    expect(added(env)).toEqual({ base_url: 'https://one.test' });
    for (const [argv, message] of [
      [['--api-key', SECRET, '--no-key'], '--no-key says the profile has no API key'],
      [['--api-key', SECRET, '--api-key-stdin'], 'give the API key one way'],
    ] as const) {
      const refused = await run(['profiles', 'add', 'q', '--base-url', 'https://q.test', ...argv], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    expect((await run(['profiles', 'add', 'e', '--db', '/tmp/e.db', '--no-key'], env)).stderr).toContain(
      '--no-key goes with --base-url',
    );
  });
});

describe('profiles add on an existing name', () => {
  const first = ['profiles', 'add', 'prod', '--base-url', 'https://one.test', '--api-key', SECRET];
  const again = ['profiles', 'add', 'prod', '--base-url', 'https://two.test', '--no-key'];

  it('without a terminal: exit 2 saying to add --force, nothing changed; --force (or --yes) replaces it', async () => {
    const env = freshEnv();
    expect((await run(first, env)).code).toBe(0);
    const before = fileText(env);
    expect(await run(again, env)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: a profile named "prod" exists already: add --force to replace it\n',
    });
    expect(fileText(env)).toBe(before);
    expect(await run([...again, '--force'], env)).toEqual({
      code: 0,
      stdout: '',
      stderr: `replaced profile prod in ${configPath(env)}\n`,
    });
    expect(JSON.parse(fileText(env)).profiles.prod).toEqual({ base_url: 'https://two.test' }); // the old key went with it
    expect((await run([...first, '--yes'], env)).code).toBe(0);
    expect(JSON.parse(fileText(env)).profiles.prod).toEqual({ base_url: 'https://one.test', api_key: SECRET });
  });

  it('on a terminal: asks; yes replaces, no and Ctrl-C change nothing', async () => {
    const env = freshEnv();
    expect((await run(first, env)).code).toBe(0);
    const before = fileText(env);

    const no = onTerminal([false]);
    expect(await run(again, env, no.overrides)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: replace profile prod: not confirmed, nothing changed\n',
    });
    expect(no.prompter.asked.map((q) => [q.kind, q.message, q.default])).toEqual([
      ['confirm', 'Profile prod (https://one.test, with an API key) exists already. Replace it?', false],
    ]);
    expect(fileText(env)).toBe(before);

    const interrupted = onTerminal([CTRL_C]);
    expect((await run(again, env, interrupted.overrides)).code).toBe(130);
    expect(fileText(env)).toBe(before);

    const yes = onTerminal([true]);
    expect((await run(again, env, yes.overrides)).code).toBe(0);
    expect(JSON.parse(fileText(env)).profiles.prod).toEqual({ base_url: 'https://two.test' });

    // A new name is not asked about.
    const none = onTerminal([]);
    expect((await run(['profiles', 'add', 'other', '--db', '/tmp/x.db'], env, none.overrides)).code).toBe(0);
    expect(none.prompter.asked).toEqual([]);
  });

  it('a profile is remote or embedded, and a key goes with a base URL', async () => {
    const env = freshEnv();
    expect(await run(['profiles', 'add', 'x', '--base-url', 'https://x.test', '--db', '/tmp/x.db'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: a profile is remote (--base-url) or embedded (--db), not both: give one of them\n',
    });
    expect(await run(['profiles', 'add', 'x', '--db', '/tmp/x.db', '--api-key', SECRET], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --api-key goes with --base-url: the key of an embedded profile would never be sent\n',
    });
    expect(existsSync(configPath(env))).toBe(false);
  });
});

describe('profiles remove', () => {
  it('asks on a terminal and needs --yes otherwise (exit 2, nothing removed)', async () => {
    const env = freshEnv();
    expect(
      (await run(['profiles', 'add', 'prod', '--base-url', 'https://one.test', '--api-key', SECRET, '--use'], env))
        .code,
    ).toBe(0);
    const before = fileText(env);
    expect(await run(['profiles', 'remove', 'prod'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: remove profile prod cannot be undone: add --yes to confirm (there is no terminal to ask at)\n',
    });
    expect(
      await run(['profiles', 'remove', 'prod', '--no-input'], env, {
        canPrompt: true,
        tty: true,
        prompter: fakePrompter([]),
      }),
    ).toMatchObject({ code: 2 });
    const no = onTerminal([false]);
    expect(await run(['profiles', 'remove', 'prod'], env, no.overrides)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: remove profile prod: not confirmed, nothing changed\n',
    });
    expect(no.prompter.asked[0].message).toBe(
      'Remove profile prod (https://one.test) and its saved API key? This cannot be undone.',
    );
    expect(fileText(env)).toBe(before);

    const yes = onTerminal([true]);
    expect(await run(['profiles', 'remove', 'prod'], env, yes.overrides)).toEqual({
      code: 0,
      stdout: '',
      stderr: 'removed profile prod\n',
    });
    expect(JSON.parse(fileText(env))).toEqual({ profiles: {} }); // and it is no longer current
  });
});

// ---- --dry-run ----

describe('--dry-run prints what would change and changes nothing', () => {
  it('profiles add|use|remove, config set|unset', async () => {
    const env = freshEnv();
    const dry = async (argv: string[]) => {
      const before = existsSync(configPath(env)) ? fileText(env) : undefined;
      const r = await run([...argv, '--dry-run'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(existsSync(configPath(env)) ? fileText(env) : undefined).toBe(before);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    expect(
      await dry(['profiles', 'add', 'prod', '--base-url', 'https://one.test', '--api-key', SECRET, '--use']),
    ).toEqual({
      dry_run: true,
      would: 'add profile prod',
      profile: { name: 'prod', base_url: 'https://one.test', api_key: '(set, hidden)', db: null, current: true },
    });
    expect(existsSync(configPath(env))).toBe(false);
    expect(await dry(['config', 'set', 'api_key', SECRET])).toEqual({
      dry_run: true,
      would: 'set api_key',
      settings: { api_key: '(set, hidden)' },
    });
    expect(await dry(['config', 'set', 'db', 'postgres://u:pw@db.test/billing'])).toEqual({
      dry_run: true,
      would: 'set db',
      settings: { db: 'postgres://u:***@db.test/billing' },
    });
    expect(await dry(['config', 'unset', 'timeout'])).toEqual({ dry_run: true, would: 'nothing: timeout is not set' });

    expect(
      (await run(['profiles', 'add', 'prod', '--base-url', 'https://one.test', '--api-key', SECRET], env)).code,
    ).toBe(0);
    expect((await run(['config', 'set', 'timeout', '5'], env)).code).toBe(0);
    expect(await dry(['profiles', 'add', 'prod', '--base-url', 'https://two.test', '--no-key'])).toMatchObject({
      would: 'replace profile prod',
    });
    expect(await dry(['profiles', 'use', 'prod'])).toEqual({
      dry_run: true,
      would: 'make profile prod the current profile',
      current_profile: 'prod',
    });
    expect(await dry(['profiles', 'remove', 'prod'])).toEqual({
      dry_run: true,
      would: 'remove profile prod',
      profile: { name: 'prod', base_url: 'https://one.test', api_key: '(set, hidden)', db: null, current: false },
    });
    expect(await dry(['config', 'unset', 'timeout'])).toEqual({ dry_run: true, would: 'unset timeout' });
    // The checks of a real run still apply.
    expect((await run(['profiles', 'use', 'ghost', '--dry-run'], env)).code).toBe(2);
    expect((await run(['config', 'set', 'timeout', '-1', '--dry-run'], env)).code).toBe(2);
  });
});

// ---- the lock ----

describe('changes from several processes at once are all kept', () => {
  it('ten processes adding a profile each, started together: ten profiles, no lock left, mode 0600', async () => {
    const env = freshEnv();
    const at = Date.now() + 2_500; // every child has loaded by then, and they all start at once
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        runSource(['profiles', 'add', `p${i}`, '--base-url', `https://p${i}.test`, '--api-key', `k_${i}_secret`], {
          env: { ...env, BILLING_TEST_START_AT: String(at) },
        }),
      ),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const config = JSON.parse(fileText(env));
    expect(Object.keys(config.profiles).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
    for (let i = 0; i < 10; i++)
      expect(config.profiles[`p${i}`]).toEqual({ base_url: `https://p${i}.test`, api_key: `k_${i}_secret` });
    expect(readdirSync(join(configPath(env), '..'))).toEqual(['config.json']);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('ten at once in one process too', async () => {
    const env = freshEnv();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => run(['profiles', 'add', `q${i}`, '--db', `/tmp/q${i}.db`], env)),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(JSON.parse(fileText(env)).profiles)).toHaveLength(10);
  });

  it('a lock held by a live process is waited for: the change lands after it is released', async () => {
    const env = freshEnv();
    writeRaw(env, '{}');
    const lock = `${configPath(env)}.lock`;
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'held-by-the-test' }));
    const child = runSource(['profiles', 'add', 'late', '--db', '/tmp/late.db'], { env });
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the child has started and is waiting
    expect(fileText(env)).toBe('{}');
    expect(existsSync(lock)).toBe(true);
    rmSync(lock);
    const r = await child;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(fileText(env)).profiles).toEqual({ late: { db: '/tmp/late.db' } });
  }, 30_000);

  it('a lock left by a process that is gone, or left empty for long, is taken over at once', async () => {
    const env = freshEnv();
    writeRaw(env, '{}');
    const lock = `${configPath(env)}.lock`;
    const gone = spawn(process.execPath, ['-e', '0']);
    const pid = gone.pid!;
    await new Promise((resolve) => gone.once('exit', resolve));
    writeFileSync(lock, JSON.stringify({ pid, host: hostname(), token: 'left-behind' }));
    let started = Date.now();
    expect((await run(['config', 'set', 'timeout', '5'], env)).code).toBe(0);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(existsSync(lock)).toBe(false);

    writeFileSync(lock, ''); // a process died between making the lock and writing into it
    const old = new Date(Date.now() - 10_000);
    utimesSync(lock, old, old);
    started = Date.now();
    expect((await run(['config', 'set', 'timeout', '6'], env)).code).toBe(0);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(JSON.parse(fileText(env)).defaults.timeout).toBe('6');
  });

  it('a lock held for longer than a change waits is ConfigLockError (exit 1), naming the lock file; nothing written', async () => {
    const env = freshEnv();
    writeRaw(env, '{}');
    const lock = `${configPath(env)}.lock`;
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'held' }));
    const change = updateConfig(env, (config) => void (config.current_profile = 'x'), { lockTimeoutMs: 300 });
    await expect(change).rejects.toThrow(ConfigLockError);
    await expect(change).rejects.toThrow(
      `the config file ${configPath(env)} is locked by process ${process.pid} (${lock}); try again, or remove the lock file if no billing command is running`,
    );
    expect(fileText(env)).toBe('{}');
    expect(existsSync(lock)).toBe(true); // someone else's lock is never removed
  });
});
