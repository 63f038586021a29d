// No lock-out by slow or many clients (issue 9, section 4), end to end: the built CLI under
// `ulimit -n 1024`, 1,100 connections that each send half a request and stop, and a normal client
// that must still get its answers. Without the connection cap, accepting fails once the process is
// out of file descriptors and every newcomer is dropped; without making room at the cap, the
// newcomer waits for the stalled ones to time out. Loopback only; bounded in count (1,100 + 200
// connections) and time (a few seconds); everything started here is stopped here.
// "Within a second or two" in the issue; asserted as 5 s, generously, for a shared 2-core machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openFilesLimit } from '../../src/lib/server/limits.js';
import { BIN, ensureBundle, watchServe, TEST_CONFIG_DIR } from '../helpers/cli.js';
import { storeWithAccount } from '../helpers/store.js';

const FD_LIMIT = 1024;
const STALLED = 1_100;
const SOON_MS = 5_000;

// Built again when the bundle predates `billing serve`'s connection limits.
beforeAll(() => ensureBundle('--max-connections'), 120_000);

const children: ChildProcess[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** `billing serve` in `sh -c 'ulimit -n 1024 && exec node …'`. */
function startLimited(args: string[]) {
  const child = spawn(
    'sh',
    ['-c', `ulimit -n ${FD_LIMIT} && exec "$@"`, 'sh', process.execPath, BIN, 'serve', ...args],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  return watchServe(child);
}

/** One GET on a connection of its own; resolves with the status and how long it took. */
function get(port: number, key: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/customers',
        headers: { 'x-authorization': key },
        agent: false,
        timeout: SOON_MS,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${SOON_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

interface Stalled {
  socket: Socket;
  closed: boolean;
}

/** A connection that sends half a request's headers and stops. */
function stall(port: number): Promise<Stalled> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    const stalled: Stalled = { socket, closed: false };
    socket.on('error', () => {});
    socket.on('close', () => (stalled.closed = true));
    socket.on('data', () => {}); // a 408 later, if it comes
    socket.once('connect', () =>
      socket.write('GET /customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Authoriz', () => resolve(stalled)),
    );
    socket.once('close', () => resolve(stalled));
  });
}

describe('billing serve under ulimit -n 1024', () => {
  it(`answers a normal client within ${SOON_MS / 1000} s while ${STALLED} connections hang half-way, and recovers when they go`, async () => {
    const ours = openFilesLimit();
    if (ours !== undefined && ours < STALLED + 400)
      throw new Error(
        `this test opens ${STALLED + 200} connections: it needs an open-files limit of ${STALLED + 400}, not ${ours} (ulimit -n)`,
      );
    const { dbPath, key } = await storeWithAccount();
    // A headers timeout far beyond the test: only the connection cap can keep the door open.
    const server = startLimited(['--port', '0', '--db', dbPath, '--headers-timeout', '30']);
    const port = await server.port;
    if (process.platform === 'linux') {
      expect(openFilesLimit(() => readFileSync(`/proc/${server.child.pid}/limits`, 'utf8'))).toBe(FD_LIMIT);
    }
    expect((await get(port, key)).status).toBe(200);

    // 1,100 half requests, 100 connecting at a time.
    const stalled: Stalled[] = [];
    for (let i = 0; i < STALLED; i += 100)
      stalled.push(...(await Promise.all(Array.from({ length: Math.min(100, STALLED - i) }, () => stall(port)))));
    await new Promise((resolve) => setTimeout(resolve, 200));

    // A normal client, on fresh connections: answered, each soon.
    for (let i = 0; i < 5; i++) {
      const answer = await get(port, key);
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(SOON_MS);
    }
    // The cap held: the server made room by closing the oldest stalled connections (the default
    // cap under 1024 files is 960), and never ran out of descriptors.
    expect(stalled.filter((s) => !s.closed).length).toBeLessThanOrEqual(960);
    expect(stalled.filter((s) => s.closed).length).toBeGreaterThanOrEqual(STALLED - 960);
    expect(server.output().stderr).not.toMatch(/EMFILE|too many open files/i);

    // They go; 200 clients at once are all answered.
    for (const s of stalled) s.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(port, key)));
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200));
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(SOON_MS);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output().stderr).not.toMatch(/EMFILE|too many open files|internal error/i);
  }, 60_000);

  it('refuses a --max-connections the open-files limit cannot hold (exit 2, naming the flag)', async () => {
    const { dbPath } = await storeWithAccount();
    const server = startLimited(['--port', '0', '--db', dbPath, '--max-connections', '2000']);
    server.port.catch(() => {});
    expect(await server.exited).toBe(2);
    expect(server.output().stderr).toContain('--max-connections');
    expect(server.output().stderr).toContain('1024');
  });
});
