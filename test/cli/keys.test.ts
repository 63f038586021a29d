// Where a command goes and which key it sends (issue 8, section 4): flag > environment > profile >
// config default for the store, the base URL and the key; the mode follows the higher-ranked of
// store and base URL; a saved key goes only to the base URL saved with it; a key no HTTP header
// can carry is refused unsent and unprinted; --account (and BILLING_ACCOUNT) in remote mode is a
// usage error. Requests go to a real listener on 127.0.0.1 that records every header it gets.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { readGlobals } from '../../src/lib/cli/globals.js';
import { configPath, type ConfigFile } from '../../src/lib/config/file.js';
import { defaultDbPath } from '../../src/lib/config/paths.js';
import { resolveSettings } from '../../src/lib/config/settings.js';
import { tempDbPath, tempDir } from '../helpers/store.js';
import { cli } from './harness.js';

const JSONAPI = 'application/vnd.api+json';
const K_PROD = 'k_prod_secret_1111';
const K_CFG = 'k_config_secret_2222';
const K_LOCAL = 'k_local_secret_3333';
const K_FLAG = 'k_flag_secret_4444';
const K_ENV = 'k_env_secret_5555';
const SAVED = [K_PROD, K_CFG, K_LOCAL];

// ---- a listener that records every request ----

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listener(): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    req.resume();
    res.writeHead(200, { 'content-type': JSONAPI });
    res.end(JSON.stringify({ links: { self: `${req.url}` }, data: [], meta: { total: 0 } }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Every header value of every request, as one text: no saved key may be in it unless it went home. */
const headerText = (seen: Seen[]): string => seen.map((s) => JSON.stringify(s.headers)).join('\n');

// ---- running the CLI in process ----

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A config folder and a data folder of its own (the default store is never the user's). */
function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = tempDir('billing-keys-');
  return { BILLING_CONFIG_DIR: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), NO_COLOR: '1', ...extra };
}

async function run(argv: string[], env: NodeJS.ProcessEnv, secrets: string[] = []): Promise<Run> {
  const io = memoryIO();
  const code = await main(argv, io, env);
  for (const secret of [...SAVED, K_FLAG, K_ENV, ...secrets]) {
    expect(io.stdout, `${argv.join(' ')}: a key on stdout`).not.toContain(secret);
    expect(io.stderr, `${argv.join(' ')}: a key on stderr`).not.toContain(secret);
  }
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** Writes the config file as a person might, bypassing `profiles add` (which refuses some of these). */
function writeConfig(env: NodeJS.ProcessEnv, config: ConfigFile): void {
  mkdirSync(join(configPath(env), '..'), { recursive: true });
  writeFileSync(configPath(env), JSON.stringify(config), { mode: 0o600 });
}

const LIST = ['api', 'GET', '/customers'];

// ---- precedence ----

describe('the mode follows the higher-ranked of store and base URL', () => {
  const P = { base_url: 'https://profile.test' };
  const PDB = { db: '/profile/store.db' };
  const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, config: ConfigFile) =>
    resolveSettings(readGlobals(flags, env), env, config);

  it.each([
    [
      '--db beats the current profile’s base URL',
      { db: '/flag.db' },
      {},
      { current_profile: 'p', profiles: { p: P } },
      'embedded',
      '/flag.db',
      'flag',
    ],
    [
      '--db beats BILLING_BASE_URL',
      { db: '/flag.db' },
      { BILLING_BASE_URL: 'https://env.test' },
      {},
      'embedded',
      '/flag.db',
      'flag',
    ],
    [
      'BILLING_DB beats the current profile’s base URL',
      {},
      { BILLING_DB: '/env.db' },
      { current_profile: 'p', profiles: { p: P } },
      'embedded',
      '/env.db',
      'env',
    ],
    [
      'BILLING_DB beats the config base_url',
      {},
      { BILLING_DB: '/env.db' },
      { defaults: { base_url: 'https://config.test' } },
      'embedded',
      '/env.db',
      'env',
    ],
    [
      'BILLING_BASE_URL and BILLING_DB: same rank, the base URL',
      {},
      { BILLING_DB: '/env.db', BILLING_BASE_URL: 'https://env.test' },
      {},
      'remote',
      'https://env.test',
      'env',
    ],
    [
      '--base-url beats BILLING_DB',
      { baseUrl: 'https://flag.test' },
      { BILLING_DB: '/env.db' },
      {},
      'remote',
      'https://flag.test',
      'flag',
    ],
    [
      'BILLING_BASE_URL beats the profile’s store',
      {},
      { BILLING_BASE_URL: 'https://env.test' },
      { current_profile: 'p', profiles: { p: PDB } },
      'remote',
      'https://env.test',
      'env',
    ],
    [
      '--profile names it: its store beats the config base_url',
      { profile: 'p' },
      {},
      { profiles: { p: PDB }, defaults: { base_url: 'https://config.test' } },
      'embedded',
      '/profile/store.db',
      'profile',
    ],
    [
      'a profile’s base URL beats the config db',
      {},
      {},
      { current_profile: 'p', profiles: { p: P }, defaults: { db: '/config.db' } },
      'remote',
      'https://profile.test',
      'profile',
    ],
    [
      'config base_url and config db: same rank, the base URL',
      {},
      {},
      { defaults: { db: '/config.db', base_url: 'https://config.test' } },
      'remote',
      'https://config.test',
      'config',
    ],
    [
      'config base_url beats the built-in store',
      {},
      {},
      { defaults: { base_url: 'https://config.test' } },
      'remote',
      'https://config.test',
      'config',
    ],
    ['nothing set: the built-in store', {}, {}, {}, 'embedded', 'DEFAULT', 'default'],
  ] as const)('%s', (_label, flags, env, config, mode, where, source) => {
    const settings = resolve(flags, { ...env }, structuredClone(config));
    expect(settings.mode).toBe(mode);
    if (mode === 'embedded') {
      expect(settings.dbPath).toBe(where === 'DEFAULT' ? defaultDbPath({ ...env }) : where);
      expect(settings.dbSource).toBe(source);
    } else {
      expect(settings.baseUrl).toBe(where);
      expect(settings.baseUrlSource).toBe(source);
    }
  });

  it('--db with --base-url contradict each other: exit 2, nothing opened or sent', async () => {
    const { url, seen } = await listener();
    const db = tempDbPath();
    const r = await run(['--db', db, '--base-url', url, ...LIST], freshEnv());
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --db (an embedded store) and --base-url (a server) contradict each other: give one of them\n',
    });
    expect(seen).toEqual([]);
  });

  it('an explicit --db (or BILLING_DB) runs on that store even when the current profile is remote', async () => {
    const { url, seen } = await listener();
    const env = freshEnv();
    expect((await run(['profiles', 'add', 'prod', '--base-url', url, '--api-key', K_PROD, '--use'], env)).code).toBe(0);
    const c = cli();
    await c.seedCustomers(2);
    const viaFlag = await run(['--db', c.dbPath, ...LIST], env);
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expect(JSON.parse(viaFlag.stdout).meta.total).toBe(2);
    const viaEnv = await run(LIST, { ...env, BILLING_DB: c.dbPath });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(JSON.parse(viaEnv.stdout).meta.total).toBe(2);
    expect(seen).toEqual([]); // the profile's server was never asked
    // Without them, the profile again.
    expect((await run(LIST, env)).code).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0].headers['x-authorization']).toBe(K_PROD);
  });
});

// ---- a saved key goes only to its own base URL ----

describe('a profile’s API key is sent only to that profile’s base URL', () => {
  it('a base URL from a flag or the environment needs a key from a flag or the environment: exit 2, nothing sent', async () => {
    const { url, seen } = await listener();
    const env = freshEnv();
    expect(
      (await run(['profiles', 'add', 'prod', '--base-url', 'https://prod.invalid', '--api-key', K_PROD, '--use'], env))
        .code,
    ).toBe(0);

    const viaEnv = await run(LIST, { ...env, BILLING_BASE_URL: url });
    expect(viaEnv).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the API key of profile prod is only sent to https://prod.invalid; give --api-key or BILLING_API_KEY for ${url} (from BILLING_BASE_URL)\n`,
    });
    const viaFlag = await run(['--base-url', url, '--verbose', ...LIST], env);
    expect(viaFlag.code).toBe(2);
    expect(viaFlag.stderr).toBe(
      `error: the API key of profile prod is only sent to https://prod.invalid; give --api-key or BILLING_API_KEY for ${url} (from --base-url)\n`,
    );
    // Named explicitly, the same: it is still the profile's key.
    expect((await run(['--profile', 'prod', '--base-url', url, ...LIST], env)).code).toBe(2);
    expect(seen).toEqual([]);

    // With a key of the run's own, it goes, with that key.
    expect((await run(['--base-url', url, '--api-key', K_FLAG, ...LIST], env)).code).toBe(0);
    expect((await run(LIST, { ...env, BILLING_BASE_URL: url, BILLING_API_KEY: K_ENV })).code).toBe(0);
    expect(seen.map((s) => s.headers['x-authorization'])).toEqual([K_FLAG, K_ENV]);
    expect(headerText(seen)).not.toContain(K_PROD);
  });

  it('to its own base URL it goes (the same URL given again, with or without a final slash, too)', async () => {
    const { url, seen } = await listener();
    const env = freshEnv();
    expect((await run(['profiles', 'add', 'local', '--base-url', url, '--api-key', K_LOCAL, '--use'], env)).code).toBe(
      0,
    );
    expect((await run(LIST, env)).code).toBe(0);
    expect((await run(['--base-url', `${url}/`, ...LIST], env)).code).toBe(0);
    expect(seen.map((s) => s.headers['x-authorization'])).toEqual([K_LOCAL, K_LOCAL]);
  });

  it('the config default key likewise goes only to the config base_url; a key saved without a base URL goes nowhere', async () => {
    const { url, seen } = await listener();
    const env = freshEnv();
    expect((await run(['config', 'set', 'base_url', 'https://config.invalid'], env)).code).toBe(0);
    expect((await run(['config', 'set', 'api_key', K_CFG], env)).code).toBe(0);
    const elsewhere = await run(['--base-url', url, ...LIST], env);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toBe(
      `error: the API key of the config defaults (billing config set api_key) is only sent to https://config.invalid; give --api-key or BILLING_API_KEY for ${url} (from --base-url)\n`,
    );

    // A profile (written by hand) with a key and no base URL, under the config's base URL.
    const env2 = freshEnv();
    writeConfig(env2, { current_profile: 'k', profiles: { k: { api_key: K_PROD } }, defaults: { base_url: url } });
    const keyOnly = await run(LIST, env2);
    expect(keyOnly.code).toBe(2);
    expect(keyOnly.stderr).toBe(
      `error: the API key of profile k is only sent to a base URL saved with it, and there is none; give --api-key or BILLING_API_KEY for ${url} (from the config defaults (billing config set base_url))\n`,
    );
    expect(seen).toEqual([]);
    expect(headerText(seen)).not.toContain(K_CFG);
  });
});

// ---- keys no header can carry ----

describe('a key with a character an HTTP header cannot carry', () => {
  const BAD = {
    'a line feed': 'k_bad\nkey',
    'a carriage return': 'k_bad\r\nx-admin: yes',
    'a tab': 'k_bad\tkey',
    'a NUL': 'k_bad\u0000key',
    'a letter beyond ASCII': 'k_bäd_key',
    'a line separator': 'k_bad\u2028key',
    'a space at the end': 'k_bad_key ',
  };

  it.each(Object.entries(BAD))(
    'with %s: exit 2 before anything is sent, the key never printed (not even with --verbose)',
    async (_label, key) => {
      const { url, seen } = await listener();
      const env = freshEnv();
      const quiet = (r: Run) => {
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).not.toContain('k_bad');
        expect(r.stderr).not.toContain('bäd');
      };
      const viaFlag = await run(['--verbose', '--base-url', url, '--api-key', key, ...LIST], env, [key]);
      quiet(viaFlag);
      expect(viaFlag.stderr).toMatch(
        /^error: the API key from --api-key has a character an HTTP header cannot carry \(.*\); check how it was copied\n$/,
      );
      const viaEnv = await run(['--verbose', ...LIST], { ...env, BILLING_BASE_URL: url, BILLING_API_KEY: key }, [key]);
      quiet(viaEnv);
      expect(viaEnv.stderr).toMatch(/^error: the API key from BILLING_API_KEY has a character/);
      writeConfig(env, { current_profile: 'p', profiles: { p: { base_url: url, api_key: key } } });
      const viaProfile = await run(['--verbose', ...LIST], env, [key]);
      quiet(viaProfile);
      expect(viaProfile.stderr).toMatch(/^error: the API key of profile p has a character/);
      expect(seen).toEqual([]);
    },
  );

  it('is not saved by profiles add or config set either (exit 2, nothing written, nothing echoed)', async () => {
    const env = freshEnv();
    for (const key of Object.values(BAD)) {
      const added = await run(['profiles', 'add', 'p', '--base-url', 'https://x.test', '--api-key', key], env, [key]);
      expect(added.code).toBe(2);
      expect(added.stderr).toMatch(/^error: the API key from --api-key has a character/);
      expect(added.stderr).not.toContain('k_bad');
      const set = await run(['config', 'set', 'api_key', key], env, [key]);
      expect(set.code).toBe(2);
      expect(set.stderr).toMatch(/^error: the API key given has a character/);
      expect(set.stderr).not.toContain('k_bad');
    }
    expect(existsSync(configPath(env))).toBe(false); // nothing was written
  });
});

// ---- --account in remote mode ----

describe('--account in remote mode', () => {
  it('is exit 2, not ignored: the API key decides the account; BILLING_ACCOUNT too; the config default account is left aside', async () => {
    const { url, seen } = await listener();
    const env = freshEnv({ BILLING_BASE_URL: url, BILLING_API_KEY: K_ENV });
    expect(await run(['--account', 'acme', ...LIST], env)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: --account chooses an account of the embedded store; in remote mode the API key decides the account (drop --account)\n',
    });
    expect(await run(LIST, { ...env, BILLING_ACCOUNT: 'acme' })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: BILLING_ACCOUNT chooses an account of the embedded store; in remote mode the API key decides the account (unset BILLING_ACCOUNT)\n',
    });
    expect(seen).toEqual([]);
    // A default for the embedded store, saved in the config: remote mode leaves it aside.
    expect((await run(['config', 'set', 'account', 'acme'], env)).code).toBe(0);
    expect((await run(LIST, env)).code).toBe(0);
    expect(seen).toHaveLength(1);
  });
});
