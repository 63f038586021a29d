// `billing serve` as a command: flags to options, and run() with fake IO and a fake signal source.
import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseServeOptions, run, type ServeOptions } from '../../src/commands/serve/index.js';
import { createDeps } from '../../src/lib/command/deps.js';
import { UsageError } from '../../src/lib/command/errors.js';
import { readGlobals } from '../../src/lib/command/globals.js';
import { memoryIO } from '../../src/lib/command/io.js';
import { createAccount } from '../../src/lib/core/accounts.js';
import { systemClock } from '../../src/lib/core/clock.js';
import { openStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

describe('parseServeOptions', () => {
  it('defaults to 127.0.0.1:8080, no public URL, private webhooks refused', () => {
    expect(parseServeOptions({})).toEqual({ host: '127.0.0.1', port: 8080, publicUrl: undefined, allowPrivateWebhooks: false });
  });

  it('takes port 0 to 65535, a host, a public URL without its trailing slash, and --allow-private-webhooks', () => {
    expect(parseServeOptions({ port: '0', host: '0.0.0.0', publicUrl: 'https://billing.example.com/api/', allowPrivateWebhooks: true })).toEqual({
      host: '0.0.0.0',
      port: 0,
      publicUrl: 'https://billing.example.com/api',
      allowPrivateWebhooks: true,
    });
    expect(parseServeOptions({ port: '65535' }).port).toBe(65535);
  });

  it.each(['-1', '65536', '1.5', 'abc', '', '8080x', '1e3'])('refuses --port %j', (port) => {
    expect(() => parseServeOptions({ port })).toThrow(UsageError);
  });

  it.each(['billing.example.com', 'ftp://billing.example.com', '/relative', 'https://billing.example.com/?a=1', 'https://user:pw@billing.example.com', 'not a url'])('refuses --public-url %j', (publicUrl) => {
    expect(() => parseServeOptions({ publicUrl })).toThrow(/--public-url/);
  });

  it('refuses an empty --host', () => {
    expect(() => parseServeOptions({ host: ' ' })).toThrow(UsageError);
  });
});

function depsFor(globals: Record<string, unknown>) {
  const io = memoryIO();
  // A config folder of its own: a person's saved profiles never take part.
  const deps = createDeps(io, readGlobals(globals, {}), { BILLING_CONFIG_DIR: tempDir('billing-config-') });
  return { io, deps };
}

const options = (overrides: Partial<ServeOptions> = {}): ServeOptions => ({ host: '127.0.0.1', port: 0, allowPrivateWebhooks: false, ...overrides });

async function waitFor<T>(check: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('run', () => {
  it('serves the --db store until SIGTERM, then stops and closes the store', async () => {
    const dbPath = tempDbPath();
    const seed = await openStore(dbPath);
    const made = await createAccount(seed, systemClock, 'alpha').finally(() => seed.close());
    if (!made.ok) throw new Error('account');
    const { io, deps } = depsFor({ db: dbPath });
    const signals = new EventEmitter();
    const running = run(options(), deps, signals);

    const port = await waitFor(() => /listening on http:\/\/127\.0\.0\.1:(\d+) \(store: (.+)\)/.exec(io.stderr)?.[1]);
    expect(io.stderr).toContain(`(store: ${dbPath})`);
    const response = await fetch(`http://127.0.0.1:${port}/customers`, { headers: { 'x-authorization': made.value.apiKey } });
    expect(response.status).toBe(200);
    expect((await response.json()).meta.total).toBe(0);

    signals.emit('SIGTERM');
    await running;
    expect(io.stderr).toMatch(/^GET \/customers 200 \d+ms$/m);
    expect(io.stderr).toContain('billing serve: stopped');
    expect(io.stderr).not.toContain(made.value.apiKey);
    expect(io.stdout).toBe('');
    expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
    const core = await deps.core('serve');
    await expect(Promise.resolve().then(() => core.store.read(() => all((q) => q.selectFrom('accounts').select('id'))))).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${port}/customers`)).rejects.toThrow();
    await deps.close();
  });

  it('stops on SIGINT too', async () => {
    const { io, deps } = depsFor({ db: tempDbPath() });
    const signals = new EventEmitter();
    const running = run(options(), deps, signals);
    await waitFor(() => (io.stderr.includes('listening on') ? true : undefined));
    signals.emit('SIGINT');
    await running;
    await deps.close();
  });

  it('is a usage error in remote mode', async () => {
    const { deps } = depsFor({ baseUrl: 'https://billing.example.com' });
    await expect(run(options(), deps, new EventEmitter())).rejects.toThrow(UsageError);
  });

  it('is a usage error when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const { deps } = depsFor({ db: tempDbPath() });
      await expect(run(options({ port }), deps, new EventEmitter())).rejects.toThrow(/port is in use/);
      await deps.close();
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
