// `billing serve` as a command: flags to options, and run() with fake IO and a fake signal source.
import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { connectionCap, parseServeOptions, run, type ServeOptions } from '../../src/commands/serve/index.js';
import { createDeps } from '../../src/lib/command/deps.js';
import { UsageError } from '../../src/lib/cli/errors.js';
import { readGlobals } from '../../src/lib/cli/globals.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { createAccount } from '../../src/lib/core/accounts.js';
import { systemClock } from '../../src/lib/core/clock.js';
import { defaultMaxConnections, openFilesLimit } from '../../src/lib/server/limits.js';
import { openStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { openRuntime } from '../../src/lib/runtime/runtime.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

describe('parseServeOptions', () => {
  it('defaults to 127.0.0.1:8080, no public URL, private webhooks refused, the connection cap left to the open-files limit, timeouts 10, 30 and 65 s', () => {
    expect(parseServeOptions({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      publicUrl: undefined,
      allowPrivateWebhooks: false,
      maxConnections: undefined,
      headersTimeout: 10,
      requestTimeout: 30,
      keepAliveTimeout: 65,
    });
  });

  it('takes port 0 to 65535, a host, a public URL without its trailing slash, and --allow-private-webhooks', () => {
    expect(
      parseServeOptions({
        port: '0',
        host: '0.0.0.0',
        publicUrl: 'https://billing.example.com/api/',
        allowPrivateWebhooks: true,
      }),
    ).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      publicUrl: 'https://billing.example.com/api',
      allowPrivateWebhooks: true,
    });
    expect(parseServeOptions({ port: '65535' }).port).toBe(65535);
  });

  it('takes --max-connections and the timeouts in seconds, fractions too', () => {
    expect(
      parseServeOptions({
        maxConnections: '500',
        headersTimeout: '2.5',
        requestTimeout: '20',
        keepAliveTimeout: '0.5',
      }),
    ).toMatchObject({
      maxConnections: 500,
      headersTimeout: 2.5,
      requestTimeout: 20,
      keepAliveTimeout: 0.5,
    });
    expect(
      parseServeOptions({ maxConnections: '1000000', headersTimeout: '3600', requestTimeout: '3600' }),
    ).toMatchObject({ maxConnections: 1_000_000, headersTimeout: 3600 });
  });

  it.each(['0', '-1', '1.5', 'abc', '', '1000001', '1e3', '10x'])(
    'refuses --max-connections %j, naming the flag',
    (maxConnections) => {
      expect(() => parseServeOptions({ maxConnections })).toThrow(UsageError);
      expect(() => parseServeOptions({ maxConnections })).toThrow(/--max-connections/);
    },
  );

  it.each([
    ['headersTimeout', '--headers-timeout'],
    ['requestTimeout', '--request-timeout'],
    ['keepAliveTimeout', '--keep-alive-timeout'],
  ] as const)('refuses bad values of %s, naming %s', (key, flag) => {
    for (const value of ['0', '0.0', '-1', 'abc', '', '3601', '1e3', '5s', '.5']) {
      expect(() => parseServeOptions({ [key]: value }), value).toThrow(UsageError);
      expect(() => parseServeOptions({ [key]: value }), value).toThrow(flag);
    }
  });

  it('refuses a headers timeout longer than the request timeout, naming both', () => {
    expect(() => parseServeOptions({ headersTimeout: '40' })).toThrow(/--headers-timeout.*--request-timeout/);
    expect(() => parseServeOptions({ headersTimeout: '5', requestTimeout: '4' })).toThrow(
      /--headers-timeout.*--request-timeout/,
    );
    expect(parseServeOptions({ headersTimeout: '40', requestTimeout: '40' }).headersTimeout).toBe(40);
  });

  it.each(['-1', '65536', '1.5', 'abc', '', '8080x', '1e3'])('refuses --port %j', (port) => {
    expect(() => parseServeOptions({ port })).toThrow(UsageError);
  });

  it.each([
    'billing.example.com',
    'ftp://billing.example.com',
    '/relative',
    'https://billing.example.com/?a=1',
    'https://user:pw@billing.example.com',
    'not a url',
  ])('refuses --public-url %j', (publicUrl) => {
    expect(() => parseServeOptions({ publicUrl })).toThrow(/--public-url/);
  });

  it('refuses an empty --host', () => {
    expect(() => parseServeOptions({ host: ' ' })).toThrow(UsageError);
  });
});

describe('the connection cap', () => {
  it("is the open-files limit less 64 (and the store's descriptors), at most 10,000; 1,000 where the limit is unknown", () => {
    expect(connectionCap(undefined, 1024, 0)).toBe(960);
    expect(connectionCap(undefined, 1024, 10)).toBe(950);
    expect(connectionCap(undefined, 1_048_576, 0)).toBe(10_000);
    expect(connectionCap(undefined, 40, 0)).toBe(1);
    expect(connectionCap(undefined, undefined, 0)).toBe(1_000);
    expect(defaultMaxConnections(4096)).toBe(4032);
  });

  it('takes --max-connections up to what the limit allows, and refuses more (naming the flag and the limit)', () => {
    expect(connectionCap(500, 1024, 0)).toBe(500);
    expect(connectionCap(960, 1024, 0)).toBe(960);
    expect(connectionCap(50_000, undefined, 0)).toBe(50_000);
    expect(() => connectionCap(961, 1024, 0)).toThrow(UsageError);
    expect(() => connectionCap(2000, 1024, 10)).toThrow(/--max-connections 2000 .*1024 .*at most 950/);
  });

  it('reads the soft open-files limit from /proc/self/limits, and nothing when it is unlimited or unreadable', () => {
    const limits = (soft: string) =>
      `Limit                     Soft Limit           Hard Limit           Units     \nMax processes             63504                63504                processes \nMax open files            ${soft}                 4096                 files     \n`;
    expect(openFilesLimit(() => limits('1024'))).toBe(1024);
    expect(openFilesLimit(() => limits('unlimited'))).toBeUndefined();
    expect(
      openFilesLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    expect(openFilesLimit(() => 'nothing here')).toBeUndefined();
    if (process.platform === 'linux') expect(openFilesLimit()).toBeGreaterThan(0);
  });
});

function depsFor(globals: Record<string, unknown>) {
  const io = memoryIO();
  // A config folder of its own: a person's saved profiles never take part.
  const deps = createDeps(io, readGlobals(globals, {}), { BILLING_CONFIG_DIR: tempDir('billing-config-') });
  return { io, deps };
}

const options = (overrides: Partial<ServeOptions> = {}): ServeOptions => ({
  host: '127.0.0.1',
  port: 0,
  allowPrivateWebhooks: false,
  headersTimeout: 10,
  requestTimeout: 30,
  keepAliveTimeout: 65,
  ...overrides,
});

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
    const response = await fetch(`http://127.0.0.1:${port}/customers`, {
      headers: { 'x-authorization': made.value.apiKey },
    });
    expect(response.status).toBe(200);
    expect((await response.json()).meta.total).toBe(0);

    signals.emit('SIGTERM');
    await running;
    expect(io.stderr).toMatch(/^GET \/customers 200 \d+ms$/m);
    expect(io.stderr).toContain('billing serve: stopped');
    expect(io.stderr).not.toContain(made.value.apiKey);
    expect(io.stdout).toBe('');
    expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
    const core = await deps.runtime('serve', { write: true });
    await expect(
      Promise.resolve().then(() => core.store.read(() => all((q) => q.selectFrom('accounts').select('id')))),
    ).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${port}/customers`)).rejects.toThrow();
    await deps.close();
  });

  it('writes what it catches up on opening under its own policy (private targets refused unless allowed)', async () => {
    for (const allow of [false, true]) {
      const dbPath = tempDbPath();
      // A subscription made by the CLI (private targets allowed), its first collection due, not yet done.
      const core = await openRuntime({ location: dbPath, clock: systemClock });
      try {
        const account = await core.account();
        const post = async (path: string, type: string, attributes: Record<string, unknown>) => {
          const answer = await core.router.handle(
            { method: 'POST', path, body: JSON.stringify({ data: { type, attributes } }) },
            account,
          );
          expect(answer.status).toBe(201);
          return (answer.body as { data: { id: string } }).data.id;
        };
        const customer = await post('/customers', 'customer', {
          first_name: 'A',
          last_name: 'B',
          email: 'a@b.nl',
          iban: 'NL91ABNA0417164300',
          bank_holder: 'A B',
        });
        const { createPlan } = await import('../../src/lib/core/plan-writes.js');
        const plan = await createPlan(
          { store: core.store, clock: core.clock, account },
          { name: 'Gold', amount: '10.00' },
        );
        if (!plan.ok) throw new Error('plan');
        await post('/subscriptions', 'subscription', {
          customer_id: customer,
          subscription_plan_id: plan.value.id,
          status: 'active',
          transaction_webhook_url: 'http://127.0.0.1:9/t',
        });
      } finally {
        await core.store.close();
      }
      const { io, deps } = depsFor({ db: dbPath });
      const signals = new EventEmitter();
      const running = run(options({ allowPrivateWebhooks: allow }), deps, signals);
      await waitFor(() => (io.stderr.includes('listening on') ? true : undefined));
      signals.emit('SIGTERM');
      await running;
      await deps.close();
      const store = await openStore(dbPath);
      try {
        const rows = await store.read(() =>
          all((q) => q.selectFrom('webhook_deliveries').select(['event', 'allow_private']).orderBy('id')),
        );
        const served = allow ? 1 : 0;
        expect(rows.map((r) => [r.event, r.allow_private])).toEqual([
          ['transaction.queued', 1],
          ['transaction.scheduled', 1],
          ['transaction.succeeded', served],
          ['transaction.queued', served],
          ['transaction.scheduled', served],
        ]);
      } finally {
        await store.close();
      }
    }
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

  it('is a usage error when --max-connections is more than the open-files limit allows', async () => {
    const limit = openFilesLimit();
    if (limit === undefined) return; // not Linux: the limit cannot be read, so nothing to exceed
    const { deps } = depsFor({ db: tempDbPath() });
    await expect(run(options({ maxConnections: limit }), deps, new EventEmitter())).rejects.toThrow(
      /--max-connections/,
    );
    await deps.close();
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
