// Whether a store is there, and may be made or written (issue 8, section 6): a command that only
// reads needs an existing store (exit 2 with a hint, nothing made); a command that writes makes a
// missing SQLite file where its folder exists (the default location gets its folders too); a store
// this user cannot write refuses writes plainly and still serves reads. Also the confirmation and
// --dry-run of the account verbs, which change the store.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { DepsOverrides } from '../../src/lib/command/deps.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { authenticate } from '../../src/lib/core/accounts.js';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import { openStore, StoreReadOnlyError } from '../../src/lib/store/store.js';
import { embeddedTransport } from '../../src/lib/transport/embedded.js';
import { freshPostgresUrl } from '../helpers/engine.js';
import { tempDbPath, tempDir, testCore } from '../helpers/store.js';
import { cli, JAN } from './harness.js';
import { runSource } from './source-cli.js';

const HINT =
  'make one with `billing demo` (a sample) or any command that creates something, or point --db (BILLING_DB) at an existing store';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = tempDir('billing-existence-');
  return { BILLING_CONFIG_DIR: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), NO_COLOR: '1', ...extra };
}

/** main() as a user runs it: it opens the store itself (no injected core). */
async function run(
  argv: string[],
  env: NodeJS.ProcessEnv = freshEnv(),
  overrides: DepsOverrides & { tty?: boolean } = {},
): Promise<Run> {
  const io = memoryIO({ tty: overrides.tty });
  const code = await main(argv, io, env, overrides);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const READS = [
  ['customers', 'list'],
  ['customers', 'get', '1'],
  ['plans', 'list'],
  ['api', 'GET', '/customers'],
  ['accounts', 'list'],
  ['accounts', 'show', 'default'],
  ['store', 'info'],
].map((argv) => [argv.join(' '), argv] as const);

describe('a read of a store that does not exist', () => {
  it.each(READS)(
    '%s: exit 2 with a hint, and nothing is made (--db, BILLING_DB, a profile, config db)',
    async (_name, argv) => {
      const folder = tempDir();
      const db = join(folder, 'billing.db');
      const env = freshEnv();
      const missing = { code: 2, stdout: '', stderr: `error: no store at ${db}: ${HINT}\n` };
      expect(await run(['--db', db, ...argv], env)).toEqual(missing);
      expect(await run(argv, { ...env, BILLING_DB: db })).toEqual(missing);
      expect((await run(['profiles', 'add', 'local', '--db', db, '--use'], env)).code).toBe(0);
      expect(await run(argv, env)).toEqual(missing);
      expect((await run(['profiles', 'remove', 'local', '--yes'], env)).code).toBe(0);
      expect((await run(['config', 'set', 'db', db], env)).code).toBe(0);
      expect(await run(argv, env)).toEqual(missing);
      expect(readdirSync(folder)).toEqual([]);
    },
  );

  it('store copy from a store that does not exist: exit 2, and neither store is made', async () => {
    const from = join(tempDir(), 'billing.db');
    const to = join(tempDir(), 'copy.db');
    expect(await run(['--db', from, 'store', 'copy', '--to', to])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: no store at ${from}: ${HINT}\n`,
    });
    expect(existsSync(from)).toBe(false);
    expect(existsSync(to)).toBe(false);
  });

  it('at the default location: exit 2, and not even its folders are made', async () => {
    const env = freshEnv();
    const r = await run(['customers', 'list'], env);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: no store at ${join(env.XDG_DATA_HOME!, 'billing', 'billing.db')}: ${HINT}\n`,
    });
    expect(existsSync(env.XDG_DATA_HOME!)).toBe(false);
  });

  it('a file without the billing schema (empty, or another program’s database) is no store to read: exit 2, left as it was', async () => {
    const folder = tempDir();
    const empty = join(folder, 'empty.db');
    writeFileSync(empty, '');
    expect(await run(['--db', empty, 'customers', 'list'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${empty} is not a billing store yet: ${HINT}\n`,
    });
    expect(readFileSync(empty).length).toBe(0);
    expect(readdirSync(folder)).toEqual(['empty.db']);
  });

  it('once something was created there, the same reads work', async () => {
    const db = tempDbPath();
    expect(await run(['--db', db, 'customers', 'list', '--json'])).toMatchObject({ code: 2 });
    expect((await run(['--db', db, 'customers', 'create', ...JAN, '-q'])).code).toBe(0);
    const listed = await run(['--db', db, 'api', 'GET', '/customers']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).meta.total).toBe(1);
  });

  it('on PostgreSQL, a database without the billing schema: exit 2, and no table is made', async () => {
    const url = await freshPostgresUrl();
    const tables = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return Number(
          (await client.query("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'"))
            .rows[0].n,
        );
      } finally {
        await client.end();
      }
    };
    const database = new URL(url).pathname.slice(1);
    const server = `${new URL(url).hostname}:${new URL(url).port}`;
    for (const argv of [
      ['customers', 'list'],
      ['accounts', 'list'],
      ['api', 'GET', '/customers/1'],
    ]) {
      expect(await run(['--db', url, ...argv])).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: the database "${database}" on ${server} has no billing store yet: ${HINT}\n`,
      });
    }
    expect(await tables()).toBe(0);
    expect((await run(['--db', url, 'customers', 'create', ...JAN, '-q'])).code).toBe(0);
    expect(await tables()).toBeGreaterThan(0);
    expect(JSON.parse((await run(['--db', url, 'api', 'GET', '/customers'])).stdout).meta.total).toBe(1);
  });
});

describe('a write where there is no store yet', () => {
  it('makes the file when its folder exists', async () => {
    const db = tempDbPath();
    expect((await run(['--db', db, 'accounts', 'create', 'acme', '-q'])).code).toBe(0);
    expect(existsSync(db)).toBe(true);
  });

  it('with --db in a folder that does not exist: exit 2 naming the folder, nothing made (serve too)', async () => {
    const parent = tempDir();
    const db = join(parent, 'no', 'such', 'billing.db');
    const message = `error: cannot make the store ${db}: there is no folder ${join(parent, 'no', 'such')} (make it first, or give --db a path in an existing folder)\n`;
    expect(await run(['--db', db, 'customers', 'create', ...JAN])).toEqual({ code: 2, stdout: '', stderr: message });
    expect(await run(['--db', db, 'accounts', 'create', 'acme'])).toEqual({ code: 2, stdout: '', stderr: message });
    expect(await run(['--db', db, 'serve', '--port', '0'])).toEqual({ code: 2, stdout: '', stderr: message });
    expect(readdirSync(parent)).toEqual([]);
  });

  it('at the default location, its folders are made', async () => {
    const env = freshEnv();
    expect((await run(['customers', 'create', ...JAN, '-q'], env)).code).toBe(0);
    expect(existsSync(join(env.XDG_DATA_HOME!, 'billing', 'billing.db'))).toBe(true);
  });
});

// ---- a store this user cannot write ----

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * A store made by this process, then taken out of the reach of the one that runs the CLI: as root
 * (whom modes do not stop) the CLI runs without the capabilities that override modes (setpriv),
 * otherwise as this user after chmod.
 * The kernel's access(2) decides in the CLI, so this is the check a person meets; and were the CLI
 * able to write after all, the refused writes below would succeed and the tests fail.
 */
async function unwritableStore(what: 'file' | 'folder'): Promise<{ db: string; folder: string }> {
  const folder = tempDir('billing-ro-');
  const db = join(folder, 'billing.db');
  await cli(db).seedCustomers(2);
  if (what === 'file') {
    chmodSync(db, 0o444);
    chmodSync(folder, 0o777);
  } else {
    chmodSync(db, 0o666);
    chmodSync(folder, 0o555);
  }
  return { db, folder };
}

describe('a store that cannot be written', () => {
  const env = () => ({ BILLING_CONFIG_DIR: join(tempDir('billing-ro-config-'), 'config') });

  it('a read-only file: writes exit 2 saying so plainly, reads still work, the file is unchanged', async () => {
    const { db } = await unwritableStore('file');
    const configEnv = env();
    chmodSync(join(configEnv.BILLING_CONFIG_DIR, '..'), 0o777);
    const before = sha(db);
    const readOnly = `error: the store ${db} is read-only: this user cannot write the file; reads still work\n`;
    for (const argv of [
      ['customers', 'create', ...JAN],
      ['accounts', 'create', 'acme'],
      ['api', 'POST', '/customers', '--data', '{"data":{"type":"customer","attributes":{}}}'],
    ]) {
      expect(await runSource(['--db', db, ...argv], { env: configEnv, unprivileged: true })).toEqual({
        code: 2,
        stdout: '',
        stderr: readOnly,
      });
    }
    const read = await runSource(['--db', db, 'api', 'GET', '/customers'], { env: configEnv, unprivileged: true });
    expect(read.stderr).toBe('');
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).meta.total).toBe(2);
    expect(
      (await runSource(['--db', db, 'accounts', 'list', '--json'], { env: configEnv, unprivileged: true })).code,
    ).toBe(0);
    expect(sha(db)).toBe(before);
  }, 60_000);

  it('a read-only folder: writes exit 2 naming it; a read says why SQLite cannot read there either', async () => {
    const { db, folder } = await unwritableStore('folder');
    const configEnv = env();
    chmodSync(join(configEnv.BILLING_CONFIG_DIR, '..'), 0o777);
    const before = sha(db);
    expect(
      await runSource(['--db', db, 'customers', 'create', ...JAN], { env: configEnv, unprivileged: true }),
    ).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the store ${db} is read-only: its folder ${folder} cannot be written (SQLite keeps its journal beside the store); reading it needs the folder writable too (SQLite makes its shared-memory file there)\n`,
    });
    // WAL mode needs a shared-memory file beside the store; nobody can make one in this folder.
    expect(await runSource(['--db', db, 'api', 'GET', '/customers'], { env: configEnv, unprivileged: true })).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read the store ${db}: its folder ${folder} is read-only, and SQLite needs to make its shared-memory file (billing.db-shm) beside it; let this user write the folder, or copy the store elsewhere\n`,
    });
    expect(sha(db)).toBe(before);
    chmodSync(folder, 0o755);
  }, 60_000);
});

describe('a snapshots folder that cannot be written', () => {
  it('snapshot and restore say so (exit 2), not as an unexpected failure; the store is unchanged', async () => {
    const folder = tempDir('billing-ro-snapshots-');
    const db = join(folder, 'billing.db');
    const c = cli(db);
    await c.seedCustomers(2);
    expect((await c.run(['store', 'snapshot', 'a'])).code).toBe(0);
    await c.seedCustomers(1, 3);
    const snapshots = `${db}.snapshots`;
    chmodSync(snapshots, 0o555);
    const configEnv = { BILLING_CONFIG_DIR: join(tempDir('billing-ro-config-'), 'config') };
    chmodSync(join(configEnv.BILLING_CONFIG_DIR, '..'), 0o777);
    try {
      const run = (argv: string[]) => runSource(['--db', db, ...argv], { env: configEnv, unprivileged: true });
      expect(await run(['store', 'restore', 'a', '--yes'])).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: cannot read the snapshot a: the folder ${snapshots} cannot be written (SQLite makes the snapshot's shared-memory file there); the store is unchanged\n`,
      });
      expect(await run(['store', 'snapshot', 'b'])).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: cannot keep the snapshot b: the folder ${snapshots} cannot be written\n`,
      });
      expect(JSON.parse((await c.run(['store', 'info', '--json'])).stdout).counts.customers).toBe(3);
    } finally {
      chmodSync(snapshots, 0o755);
    }
  }, 60_000);
});

// ---- the account verbs: confirmation and --dry-run ----

describe('accounts rotate-key of an account that has a key', () => {
  it('needs --yes without a terminal, asks on one; the key changes only when confirmed', async () => {
    const c = cli();
    const key = JSON.parse((await c.run(['accounts', 'create', 'acme', '--json'])).stdout).api_key as string;
    const stillWorks = async (k: string) => {
      const store = await openStore(c.dbPath);
      try {
        return (await authenticate(store, k))?.name;
      } finally {
        await store.close();
      }
    };
    expect(await c.run(['accounts', 'rotate-key', 'acme'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: rotate the API key of account acme cannot be undone: add --yes to confirm (there is no terminal to ask at)\n',
    });
    expect(await stillWorks(key)).toBe('acme');

    const onTerminal = async (answer: boolean) => {
      const core = await testCore({ dbPath: c.dbPath });
      const prompter = fakePrompter([answer]);
      const r = await run(['accounts', 'rotate-key', 'acme', '--json'], freshEnv(), {
        runtime: core,
        transport: core.transport,
        prompter,
        canPrompt: true,
        tty: true,
      });
      return { r, prompter };
    };
    const no = await onTerminal(false);
    expect(no.r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: rotate the API key of account acme: not confirmed, nothing changed\n',
    });
    expect(no.prompter.asked.map((q) => q.message)).toEqual([
      'Replace the API key of account acme? Whoever still uses the current key is refused from then on.',
    ]);
    expect(await stillWorks(key)).toBe('acme');

    const yes = await onTerminal(true);
    expect(yes.r.code).toBe(0);
    const fresh = JSON.parse(yes.r.stdout).api_key as string;
    expect(await stillWorks(fresh)).toBe('acme');
    expect(await stillWorks(key)).toBeUndefined();
  });

  it('an account without a key yet gets one without a question', async () => {
    const c = cli();
    await c.seedCustomers(1); // the default account, no key
    const r = await c.run(['accounts', 'rotate-key', 'default', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).name).toBe('default');
  });
});

describe('accounts create|update|rotate-key --dry-run', () => {
  it('prints what would change, never a key, and opens nothing (a missing store is not made)', async () => {
    const folder = tempDir();
    const db = join(folder, 'billing.db');
    const dry = async (argv: string[]) => {
      const r = await run(['--db', db, 'accounts', ...argv, '--dry-run']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).not.toMatch(/bk_/);
      return JSON.parse(r.stdout);
    };
    expect(await dry(['create', 'acme', '--invoice-prefix', 'AC-'])).toEqual({
      dry_run: true,
      would: 'create account acme and its first API key',
      account: { name: 'acme', invoice_prefix: 'AC-' },
      store: db,
    });
    expect(await dry(['update', 'acme', '--time-zone', 'Europe/London'])).toEqual({
      dry_run: true,
      would: 'update account acme',
      changes: { time_zone: 'Europe/London' },
      store: db,
    });
    expect(await dry(['rotate-key', 'acme'])).toEqual({
      dry_run: true,
      would: 'rotate the API key of account acme',
      store: db,
    });
    expect(readdirSync(folder)).toEqual([]);
  });

  it('changes nothing in an existing store either', async () => {
    const c = cli();
    const key = JSON.parse((await c.run(['accounts', 'create', 'acme', '--json'])).stdout).api_key as string;
    expect((await c.run(['accounts', 'rotate-key', 'acme', '--dry-run'])).code).toBe(0);
    expect((await c.run(['accounts', 'update', 'acme', '--invoice-prefix', 'X-', '--dry-run'])).code).toBe(0);
    expect((await c.run(['accounts', 'create', 'other', '--dry-run'])).code).toBe(0);
    const accounts = JSON.parse((await c.run(['accounts', 'list', '--json'])).stdout) as {
      name: string;
      invoice_prefix: string;
    }[];
    expect(accounts.map((a) => [a.name, a.invoice_prefix])).toEqual([
      ['default', 'INV-'],
      ['acme', 'INV-'],
    ]);
    const store = await openStore(c.dbPath);
    try {
      expect((await authenticate(store, key))?.name).toBe('acme');
    } finally {
      await store.close();
    }
  });

  it('is still refused in remote mode', async () => {
    const r = await run(['--base-url', 'http://127.0.0.1:9', 'accounts', 'create', 'acme', '--dry-run']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: accounts create works only on the embedded store; it cannot run against http://127.0.0.1:9 (drop --base-url / BILLING_BASE_URL)\n',
    });
  });
});

describe('read-only and missing stores through the embedded core (no CLI)', () => {
  it('openStore with create "nothing" makes nothing; with "file" needs the folder', async () => {
    const folder = tempDir();
    await expect(openStore(join(folder, 'x.db'), { create: 'nothing' })).rejects.toMatchObject({
      name: 'StoreMissingError',
    });
    await expect(openStore(join(folder, 'a', 'x.db'), { create: 'file' })).rejects.toMatchObject({
      name: 'StoreOpenError',
    });
    expect(readdirSync(folder)).toEqual([]);
    mkdirSync(join(folder, 'a'));
    await (await openStore(join(folder, 'a', 'x.db'), { create: 'file' })).close();
    expect(existsSync(join(folder, 'a', 'x.db'))).toBe(true);
  });

  it('a store opened read-only for a read refuses a later change in the same command plainly (not as a 500)', async () => {
    // E.g. an interactive update: it GETs the resource, then PATCHes it.
    const core = await testCore();
    const refusal = 'the store /x/billing.db is read-only: this user cannot write the file; reads still work';
    const transport = embeddedTransport({
      ...core,
      store: Object.assign(Object.create(core.store) as typeof core.store, { writeRefusal: refusal }),
    });
    expect((await transport.request({ method: 'GET', path: '/customers' })).status).toBe(200);
    await expect(
      transport.request({ method: 'POST', path: '/customers', body: { data: { type: 'customer', attributes: {} } } }),
    ).rejects.toThrow(new StoreReadOnlyError(refusal));
  });
});
