// The PostgreSQL engine from the command line: choosing it by --db, BILLING_DB, a profile or the
// config file; clear exits when the server is unreachable (3), refuses the credentials (4) or has
// no such database (2); and the URL's password never shown anywhere.
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { freePort, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { tempDir } from '../helpers/store.js';

const PASSWORD = 'S3cret-pw_7Zq';

describe('the PostgreSQL engine through the CLI (a server that checks passwords)', () => {
  let server: PostgresServer;
  let url: string;
  let env: Record<string, string>;
  const cli = (args: string[], extra: Record<string, string> = {}, cwd?: string) =>
    runCli(args, { env: { ...env, ...extra }, cwd });
  const noPassword = (...texts: string[]) => {
    for (const text of texts) expect(text).not.toContain(PASSWORD);
  };

  beforeAll(async () => {
    server = await startPostgres({}, { password: PASSWORD });
    const admin = new pg.Client({ connectionString: server.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE billing');
    await admin.end();
    url = server.url('billing');
    const home = tempDir();
    env = { HOME: home, BILLING_CONFIG_DIR: `${home}/config` };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('runs every command on the database given by --db, and says where without the password', async () => {
    const demo = await cli(['--db', url, 'demo']);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stderr).toContain(`postgres://postgres:***@127.0.0.1:${server.port}/billing`);
    const get = await cli(['--db', url, 'customers', 'get', '1', '--json', '--verbose']);
    expect(get.code, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout).data.attributes.first_name).toBe('Jeroen');
    noPassword(demo.stdout, demo.stderr, get.stdout, get.stderr);
  });

  it('takes the database from BILLING_DB, a profile, and the config file alike, and lists them with *** for the password', async () => {
    const viaEnv = await cli(['customers', 'list', '--json'], { BILLING_DB: url });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(JSON.parse(viaEnv.stdout).meta.total).toBe(20);

    expect((await cli(['profiles', 'add', 'shared', '--db', url])).code).toBe(0);
    const viaProfile = await cli(['--profile', 'shared', 'customers', 'list', '--json']);
    expect(viaProfile.code, viaProfile.stderr).toBe(0);
    expect(JSON.parse(viaProfile.stdout).meta.total).toBe(20);
    const profiles = await cli(['profiles', 'list', '--json']);
    expect(JSON.parse(profiles.stdout)).toEqual([
      expect.objectContaining({ name: 'shared', db: `postgres://postgres:***@127.0.0.1:${server.port}/billing` }),
    ]);
    const profileTable = await cli(['profiles', 'list']);
    expect(profileTable.stdout).toContain('***');

    expect((await cli(['config', 'set', 'db', url])).code).toBe(0);
    const viaConfig = await cli(['customers', 'list', '--json']);
    expect(viaConfig.code, viaConfig.stderr).toBe(0);
    expect(JSON.parse(viaConfig.stdout).meta.total).toBe(20);
    const shownGet = await cli(['config', 'get', 'db']);
    const shownList = await cli(['config', 'list', '--json']);
    expect(shownGet.stdout.trim()).toBe(`postgres://postgres:***@127.0.0.1:${server.port}/billing`);
    noPassword(
      viaEnv.stderr,
      viaProfile.stderr,
      profiles.stdout,
      profileTable.stdout,
      viaConfig.stderr,
      shownGet.stdout,
      shownList.stdout,
    );
    expect((await cli(['config', 'unset', 'db'])).code).toBe(0);
  });

  it('refuses an import file and --data that are not UTF-8 (exit 2) and stores nothing, on PostgreSQL too', async () => {
    const dir = tempDir();
    const total = async () =>
      JSON.parse((await cli(['--db', url, 'customers', 'list', '--json'])).stdout).meta.total as number;
    const before = await total();
    writeFileSync(
      join(dir, 'c.ndjson'),
      Buffer.concat([
        Buffer.from('{"first_name":"Ok","last_name":"Row","email":"ok-row@example.com"}\n{"first_name":"'),
        Buffer.from([0xff]),
        Buffer.from('"}\n'),
      ]),
    );
    const imported = await cli(['--db', url, 'import', 'customers', join(dir, 'c.ndjson')]);
    expect(imported.code, imported.stderr).toBe(2);
    expect(imported.stderr).toContain('c.ndjson is not UTF-8 text at line 2, byte offset 82 (0xff)');
    writeFileSync(
      join(dir, 'c.json'),
      Buffer.concat([
        Buffer.from('{"first_name":"'),
        Buffer.from([0xfe]),
        Buffer.from('","last_name":"X","email":"x-pg@example.com"}'),
      ]),
    );
    const created = await cli(['--db', url, 'customers', 'create', '--data', `@${join(dir, 'c.json')}`]);
    expect(created.code, created.stderr).toBe(2);
    expect(created.stderr).toContain('is not UTF-8 text at line 1, byte offset 15 (0xfe)');
    expect(await total()).toBe(before);
  });

  it('exits 4 with one line naming host and database when the server refuses the credentials', async () => {
    const wrong = url.replace(PASSWORD, 'not-the-password');
    const result = await cli(['--db', wrong, 'customers', 'list']);
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      `error: the database server 127.0.0.1:${server.port} refused the credentials of user "postgres" for database "billing"\n`,
    );
    expect(result.stderr).not.toContain('not-the-password');
  });

  it('exits 2 naming the database when there is no such database', async () => {
    const result = await cli(['--db', url.replace(/\/billing$/, '/nosuchdb'), 'customers', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: no database named "nosuchdb" on the database server 127.0.0.1:${server.port}\n`);
  });

  it('exits 3 naming host and database when nothing listens there, and never makes a file of the URL', async () => {
    const port = await freePort();
    const cwd = tempDir();
    const result = await cli(
      ['--db', `postgresql://postgres:${PASSWORD}@127.0.0.1:${port}/billing`, 'customers', 'list'],
      {},
      cwd,
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: cannot reach the database server 127.0.0.1:${port} (database "billing"): connection refused\n`,
    );
    const other = await cli(['--db', `mysql://root:${PASSWORD}@127.0.0.1/billing`, 'customers', 'list'], {}, cwd);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('mysql://root:***@127.0.0.1/billing is a URL of no supported engine');
    noPassword(result.stderr, other.stderr);
    expect(readdirSync(cwd)).toEqual([]); // no "postgresql:" or "mysql:" folder
  });

  it('serves the database with billing serve, logs its location without the password, and closes its pool on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, '--db', url, 'serve', '--port', '0', '--pool-size', '3'], {
      env: { ...env, PATH: process.env.PATH },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 15_000;
      while (!/listening on/.test(stderr) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stderr).toContain(`(store: postgres://postgres:***@127.0.0.1:${server.port}/billing)`);
      const origin = /listening on (\S+)/.exec(stderr)![1];
      const key = JSON.parse((await cli(['--db', url, 'accounts', 'rotate-key', 'default', '--json'])).stdout)
        .api_key as string;
      const get = () => fetch(`${origin}/customers/1`, { headers: { 'x-authorization': key } });
      const answer = await get();
      expect(answer.status).toBe(200);
      expect((await answer.json()).data.attributes.created_at).toMatch(/\+0[12]:00$/); // Europe/Amsterdam
      // The instance caches the key's account; a change made elsewhere shows on the very next GET.
      expect((await cli(['--db', url, 'accounts', 'update', 'default', '--time-zone', 'Asia/Tokyo'])).code).toBe(0);
      const after = await get();
      expect((await after.json()).data.attributes.created_at).toMatch(/\+09:00$/);
      expect((await cli(['--db', url, 'accounts', 'rotate-key', 'default', '--yes'])).code).toBe(0); // it has a key now: --yes
      expect((await get()).status).toBe(401);
      const admin = new pg.Client({ connectionString: server.url() });
      await admin.connect();
      const open = async () =>
        Number(
          (
            await admin.query(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'billing' AND application_name = 'billing'",
            )
          ).rows[0].n,
        );
      expect(await open()).toBeGreaterThan(0);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(await open()).toBe(0);
      await admin.end();
      noPassword(stderr);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
