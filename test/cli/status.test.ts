// billing status: the mode and the setting that chose it, the store or the server (whether it
// answers, with which key, shown by its last four characters only), the account, profile and clock,
// and counts read through the transport: the same figures embedded and remote, on either engine;
// a server that does not answer is exit 3, a refused key exit 4, after the status is printed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBundle, runCli, TEST_CONFIG_DIR, watchServe, type ServeChild } from '../helpers/cli.js';
import { freshPostgresUrl } from '../helpers/engine.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

const servers: ServeChild[] = [];
afterAll(async () => {
  for (const serve of servers) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});
beforeAll(() => ensureBundle('current: billing profiles use'), 120_000);

const json = async (args: string[], env: Record<string, string> = {}) => {
  const result = await runCli([...args, 'status', '--json'], { env });
  return { code: result.code, stderr: result.stderr, status: JSON.parse(result.stdout) as Record<string, any> };
};

/** A store with 3 customers, 2 active subscriptions and 1 open invoice, and an API key for it. */
async function seeded(db: string): Promise<string> {
  const run = async (...args: string[]) => {
    const result = await runCli(['--db', db, ...args]);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };
  await run('plans', 'create', '--name', 'Box', '--amount', '10');
  for (const n of [1, 2, 3])
    await run('customers', 'create', '--first-name', `F${n}`, '--last-name', `L${n}`, '--email', `c${n}@example.com`);
  for (const n of [1, 2])
    await run(
      'subscriptions',
      'create',
      '--customer-id',
      String(n),
      '--subscription-plan-id',
      '1',
      '--status',
      'active',
      '--mandate-accepted',
      '--mandate-accepted-date',
      '2026-11-20',
    );
  await run('invoices', 'create', '--subscription-id', '1');
  await run('lines', 'create', '--invoice-id', '1', '--description', 'Soup', '--amount', '5', '--tax-rate', '9');
  await run('invoices', 'finalise', '1', '--yes');
  return JSON.parse(await run('accounts', 'rotate-key', 'default', '--json', '--yes')).api_key as string;
}

describe('billing status', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`${engine}: embedded and remote count the same; the key is shown by its last four characters`, async () => {
      const db = engine === 'sqlite' ? tempDbPath() : await freshPostgresUrl();
      const key = await seeded(db);
      const embedded = await json(['--db', db]);
      expect(embedded.code).toBe(0);
      expect(embedded.status).toMatchObject({
        mode: 'embedded',
        chosen_by: '--db',
        store: { engine, exists: true },
        server: null,
        account: 'default',
        profile: null,
        clock: { test: false, time_zone: 'Europe/Amsterdam' },
        counts: { customers: 3, active_subscriptions: 2, open_invoices: 1 },
        due_work: { waiting: 0 },
      });
      // A database URL is shown without its password.
      if (engine === 'postgres') expect(embedded.status.store.location).not.toMatch(/:[^:@/]+@/);

      const serve = watchServe(
        spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db], {
          env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
          stdio: ['ignore', 'ignore', 'pipe'],
        }),
      );
      servers.push(serve);
      const url = `http://127.0.0.1:${await serve.port}`;
      const remote = await runCli(['--base-url', url, '--api-key', key, 'status', '--json']);
      expect(remote.code, remote.stderr).toBe(0);
      expect(remote.stdout).not.toContain(key);
      expect(JSON.parse(remote.stdout)).toMatchObject({
        mode: 'remote',
        chosen_by: '--base-url',
        store: null,
        server: { url, answers: true, status: 200, problem: null },
        api_key: { shown: `${key.slice(0, key.indexOf('_') + 1)}…${key.slice(-4)}`, from: '--api-key' },
        account: null,
        clock: null,
        counts: embedded.status.counts,
      });

      const refused = await runCli(['--base-url', url, '--api-key', `${key}x`, 'status']);
      expect(refused.code).toBe(4);
      expect(refused.stdout).toContain('answers, but the API key is refused (401)');
      // As JSON: the status alone on stdout (it holds the refusal), the error on stderr; --query applies to it.
      const refusedJson = await runCli(['--base-url', url, '--api-key', `${key}x`, 'status', '--json']);
      expect(refusedJson.code).toBe(4);
      expect(JSON.parse(refusedJson.stdout)).toMatchObject({
        server: { url, answers: true, status: 401, problem: 'the API key is refused (401)' },
      });
      expect(refusedJson.stderr).toContain(`error: ${url}: the API key is refused (401)`);
      const queried = await runCli(['--base-url', url, '--api-key', `${key}x`, 'status', '--query', 'server.status']);
      expect([queried.code, queried.stdout]).toEqual([4, '401\n']);
    }, 120_000);
  }

  it('a PostgreSQL database without the store yet is named without its password', async () => {
    const url = new URL(await freshPostgresUrl());
    url.password = 'hunter2-never-shown';
    const missing = await json(['--db', url.toString()]);
    expect(missing.code, missing.stderr).toBe(0);
    expect(missing.status).toMatchObject({
      mode: 'embedded',
      store: { engine: 'postgres', exists: false },
      counts: null,
    });
    expect(JSON.stringify(missing)).not.toContain('hunter2-never-shown');
    expect(missing.status.store.location).toContain(':***@');
  }, 60_000);

  it('names the setting that chose the mode: a profile current or named, an environment variable, the default store', async () => {
    const config = tempDir('billing-status-');
    const env = { BILLING_CONFIG_DIR: config };
    const added = await runCli(
      ['profiles', 'add', 'far', '--base-url', 'http://127.0.0.1:9', '--api-key', 'bk_test_0123456789abcdef', '--use'],
      { env },
    );
    expect(added.code, added.stderr).toBe(0);
    const far = await runCli(['status'], { env });
    expect(far.code).toBe(3); // nothing listens there
    expect(far.stdout).toContain('mode\tremote (the current profile `far` sets a base URL)');
    expect(far.stdout).toContain('server\thttp://127.0.0.1:9 (does not answer: ');
    expect(far.stdout).toContain('API key\tbk_…cdef (from profile `far`)');
    expect(far.stdout).not.toContain('0123456789abcdef');
    expect((await runCli(['config', 'list'], { env })).stdout).toBe('current_profile=far\n');

    const named = await json(['--profile', 'far'], env);
    expect(named.status.chosen_by).toBe('profile `far` (--profile) sets a base URL');
    const db = tempDbPath();
    const byEnv = await json([], { ...env, BILLING_DB: db, BILLING_PROFILE: '' });
    // The environment outranks the current profile's base URL: BILLING_DB chooses the embedded store.
    expect(byEnv.status).toMatchObject({ mode: 'embedded', chosen_by: 'BILLING_DB', store: { exists: false } });
    const fresh = tempDir('billing-status-');
    const byDefault = await json([], { BILLING_CONFIG_DIR: fresh, HOME: fresh, XDG_DATA_HOME: join(fresh, 'data') });
    expect(byDefault.code).toBe(0);
    expect(byDefault.status).toMatchObject({
      mode: 'embedded',
      chosen_by: 'nothing names a server or a store: the default store',
      store: { exists: false },
      counts: null,
    });
  }, 60_000);
});
