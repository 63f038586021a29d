// billing listen: events printed as they happen, from the embedded store written to by another
// process, and from billing serve; --forward-to posting each as a signed webhook delivery; Ctrl-C
// ending it with exit 130. Every process and server started here is stopped by the test, every
// wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { memoryIO, type MemoryIO } from '../../src/lib/cli/io.js';
import type { Transport, TransportRequest } from '../../src/lib/transport/types.js';
import { eventLine, LATE_MS, parseListenOptions, Seen } from '../../src/commands/listen/index.js';
import { BIN, ensureBundle, runCli, TEST_CONFIG_DIR } from '../helpers/cli.js';
import { within } from '../helpers/children.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(
    servers.splice(0).map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))),
  );
});

/** The check a receiver makes, as docs/webhooks.md gives it. */
function verify(secret: string, header: string | undefined, rawBody: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${rawBody}`).digest();
  return (
    timingSafeEqual(expected, Buffer.from(match[2], 'hex')) && Math.abs(Date.now() / 1000 - Number(match[1])) < 300
  );
}

interface Listener {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when the output (stdout + stderr) matches, within 15 s. */
  until(pattern: RegExp): Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `billing listen …` and waits for it to say it is listening (its starting id is fixed by then). */
async function listen(args: string[]): Promise<Listener> {
  const child = spawn(process.execPath, [BIN, 'listen', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const poke = () => waiters.forEach((w) => w());
  child.stdout.on('data', (d) => ((stdout += d), poke()));
  child.stderr.on('data', (d) => ((stderr += d), poke()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const until = (pattern: RegExp) =>
    within(
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(stdout + stderr)) resolve();
          else if (child.exitCode !== null) reject(new Error(`exited ${child.exitCode}: ${stderr}`));
        };
        waiters.push(check);
        void exit.then(check);
        check();
      }),
      15_000,
      `${pattern} in the output of billing listen; stdout: ${stdout}; stderr: ${stderr}`,
    );
  const listener = { child, stdout: () => stdout, stderr: () => stderr, until, exit };
  await until(/listening for events after id \d+/);
  return listener;
}

/** Ctrl-C, and the exit it ends with (within 10 s). */
async function interrupt(listener: Listener): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  listener.child.kill('SIGINT');
  return within(listener.exit, 10_000, 'billing listen to exit after SIGINT');
}

const ndjson = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; type: string; attributes: Record<string, unknown> });

async function ok(args: string[]): Promise<string> {
  const result = await runCli(args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** A store with a plan and a customer, so that a subscription (and its first event) is one command away. */
async function storeReady(db: string, account: string[] = []): Promise<void> {
  await ok(['plans', 'create', '--name', 'Box', '--amount', '10', '--frequency', 'monthly', '--db', db, ...account]);
  await ok([
    'customers',
    'create',
    '--first-name',
    'Ann',
    '--last-name',
    'Lee',
    '--email',
    'ann@example.com',
    '--db',
    db,
    ...account,
  ]);
}

const subscribe = (where: string[]) =>
  ok(['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1', '--json', ...where]);

describe('billing listen, the built CLI', () => {
  beforeAll(() => ensureBundle('listening for events after id'));

  it('prints, as NDJSON, an event another process writes to the embedded store; Ctrl-C ends it with 130', async () => {
    const db = tempDbPath();
    await storeReady(db);
    await subscribe(['--db', db]); // an event from before: not printed without --after
    const listener = await listen(['--json', '--interval', '0.1', '--db', db]);
    expect(listener.stderr()).toContain('listening for events after id 1 ');

    const id = JSON.parse(await subscribe(['--db', db])).data.id as string;
    await listener.until(/"subscription\.unverified"/);
    const [line, ...more] = ndjson(listener.stdout());
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      type: 'event',
      id: '2',
      attributes: { event: 'subscription.unverified', subscription_id: id, transaction_id: null, status: 'unverified' },
    });

    const { code } = await interrupt(listener);
    expect(code).toBe(130);
    expect(listener.stderr()).toContain('stopped after 1 event; to go on from there, run it again with --after 2');
    expect(ndjson(listener.stdout())).toHaveLength(1);
  });

  it('SIGTERM (a supervisor stopping it) ends it as Ctrl-C does: 130, saying where to go on', async () => {
    const db = tempDbPath();
    await storeReady(db);
    const listener = await listen(['--json', '--interval', '0.1', '--db', db]);
    await subscribe(['--db', db]);
    await listener.until(/"subscription\.unverified"/);
    listener.child.kill('SIGTERM');
    expect(await within(listener.exit, 10_000, 'billing listen to exit after SIGTERM')).toEqual({
      code: 130,
      signal: null,
    });
    expect(listener.stderr()).toContain('stopped after 1 event; to go on from there, run it again with --after 1');
  });

  it('--after replays what came since that id, then goes on, one line each', async () => {
    const db = tempDbPath();
    await storeReady(db);
    await subscribe(['--db', db]);
    const listener = await listen(['--after', '0', '--interval', '0.1', '--db', db]);
    await listener.until(/\tsubscription\.unverified\t1\t\n/);
    await subscribe(['--db', db]);
    await listener.until(/\tsubscription\.unverified\t2\t\n/);
    // Not a terminal: tab-separated fields (time, id, event, subscription, transaction).
    expect(listener.stdout()).toMatch(
      /^\S+\t1\tsubscription\.unverified\t1\t\n\S+\t2\tsubscription\.unverified\t2\t\n$/,
    );
    expect((await interrupt(listener)).code).toBe(130);
  });

  it('--forward-to posts each event as its webhook delivery, signed with the account secret; a receiver that fails stops nothing', async () => {
    const db = tempDbPath();
    await storeReady(db);
    const secret = JSON.parse(await ok(['accounts', 'show', 'default', '--json', '--db', db])).webhook_secret as string;
    const got: { method?: string; path?: string; headers: IncomingHttpHeaders; body: string }[] = [];
    let status = 200;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        got.push({ method: req.method, path: req.url, headers: req.headers, body });
        res.writeHead(status).end();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

    const listener = await listen(['--json', '--interval', '0.1', '--forward-to', url, '--db', db]);
    const id = JSON.parse(await subscribe(['--db', db])).data.id as string;
    await listener.until(/event 1 -> 200/);
    expect(got).toHaveLength(1);
    const [delivery] = got;
    expect(delivery.method).toBe('POST');
    expect(delivery.path).toBe('/hooks');
    expect(delivery.body).toBe(JSON.stringify({ subscription_id: id, status: 'unverified' }));
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['billing-event']).toBe('subscription.unverified');
    expect(delivery.headers['billing-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(delivery.headers['user-agent']).toMatch(/^billing\//);
    expect(verify(secret, delivery.headers['billing-signature'] as string, delivery.body)).toBe(true);
    expect(verify('whsec_other', delivery.headers['billing-signature'] as string, delivery.body)).toBe(false);

    // The receiver answers 500, then is gone: both are said, and every event is still printed.
    status = 500;
    await subscribe(['--db', db]);
    await listener.until(/event 2 -> 500/);
    // A secret rotated while it listens signs what it forwards from then on, as deliveries are.
    status = 200;
    const rotated = JSON.parse(
      await ok(['accounts', 'rotate-webhook-secret', 'default', '--yes', '--json', '--db', db]),
    ).webhook_secret as string;
    expect(rotated).not.toBe(secret);
    await subscribe(['--db', db]);
    await listener.until(/event 3 -> 200/);
    expect(verify(rotated, got[2].headers['billing-signature'] as string, got[2].body)).toBe(true);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await subscribe(['--db', db]);
    await listener.until(/warning: event 4 not forwarded to http:\/\/127\.0\.0\.1:\d+\/hooks: ECONNREFUSED/);
    expect(ndjson(listener.stdout()).map((e) => e.id)).toEqual(['1', '2', '3', '4']);
    expect((await interrupt(listener)).code).toBe(130);
  });

  it('a store restored (or reset) under it, its events numbered again from below: says so, and prints the new ones', async () => {
    const db = tempDbPath();
    await storeReady(db);
    await ok(['store', 'snapshot', 'before', '--db', db]);
    const listener = await listen(['--json', '--interval', '0.1', '--db', db]);
    await subscribe(['--db', db]);
    await subscribe(['--db', db]);
    await listener.until(/"id":"2"/);
    await ok(['store', 'restore', 'before', '--yes', '--db', db]);
    await listener.until(/warning: the store's events now end at id 0, below id 2 seen before/);
    await subscribe(['--db', db]);
    await listener.until(/"id":"1".*\n.*"id":"2".*\n.*"id":"1"/);
    expect(ndjson(listener.stdout()).map((e) => e.id)).toEqual(['1', '2', '1']);
    expect((await interrupt(listener)).code).toBe(130);
  }, 30_000);

  it('refuses a --forward-to that is not http(s) with exit 2 before reading anything; against a server it needs --secret', async () => {
    const db = tempDbPath(); // never made
    const ftp = await runCli(['listen', '--forward-to', 'ftp://example.com/x', '--db', db]);
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toBe(
      'error: --forward-to must be an absolute http(s) URL, e.g. http://localhost:3000/webhooks, not "ftp://example.com/x"\n',
    );
    const remote = await runCli([
      'listen',
      '--forward-to',
      'http://localhost:3000/hooks',
      '--base-url',
      'http://127.0.0.1:9',
      '--api-key',
      'bk_x',
    ]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/^error: --forward-to against a server needs --secret/);
  });
});

describe('billing listen against billing serve', () => {
  let serve: ChildProcess | undefined;
  afterEach(async () => {
    if (!serve || serve.exitCode !== null) return;
    const exited = new Promise((resolve) => serve!.once('exit', resolve));
    serve.kill('SIGTERM');
    await within(exited, 10_000, 'billing serve to stop');
  });

  it('polls GET /events on the server and prints what a request to it caused', async () => {
    ensureBundle('listening for events after id');
    const db = tempDbPath();
    const key = JSON.parse(await ok(['accounts', 'create', 'alpha', '--json', '--db', db])).api_key as string;
    await storeReady(db, ['--account', 'alpha']);
    serve = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let seen = '';
    const url = await within(
      new Promise<string>((resolve) =>
        serve!.stderr!.on('data', (chunk) => {
          seen += chunk;
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
          if (match) resolve(match[1]);
        }),
      ),
      10_000,
      'billing serve to listen',
    );
    const remote = ['--base-url', url, '--api-key', key];
    const listener = await listen(['--json', '--interval', '0.1', ...remote]);
    const id = JSON.parse(await subscribe(remote)).data.id as string;
    await listener.until(/"subscription\.unverified"/);
    expect(ndjson(listener.stdout())).toMatchObject([
      { type: 'event', attributes: { event: 'subscription.unverified', subscription_id: id } },
    ]);
    expect((await interrupt(listener)).code).toBe(130);
  });
});

// ---- in process: the loop against a scripted service ----

interface FakeEvent {
  type: 'event';
  id: string;
  attributes: Record<string, unknown>;
}

const fakeEvent = (id: number): FakeEvent => ({
  type: 'event',
  id: String(id),
  attributes: {
    event: 'subscription.active',
    subscription_id: '7',
    transaction_id: null,
    status: 'active',
    occurred_at: '2026-12-01T14:03:07+01:00',
  },
});

/** A service whose visible events the test sets; it records what was asked. */
function scripted(visible: FakeEvent[]): { transport: Transport; asked: TransportRequest[] } {
  const asked: TransportRequest[] = [];
  const transport: Transport = {
    mode: 'embedded',
    request(request) {
      asked.push(request);
      const q = request.query ?? {};
      const ids = visible.map((e) => Number(e.id));
      const data =
        q.sort === '-id'
          ? visible.filter((e) => Number(e.id) === Math.max(...ids))
          : visible
              .filter((e) => Number(e.id) > Number(q['page[after]']))
              .sort((a, b) => Number(a.id) - Number(b.id))
              .slice(0, Number(q['page[size]']));
      return Promise.resolve({ status: 200, headers: {}, body: { data } });
    },
    close: () => Promise.resolve(),
  };
  return { transport, asked };
}

/** Waits (bounded) until the in-process run has printed `lines` lines. */
async function printed(io: MemoryIO, lines: number): Promise<void> {
  for (let i = 0; i < 200 && io.stdout.split('\n').length - 1 < lines; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(io.stdout.split('\n').length - 1).toBe(lines);
}

describe('billing listen, in process', () => {
  const env = () => ({ BILLING_CONFIG_DIR: tempDir('billing-config-') });

  it('prints an event that appears after one with a greater id (PostgreSQL commits out of order) once', async () => {
    const visible = [fakeEvent(1), fakeEvent(3)];
    const { transport } = scripted(visible);
    const io = memoryIO();
    const running = main(['listen', '--json', '--after', '0', '--interval', '0.1'], io, env(), { transport });
    await printed(io, 2);
    visible.push(fakeEvent(2));
    await printed(io, 3);
    await new Promise((resolve) => setTimeout(resolve, 250)); // a few polls more print nothing twice
    io.interrupt('signal');
    expect(await running).toBe(130);
    expect(ndjson(io.stdout).map((e) => e.id)).toEqual(['1', '3', '2']);
    expect(io.stderr).toBe(
      'listening for events after id 0 (Ctrl-C to stop)\nstopped after 3 events; to go on from there, run it again with --after 3\nerror: interrupted\n',
    );
  });

  it('starts after the newest event, pages through a burst, and stops quietly when the reader of stdout goes', async () => {
    const visible = [fakeEvent(5)];
    const { transport, asked } = scripted(visible);
    const io = memoryIO();
    const running = main(['listen', '-o', 'ndjson', '--interval', '0.1'], io, env(), { transport });
    for (let i = 0; i < 200 && !io.stderr.includes('listening'); i++) await new Promise((r) => setTimeout(r, 5));
    for (let id = 6; id <= 255; id++) visible.push(fakeEvent(id));
    await printed(io, 250);
    io.interrupt('pipe');
    expect(await running).toBe(0);
    expect(ndjson(io.stdout).map((e) => Number(e.id))).toEqual(visible.slice(1).map((e) => Number(e.id)));
    expect(asked[0].query).toMatchObject({ sort: '-id', 'page[size]': 1 });
    expect(asked.slice(1).every((r) => r.query?.sort === 'id' && r.query['page[size]'] === 100)).toBe(true);
    expect(io.stderr).toBe('listening for events after id 5 (Ctrl-C to stop)\n');
  });

  it('one line per event: aligned on a terminal, tab-separated otherwise', () => {
    const transaction = {
      ...fakeEvent(12),
      attributes: { ...fakeEvent(12).attributes, event: 'transaction.succeeded', transaction_id: 'abc\x1b[31m' },
    };
    expect(eventLine(fakeEvent(12), true)).toBe(
      '2026-12-01 14:03:07 +01:00  #12  subscription.active       subscription 7',
    );
    expect(eventLine(transaction, true)).toBe(
      '2026-12-01 14:03:07 +01:00  #12  transaction.succeeded     subscription 7  transaction abc\\x1b[31m',
    );
    expect(eventLine(transaction, false)).toBe('2026-12-01T14:03:07+01:00\t12\ttransaction.succeeded\t7\tabc\\x1b[31m');
  });

  it('Seen: ids passed over are asked for again until they have had their time, and forgotten after', () => {
    const seen = new Seen(10, 1_000);
    expect([seen.add(11, 0), seen.add(13, 0), seen.add(13, 0)]).toEqual([true, true, false]);
    seen.settle(500);
    expect(seen.after).toBe(10); // 12 may still come
    expect(seen.add(12, 600)).toBe(true);
    seen.settle(1_000);
    expect(seen.after).toBe(13);
    expect([seen.add(12, 1_000), seen.add(9, 1_000), seen.add(14, 1_000)]).toEqual([false, false, true]);
    expect(seen.last).toBe(14);
    expect(LATE_MS).toBeGreaterThanOrEqual(1_000);
  });

  it('parses its flags: bad values are usage errors', () => {
    expect(parseListenOptions({ after: '3', interval: '0.25', forwardTo: 'http://localhost:3000/x' })).toEqual({
      after: 3,
      subscriptionId: undefined,
      intervalMs: 250,
      forwardTo: 'http://localhost:3000/x',
    });
    expect(() => parseListenOptions({ interval: '0' })).toThrow('--interval must be a number of seconds');
    expect(() => parseListenOptions({ after: '-1' })).toThrow('--after must be an id');
    expect(() => parseListenOptions({ forwardTo: 'localhost:3000' })).toThrow('--forward-to must be an absolute');
    expect(() => parseListenOptions({ secret: 's' })).toThrow('--secret signs what --forward-to sends');
  });
});
