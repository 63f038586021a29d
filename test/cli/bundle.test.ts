// What the built CLI loads to answer a read, and how it ends: start-up is paid in loading code (issue
// 21), so the modules only some commands use stay unloaded until one of them runs.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ensureBundle, runCli, TEST_CONFIG_DIR } from '../helpers/cli.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

/** Runs the built CLI with its output in files (as a cron job writes it), and lists the modules it loaded. */
function loaded(args: string[]): { code: number | null; stdout: string; builtins: string[]; files: string[] } {
  const dir = tempDir();
  const preload = join(dir, 'record.cjs');
  const record = join(dir, 'loaded.json');
  writeFileSync(
    preload,
    `const Module = require('node:module');
const files = [];
const load = Module._load;
Module._load = function (request, ...rest) { files.push(request); return load.call(this, request, ...rest); };
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ builtins: process.moduleLoadList, files })));
`,
  );
  const out = openSync(join(dir, 'out'), 'w');
  const err = openSync(join(dir, 'err'), 'w');
  try {
    const run = spawnSync(process.execPath, ['-r', preload, BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
      stdio: ['ignore', out, err],
    });
    const { builtins, files } = JSON.parse(readFileSync(record, 'utf8')) as { builtins: string[]; files: string[] };
    return { code: run.status, stdout: readFileSync(join(dir, 'out'), 'utf8'), builtins, files };
  } finally {
    closeSync(out);
    closeSync(err);
  }
}

describe('the built CLI answering a read', () => {
  it('loads neither crypto, the network nor a terminal module, and only the SQLite addon from node_modules', async () => {
    ensureBundle();
    const db = tempDbPath();
    const made = await runCli([
      'customers',
      'create',
      '--first-name',
      'Jan',
      '--last-name',
      'Jansen',
      '--email',
      'jan@example.com',
      '--db',
      db,
      '-q',
    ]);
    expect(made.code, made.stderr).toBe(0);

    const read = loaded(['customers', 'get', '1', '--json', '--db', db]);
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).data.attributes.email).toBe('jan@example.com');
    for (const builtin of ['crypto', 'net', 'tty', 'http', 'dns'])
      expect(read.builtins, builtin).not.toContain(`NativeModule ${builtin}`);
    // better-sqlite3's JavaScript is in the bundle: the addon is the one file required from its package.
    const fromPackages = read.files.filter((file) => file.includes('node_modules') || file === 'better-sqlite3');
    expect(fromPackages).toEqual([
      expect.stringMatching(/better-sqlite3[\\/]build[\\/]Release[\\/]better_sqlite3\.node$/),
    ]);
  });

  it('finalising an invoice, and the catch-up of the collection it leaves due, load neither crypto nor streams', async () => {
    ensureBundle();
    const db = tempDbPath();
    // The demo leaves invoice 6 a draft.
    const demo = await runCli(['demo', '-q', '--db', db]);
    expect(demo.code, demo.stderr).toBe(0);
    const finalised = loaded(['invoices', 'finalise', '6', '--db', db, '-q']);
    expect(finalised.code).toBe(0);
    expect(finalised.stdout).toMatch(/^status\topen$/m);
    const transaction = /^transaction\t(\S+)$/m.exec(finalised.stdout)![1];
    const caughtUp = loaded(['transactions', 'get', transaction, '--json', '--db', db]);
    expect(caughtUp.code).toBe(0);
    // The catch-up ran: the finalised invoice's transaction is queued no longer.
    const read = JSON.parse(caughtUp.stdout) as { data: { attributes: { status: string } } };
    expect(read.data.attributes.status).toMatch(/^(scheduled|succeeded)$/);
    for (const run of [finalised, caughtUp])
      for (const builtin of ['crypto', 'stream', 'net', 'tty'])
        expect(run.builtins, builtin).not.toContain(`NativeModule ${builtin}`);
  });

  it("loads crypto when a command needs it, through the same bundle: a new account's API key", () => {
    ensureBundle();
    const made = loaded(['accounts', 'create', 'second', '--json', '--db', tempDbPath()]);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout).api_key).toMatch(/^bk_[A-Za-z0-9_-]{20,}$/);
    expect(made.builtins).toContain('NativeModule crypto');
  });
});

describe('the built CLI ending', () => {
  /** Runs the built CLI under --trace-exit, which makes Node print a stack when process.exit ends the process. */
  const traced = (args: string[]) =>
    spawnSync(process.execPath, ['--trace-exit', BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
      encoding: 'utf8',
    });

  it("ends through process.exit once its work is done (no teardown of the heap), with the command's exit code, its output whole and the store closed", async () => {
    ensureBundle();
    const db = tempDbPath();
    const demo = await runCli(['demo', '-q', '--db', db]);
    expect(demo.code, demo.stderr).toBe(0);

    // A write: its transaction committed and the store checkpointed and closed before the process ended.
    const finalised = traced(['invoices', 'finalise', '6', '--json', '--db', db]);
    expect(finalised.status, finalised.stderr).toBe(0);
    expect(JSON.parse(finalised.stdout).data.attributes.status).toBe('open');
    expect(finalised.stderr).toMatch(
      /Exited the environment with code 0\n\s+at exit [^\n]*\n\s+at [^\n]*bin[\\/]billing\.js:/,
    );
    expect(existsSync(`${db}-wal`)).toBe(false);

    const missing = traced(['customers', 'get', '999', '--db', db]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('error: Not Found: no customer with id 999');
    expect(missing.stderr).toContain('Exited the environment with code 1');

    const read = traced(['invoices', 'get', '6', '--json', '--db', db]);
    expect(read.status).toBe(0);
    expect(JSON.parse(read.stdout).data.attributes.status).toMatch(/^(open|paid)$/);
  });
});
