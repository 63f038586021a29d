// End to end: the built CLI (`bin/billing.js serve`) in a child process, a request over loopback,
// SIGTERM, exit 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { BIN, ensureBundle, watchServe, runCli, TEST_CONFIG_DIR } from '../helpers/cli.js';
import { storeWithAccount, tempDbPath } from '../helpers/store.js';

// Built again when the bundle predates `billing serve`'s connection limits.
beforeAll(() => ensureBundle('--max-connections'), 120_000);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startCli(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return watchServe(child);
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  ]);

describe('billing serve (the built CLI)', () => {
  it('listens on a free port, answers with the store, and exits 0 on SIGTERM', async () => {
    const { dbPath, key } = await storeWithAccount();
    const cli = startCli(['serve', '--port', '0', '--db', dbPath]);
    const port = await cli.port;
    expect(cli.output().stderr).toContain(`(store: ${dbPath})`);

    const created = await fetch(`http://127.0.0.1:${port}/customers`, {
      method: 'POST',
      headers: { 'x-authorization': key, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({
        data: { type: 'customer', attributes: { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' } },
      }),
    });
    expect(created.status).toBe(201);
    expect((await created.json()).data.links.self).toBe(`http://127.0.0.1:${port}/customers/1`);
    expect((await fetch(`http://127.0.0.1:${port}/customers/1`)).status).toBe(401);

    cli.child.kill('SIGTERM');
    expect(await within(cli.exited, 5_000, 'exit after SIGTERM')).toBe(0);
    const { stdout, stderr } = cli.output();
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^POST \/customers 201 \d+ms$/m);
    expect(stderr).toMatch(/^GET \/customers\/1 401 \d+ms$/m);
    expect(stderr).not.toContain(key);

    // The store was closed cleanly and holds what was written.
    const store = await openStore(dbPath);
    try {
      expect(await store.read(() => all((q) => q.selectFrom('customers').select('email')))).toEqual([
        { email: 'jan@example.com' },
      ]);
    } finally {
      await store.close();
    }
  });

  it('exits 0 on SIGINT as well, using --public-url for links', async () => {
    const { dbPath, key } = await storeWithAccount();
    const cli = startCli(['serve', '--port', '0', '--db', dbPath, '--public-url', 'https://billing.example.com']);
    const port = await cli.port;
    const list = await fetch(`http://127.0.0.1:${port}/customers`, { headers: { 'x-authorization': key } });
    expect((await list.json()).links.self.startsWith('https://billing.example.com/customers')).toBe(true);
    cli.child.kill('SIGINT');
    expect(await within(cli.exited, 5_000, 'exit after SIGINT')).toBe(0);
  });

  it('exits 2 for a bad --port or --public-url, and in remote mode', async () => {
    const db = tempDbPath();
    const badPort = await runCli(['serve', '--port', '70000', '--db', db]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port');
    const badUrl = await runCli(['serve', '--port', '0', '--public-url', 'billing.example.com', '--db', db]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--public-url');
    const remote = await runCli(['serve', '--port', '0', '--base-url', 'https://billing.example.com']);
    expect(remote.code).toBe(2);
  });

  it('exits 2 for a bad --max-connections or timeout, naming the flag; --help lists them with their defaults', async () => {
    const db = tempDbPath();
    for (const [flag, value] of [
      ['--max-connections', '0'],
      ['--max-connections', 'many'],
      ['--headers-timeout', '0'],
      ['--request-timeout', '-5'],
      ['--keep-alive-timeout', 'forever'],
    ]) {
      const result = await runCli(['serve', '--port', '0', '--db', db, flag, value]);
      expect(result.code, `${flag} ${value}`).toBe(2);
      expect(result.stderr).toContain(flag);
    }
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--max-connections <n>[\s\S]*open-files\s+limit/);
    expect(help.stdout).toMatch(/--headers-timeout <seconds>[\s\S]*\(default 10\)/);
    expect(help.stdout).toMatch(/--request-timeout <seconds>[\s\S]*\(default 30\)/);
    expect(help.stdout).toMatch(/--keep-alive-timeout <seconds>[\s\S]*\(default 65\)/);
  });
});
