// Where remote mode connects and with which key: flag > environment > profile > config default;
// profiles and config verbs; the config file's mode; API keys never printed; embedded-only
// commands refused in remote mode.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configPath } from '../../src/lib/config/file.js';
import { readGlobals } from '../../src/lib/cli/globals.js';
import { MAX_TIMEOUT_MS, resolveSettings } from '../../src/lib/config/settings.js';
import { BASE, fixture, JSONAPI, KEY, remoteEnv, run, type RunResult } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.disableNetConnect();
});
afterAll(() => nock.enableNetConnect());

const KEY_FLAG = 'k_flag_secret_111';
const KEY_ENV = 'k_env_secret_222';
const KEY_PROFILE = 'k_profile_secret_333';
const KEY_DEFAULT = 'k_default_secret_444';
const KEY_Q = 'k_q_secret_555';
const SECRETS = [KEY, KEY_FLAG, KEY_ENV, KEY_PROFILE, KEY_DEFAULT, KEY_Q];

const CUSTOMER = fixture('customer-get-customer.json').response.body as object;

/** Runs the CLI and checks, for every command of this suite, that no API key reaches the output. */
async function cli(argv: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const r = await run(argv, env);
  for (const secret of SECRETS) {
    expect(r.stdout, `${argv.join(' ')}: key on stdout`).not.toContain(secret);
    expect(r.stderr, `${argv.join(' ')}: key on stderr`).not.toContain(secret);
  }
  return r;
}

/** Runs argv and asserts the one request went to `origin` with `key`. */
async function expectHit(origin: string, key: string, argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const scope = nock(origin, { reqheaders: { 'x-authorization': key, accept: JSONAPI } })
    .get('/customers/1')
    .reply(200, CUSTOMER, { 'content-type': JSONAPI });
  const r = await cli(argv, env);
  expect(r.stderr, `${argv.join(' ')} -> ${origin}`).toBe('');
  expect(r.code).toBe(0);
  scope.done();
}

/**
 * No base URL, key or store in the environment: only what a test sets (BILLING_DB would outrank a
 * profile's base URL). The default store would be in the test's own folder, never the user's.
 */
const bareEnv = () => {
  const env = remoteEnv({ BILLING_BASE_URL: undefined, BILLING_API_KEY: undefined });
  env.XDG_DATA_HOME = join(env.BILLING_DB!, '..', 'data');
  delete env.BILLING_DB;
  return env;
};

async function ok(argv: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const r = await cli(argv, env);
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

const GET = ['customers', 'get', '1'];

describe('precedence: flag > environment > profile > config default', () => {
  it('for the base URL and the API key', async () => {
    const env = bareEnv();
    await ok(['config', 'set', 'base_url', 'https://default.test'], env);
    await ok(['config', 'set', 'api_key', KEY_DEFAULT], env);
    await expectHit('https://default.test', KEY_DEFAULT, GET, env);

    await ok(['profiles', 'add', 'p', '--base-url', 'https://profile.test', '--api-key', KEY_PROFILE, '--use'], env);
    await expectHit('https://profile.test', KEY_PROFILE, GET, env);

    const withEnv = { ...env, BILLING_BASE_URL: 'https://env.test', BILLING_API_KEY: KEY_ENV };
    await expectHit('https://env.test', KEY_ENV, GET, withEnv);

    await expectHit(
      'https://flag.test',
      KEY_FLAG,
      [...GET, '--base-url', 'https://flag.test', '--api-key', KEY_FLAG],
      withEnv,
    );
    // Global options before the subcommand too.
    await expectHit(
      'https://flag.test',
      KEY_FLAG,
      ['--base-url', 'https://flag.test', '--api-key', KEY_FLAG, ...GET],
      withEnv,
    );

    // Each setting on its own: a flag's base URL with the environment's key, and so on.
    await expectHit('https://flag.test', KEY_ENV, [...GET, '--base-url', 'https://flag.test'], withEnv);
    await expectHit('https://profile.test', KEY_ENV, GET, { ...env, BILLING_API_KEY: KEY_ENV });
    // But a profile's key goes only to the profile's base URL (test/cli/keys.test.ts has the rest).
    const elsewhere = await cli(GET, { ...env, BILLING_BASE_URL: 'https://env.test' });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toBe(
      'error: the API key of profile p is only sent to https://profile.test; give --api-key or BILLING_API_KEY for https://env.test (from BILLING_BASE_URL)\n',
    );

    // Without the profile, the config defaults again.
    await ok(['profiles', 'remove', 'p', '--yes'], env);
    await expectHit('https://default.test', KEY_DEFAULT, GET, env);
  });

  it('for the profile: --profile > BILLING_PROFILE > the current profile', async () => {
    const env = bareEnv();
    await ok(['profiles', 'add', 'p', '--base-url', 'https://profile.test', '--api-key', KEY_PROFILE, '--use'], env);
    await ok(['profiles', 'add', 'q', '--base-url', 'https://q.test', '--api-key', KEY_Q], env);
    await expectHit('https://profile.test', KEY_PROFILE, GET, env);
    await expectHit('https://q.test', KEY_Q, GET, { ...env, BILLING_PROFILE: 'q' });
    await expectHit('https://profile.test', KEY_PROFILE, [...GET, '--profile', 'p'], { ...env, BILLING_PROFILE: 'q' });
    await expectHit('https://q.test', KEY_Q, ['--profile', 'q', ...GET], env);
  });

  describe('for the timeout', () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = createServer(() => {}); // accepts, never answers
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('--timeout > BILLING_TIMEOUT > config timeout', async () => {
      nock.enableNetConnect('127.0.0.1');
      const env = remoteEnv({ BILLING_BASE_URL: url });
      await ok(['config', 'set', 'timeout', '0.4'], env);
      const timedOut = async (argv: string[], e: NodeJS.ProcessEnv, seconds: string) => {
        const r = await cli(argv, e);
        expect(r.code).toBe(3);
        expect(r.stderr).toBe(`error: no answer from ${url} within ${seconds} s (--timeout)\n`);
      };
      await timedOut(GET, env, '0.4');
      await timedOut(GET, { ...env, BILLING_TIMEOUT: '0.3' }, '0.3');
      await timedOut([...GET, '--timeout', '0.2'], { ...env, BILLING_TIMEOUT: '0.3' }, '0.2');
    });
  });

  it('a timeout that is not a positive number of seconds is refused, naming where it is set; huge ones are capped', () => {
    // Remote: requests time out there; in process nothing does, and a bad value stops nothing.
    const settings = (flags: Record<string, unknown>, given: NodeJS.ProcessEnv, timeout?: unknown) => {
      const env = { BILLING_BASE_URL: 'http://127.0.0.1:9', ...given };
      return resolveSettings(readGlobals(flags, env), env, { defaults: { timeout: timeout as string } });
    };
    expect(settings({}, {}).timeoutMs).toBe(30_000);
    const embedded = { BILLING_TIMEOUT: 'abc' };
    expect(resolveSettings(readGlobals({}, embedded), embedded, {}).mode).toBe('embedded');
    // As --timeout and BILLING_BUSY_MS are: left out, it made every request wait the default, blamed on --timeout.
    expect(() => settings({}, { BILLING_TIMEOUT: '-5' }, '7')).toThrow(
      'BILLING_TIMEOUT must be a number of seconds above 0, not "-5"',
    );
    expect(() => settings({}, { BILLING_TIMEOUT: 'abc' })).toThrow('BILLING_TIMEOUT must be a number of seconds');
    expect(() => settings({}, {}, 'Infinity')).toThrow(
      'the config default timeout (billing config set timeout) must be a number of seconds above 0, not "Infinity"',
    );
    // The flag comes first: a bad value behind it is not read.
    expect(settings({ timeout: '2' }, { BILLING_TIMEOUT: 'abc' }).timeoutMs).toBe(2000);
    expect(settings({}, { BILLING_TIMEOUT: '' }, 12).timeoutMs).toBe(12_000); // a number in a hand-edited file
    expect(settings({}, { BILLING_TIMEOUT: '1e9' }).timeoutMs).toBe(MAX_TIMEOUT_MS);
    expect(settings({ timeout: '1e12' }, {}).timeoutMs).toBe(MAX_TIMEOUT_MS);
  });
});

describe('profiles', () => {
  it('add, use with --profile, list, use, remove', async () => {
    const env = bareEnv();
    const empty = await ok(['profiles', 'list'], env);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toMatch(/^no profiles/);

    const added = await ok(
      ['profiles', 'add', 'prod', '--base-url', 'https://prod.test', '--api-key', KEY_PROFILE],
      env,
    );
    expect(added.stderr).toBe(`saved profile prod in ${configPath(env)}\n`);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);

    await expectHit('https://prod.test', KEY_PROFILE, ['--profile', 'prod', ...GET], env);

    const listed = await ok(['profiles', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: 'prod', base_url: 'https://prod.test', api_key: '(set, hidden)', db: null, current: false },
    ]);

    const used = await ok(['profiles', 'use', 'prod'], env);
    expect(used.stderr).toBe('using profile prod\n');
    expect(JSON.parse((await ok(['profiles', 'list', '--json'], env)).stdout)[0].current).toBe(true);
    const table = await ok(['profiles', 'list'], env);
    expect(table.stdout).toMatch(/^prod\thttps:\/\/prod\.test\t\(set, hidden\)\t\tyes$/m);
    await expectHit('https://prod.test', KEY_PROFILE, GET, env); // the current profile, unnamed

    const removed = await ok(['profiles', 'remove', 'prod', '--yes'], env);
    expect(removed.stderr).toBe('removed profile prod\n');
    expect(JSON.parse((await ok(['profiles', 'list', '--json'], env)).stdout)).toEqual([]);
    const file = JSON.parse(readFileSync(configPath(env), 'utf8'));
    expect(file.current_profile).toBeUndefined();
    expect(JSON.stringify(file)).not.toContain(KEY_PROFILE); // its key went with it

    const gone = await cli(['--profile', 'prod', ...GET], env);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toBe('error: no profile named "prod" (see: billing profiles list)\n');
  });

  it('the key is kept in the config file only, mode 0600', async () => {
    const env = bareEnv();
    await ok(['profiles', 'add', 'prod', '--base-url', 'https://prod.test', '--api-key', KEY_PROFILE, '--use'], env);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configPath(env), 'utf8')).profiles.prod.api_key).toBe(KEY_PROFILE);
  });

  it.each([
    [
      'an unknown --profile',
      ['--profile', 'ghost', ...GET],
      {},
      'error: no profile named "ghost" (see: billing profiles list)\n',
    ],
    [
      'an unknown BILLING_PROFILE',
      GET,
      { BILLING_PROFILE: 'ghost' },
      'error: no profile named "ghost" (see: billing profiles list)\n',
    ],
    [
      'use of an unknown profile',
      ['profiles', 'use', 'ghost'],
      {},
      'error: no profile named "ghost" (see: billing profiles list)\n',
    ],
    [
      'remove of an unknown profile',
      ['profiles', 'remove', 'ghost'],
      {},
      'error: no profile named "ghost" (see: billing profiles list)\n',
    ],
    [
      'add without a base URL or store',
      ['profiles', 'add', 'x'],
      {},
      'error: give --base-url URL (remote) or --db PATH|URL (embedded)\n',
    ],
    [
      'add with a base URL that is not http(s)',
      ['profiles', 'add', 'x', '--base-url', 'ftp://x.test'],
      {},
      'error: --base-url must be an absolute http(s) URL\n',
    ],
    [
      'add with a bad name',
      ['profiles', 'add', 'no good', '--base-url', 'https://x.test'],
      {},
      /^error: profile names are 1 to 63/,
    ],
  ] as const)('%s exits 2', async (_label, argv, extra, message) => {
    const env = { ...bareEnv(), ...extra };
    const r = await cli([...argv], env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    if (typeof message === 'string') expect(r.stderr).toBe(message);
    else expect(r.stderr).toMatch(message);
    expect(existsSync(configPath(env))).toBe(false); // nothing written
  });
});

describe('config', () => {
  it('set, get, list, unset', async () => {
    const env = bareEnv();
    const none = await ok(['config', 'list'], env);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(`no settings in ${configPath(env)}\n`);

    expect((await ok(['config', 'set', 'timeout', '10'], env)).stderr).toBe(`set timeout in ${configPath(env)}\n`);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect((await ok(['config', 'get', 'timeout'], env)).stdout).toBe('10\n');
    expect(JSON.parse((await ok(['config', 'get', 'timeout', '--json'], env)).stdout)).toEqual({ timeout: '10' });

    await ok(['config', 'set', 'base_url', 'https://x.test'], env);
    await ok(['config', 'set', 'api_key', KEY], env);
    expect((await ok(['config', 'get', 'base_url'], env)).stdout).toBe('https://x.test\n');
    expect((await ok(['config', 'get', 'api_key'], env)).stdout).toBe('(set, hidden)\n');
    expect(JSON.parse((await ok(['config', 'get', 'api_key', '--json'], env)).stdout)).toEqual({
      api_key: '(set, hidden)',
    });
    expect((await ok(['config', 'list'], env)).stdout).toBe(
      'base_url=https://x.test\napi_key=(set, hidden)\ntimeout=10\n',
    );
    expect(JSON.parse((await ok(['config', 'list', '--json'], env)).stdout)).toEqual({
      base_url: 'https://x.test',
      api_key: '(set, hidden)',
      timeout: '10',
    });

    expect((await ok(['config', 'unset', 'timeout'], env)).stderr).toBe('unset timeout\n');
    const unset = await ok(['config', 'get', 'timeout'], env);
    expect(unset.stdout).toBe('');
    expect(unset.stderr).toBe('timeout is not set\n');
    expect(JSON.parse((await ok(['config', 'get', 'timeout', '--json'], env)).stdout)).toEqual({ timeout: null });
    expect(JSON.parse(readFileSync(configPath(env), 'utf8')).defaults).toEqual({
      base_url: 'https://x.test',
      api_key: KEY,
    });
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
  });

  it.each([
    [['config', 'set', 'timeout', '0'], 'error: timeout must be a number of seconds above 0\n'],
    [['config', 'set', 'timeout', 'abc'], 'error: timeout must be a number of seconds above 0\n'],
    [['config', 'set', 'timeout', 'Infinity'], 'error: timeout must be a number of seconds above 0\n'],
    [['config', 'set', 'base_url', 'ftp://x.test'], 'error: base_url must be an absolute http(s) URL\n'],
    [['config', 'set', 'base_url', 'x.test'], 'error: base_url must be an absolute http(s) URL\n'],
    [
      ['config', 'set', 'colour', 'red'],
      'error: unknown setting "colour"; settings: base_url, api_key, db, timeout, account\n',
    ],
    [
      ['config', 'get', 'colour'],
      'error: unknown setting "colour"; settings: base_url, api_key, db, timeout, account\n',
    ],
    [
      ['config', 'unset', 'colour'],
      'error: unknown setting "colour"; settings: base_url, api_key, db, timeout, account\n',
    ],
  ])('%j exits 2 and changes nothing', async (argv, message) => {
    const env = bareEnv();
    await ok(['config', 'set', 'timeout', '10'], env);
    const before = readFileSync(configPath(env), 'utf8');
    const r = await cli(argv, env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(message);
    expect(readFileSync(configPath(env), 'utf8')).toBe(before);
  });

  it('a config file made by hand with a looser mode is written back as 0600', async () => {
    const env = bareEnv();
    mkdirSync(join(configPath(env), '..'), { recursive: true });
    writeFileSync(configPath(env), JSON.stringify({ defaults: { timeout: '5' } }), { mode: 0o644 });
    chmodSync(configPath(env), 0o644);
    await ok(['config', 'set', 'api_key', KEY], env);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configPath(env), 'utf8')).defaults).toEqual({ timeout: '5', api_key: KEY });
  });

  it('a config file that is not JSON exits 2 and names the file', async () => {
    const env = bareEnv();
    mkdirSync(join(configPath(env), '..'), { recursive: true });
    writeFileSync(configPath(env), '{ not json', { mode: 0o600 });
    const r = await cli(['config', 'list'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: ${configPath(env)} is not valid JSON; fix or remove it\n`);
  });
});

describe('API keys are never printed', () => {
  it('--verbose logs the request and response, without the key', async () => {
    const scope = nock(BASE, { reqheaders: { 'x-authorization': KEY } })
      .get('/customers/1')
      .reply(200, CUSTOMER, { 'content-type': JSONAPI });
    const r = await cli([...GET, '--verbose'], remoteEnv());
    expect(r.code).toBe(0);
    scope.done();
    expect(r.stderr).toMatch(/^> GET \/customers\/1\n< 200 \(\d+ ms\)\n< \{"links"/);
    expect(r.stdout).toMatch(/^id\t1$/m);
  });

  it('--verbose with the key from a flag, from a profile, on a write and on a 401', async () => {
    const env = bareEnv();
    await ok(['profiles', 'add', 'p', '--base-url', BASE, '--api-key', KEY_PROFILE, '--verbose'], env);
    const scope = nock(BASE)
      .get('/customers/1')
      .reply(200, CUSTOMER, { 'content-type': JSONAPI })
      .get('/customers/1')
      .reply(200, CUSTOMER, { 'content-type': JSONAPI })
      .post('/customers')
      .reply(201, CUSTOMER, { 'content-type': JSONAPI })
      .get('/customers/1')
      .reply(401, { errors: [{ status: '401', title: 'Unauthorized' }] }, { 'content-type': JSONAPI });
    const runs = [
      await cli(['--verbose', '--base-url', BASE, '--api-key', KEY_FLAG, ...GET], env),
      await cli(['--verbose', '--profile', 'p', ...GET, '--json'], env),
      await cli(
        ['--verbose', '--profile', 'p', 'api', 'POST', '/customers', '--data', '{"data":{"type":"customer"}}'],
        env,
      ),
      await cli(['--verbose', '--profile', 'p', ...GET], env),
    ];
    scope.done();
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 4]);
    for (const r of runs) expect(r.stderr).toMatch(/^> (GET|POST) \/customers/);
    expect(runs[2].stderr).toContain('> {"data":{"type":"customer"}}');
  });

  it('nor by --dry-run', async () => {
    const r = await cli(['api', 'POST', '/customers', '--data', '{"data":{}}', '--dry-run'], remoteEnv());
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ method: 'POST', path: '/customers', body: { data: {} } });
  });
});

describe('embedded-only commands in remote mode', () => {
  it.each([
    [['plans', 'create', '--name', 'Gold', '--amount', '12.50'], 'plans create'],
    [['accounts', 'list'], 'accounts list'],
    [['accounts', 'create', 'acme'], 'accounts create'],
    [['demo'], 'demo'],
  ])('%j exits 2 with a clear message, sending nothing', async (argv, name) => {
    // No interceptors: any request at all would be a "no match" (and refused by disableNetConnect).
    let requests = 0;
    const count = () => requests++;
    nock.emitter.on('no match', count);
    const env = remoteEnv();
    const r = await cli(argv, env).finally(() => nock.emitter.removeListener('no match', count));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: ${name} works only on the embedded store; it cannot run against ${BASE} (drop --base-url / BILLING_BASE_URL)\n`,
    );
    expect(requests).toBe(0);
    expect(existsSync(env.BILLING_DB!)).toBe(false); // no store opened either
  });
});
