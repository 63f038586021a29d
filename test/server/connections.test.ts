// No lock-out by slow or many clients (issue 9, section 4), in process: the connection cap and who
// makes room at it (idle keep-alive connections first, least recently asked first; then the oldest
// that stalled before its first request's headers; never one with a request in progress: then the
// newcomer gets 503), and the headers, request and keep-alive timeouts.
// Time bounds here are generous (5 s) on purpose; they only tell "soon" from "never".
import { afterEach, describe, expect, it } from 'vitest';
import { JSONAPI } from '../../src/lib/api/http.js';
import { createAccount } from '../../src/lib/core/accounts.js';
import { startServer, type ServeOptions } from '../../src/lib/runtime/serve.js';
import { openStore, type SqliteStore } from '../../src/lib/store/store.js';
import { tempDbPath } from '../helpers/store.js';
import { clock, running, stores } from './servers.js';
import { RawConnection } from './raw.js';

const sockets: RawConnection[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

async function setup(options: Partial<ServeOptions> = {}) {
  const store = (await openStore(tempDbPath())) as SqliteStore;
  stores.push(store);
  const made = await createAccount(store, clock, 'alpha');
  if (!made.ok) throw new Error('account');
  const lines: string[] = [];
  const server = await startServer({
    store,
    clock,
    host: '127.0.0.1',
    port: 0,
    log: (line) => lines.push(line),
    shutdownTimeoutMs: 500,
    ...options,
  });
  running.push(server);
  const open = async () => {
    const connection = await RawConnection.open(server.port);
    sockets.push(connection);
    return connection;
  };
  /** A connection that has asked one GET and had its 200: idle, kept alive. */
  const idle = async () => {
    const connection = await open();
    connection.get('/customers', made.value.apiKey);
    expect((await connection.response()).status).toBe(200);
    return connection;
  };
  /** A connection that sent half a request's headers and stopped. */
  const stalled = async () => {
    const connection = await open();
    connection.write('GET /customers HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    return connection;
  };
  return { server, key: made.value.apiKey, lines, open, idle, stalled };
}

/** Lets the server see what was just written (a connection accepted, bytes parsed). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('billing serve: the connection cap', () => {
  it('closes the idle keep-alive connection asked least recently to make room for a newcomer', async () => {
    const { idle, open, key, lines } = await setup({ maxConnections: 3 });
    const a = await idle();
    const b = await idle();
    const c = await idle();
    a.get('/customers', key); // a is now the most recently asked: b is the one idle longest
    expect((await a.response()).status).toBe(200);
    const d = await open();
    d.get('/customers', key);
    expect((await d.response()).status).toBe(200);
    expect(await b.closedWithin(5_000)).toBe(true);
    for (const connection of [a, c, d]) {
      expect(connection.isClosed).toBe(false);
      connection.get('/customers', key);
      expect((await connection.response()).status).toBe(200);
    }
    // Said once, not once per connection closed.
    const e = await open();
    e.get('/customers', key);
    expect((await e.response()).status).toBe(200);
    expect(lines.filter((line) => line.includes('at the connection limit'))).toEqual([
      'billing serve: at the connection limit (3, --max-connections): closing idle or stalled connections for newcomers (said at most once a minute)',
    ]);
  });

  it('closes idle connections first, then the oldest one stalled in its headers; never one whose request is in progress', async () => {
    const { idle, stalled, open, key } = await setup({ maxConnections: 3 });
    const a = await idle();
    const b = await stalled();
    const c = await stalled();
    await settle();
    const d = await open();
    d.get('/customers', key);
    expect((await d.response()).status).toBe(200);
    expect(await a.closedWithin(5_000)).toBe(true);
    expect(b.isClosed || c.isClosed).toBe(false);

    // With d gone and a third stalled one in its place, no one is idle: a newcomer takes the place
    // of the one stalled longest.
    d.destroy();
    const f = await stalled();
    await settle();
    const e = await open();
    e.get('/customers', key);
    expect((await e.response()).status).toBe(200);
    expect(await b.closedWithin(5_000)).toBe(true);
    expect(c.isClosed || f.isClosed).toBe(false);
  });

  it('answers a newcomer 503 with Retry-After and closes it when every connection has a request in progress; those finish', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrivals = 0;
    const { open, key, lines } = await setup({
      maxConnections: 2,
      handler: () => ({
        async handle() {
          arrivals++;
          await gate;
          return { status: 200, headers: { 'content-type': JSONAPI }, body: { data: [] } };
        },
      }),
    });
    const a = await open();
    const b = await open();
    a.get('/customers', key);
    b.get('/customers', key);
    for (let i = 0; i < 100 && arrivals < 2; i++) await settle();
    expect(arrivals).toBe(2);

    const c = await open();
    c.get('/customers', key);
    const refused = await c.response();
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.connection).toBe('close');
    expect(refused.headers['content-type']).toBe(JSONAPI);
    expect(JSON.parse(refused.body).errors[0]).toMatchObject({ status: '503', title: 'Service Unavailable' });
    expect(await c.closedWithin(5_000)).toBe(true);
    expect(arrivals).toBe(2); // the handler never saw it

    release();
    expect((await a.response()).status).toBe(200);
    expect((await b.response()).status).toBe(200);
    expect(lines.some((line) => /^GET \/customers 503 \d+ms$/.test(line))).toBe(true);
    expect(
      lines.some((line) =>
        line.includes(
          'at the connection limit (2, --max-connections): every connection has a request in progress; newcomers get 503',
        ),
      ),
    ).toBe(true);

    // With a and b idle again, a newcomer is served (one of them makes room).
    const d = await open();
    d.get('/customers', key);
    expect((await d.response()).status).toBe(200);
  });

  it('closes, after the idle and stalled ones, a connection only reading the rest of a refused body (its 401 is out)', async () => {
    const { open, key } = await setup({ maxConnections: 2 });
    const refusedWhileSending = async () => {
      const connection = await open();
      connection.write(
        `POST /customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Authorization: bk_wrong\r\nContent-Type: ${JSONAPI}\r\nContent-Length: 100000\r\n\r\n{"data":`,
      );
      expect((await connection.response()).status).toBe(401);
      return connection;
    };
    const a = await refusedWhileSending();
    const b = await refusedWhileSending();
    expect(a.isClosed || b.isClosed).toBe(false); // both still being read (for up to 10 s)
    const c = await open();
    c.get('/customers', key);
    expect((await c.response()).status).toBe(200);
    expect(await a.closedWithin(5_000)).toBe(true);
    expect(b.isClosed).toBe(false);
  });

  it('recovers when stalled connections go: the cap counts only the connections still open', async () => {
    const { stalled, open, key } = await setup({ maxConnections: 5 });
    const many = await Promise.all(Array.from({ length: 5 }, stalled));
    await settle();
    for (const connection of many) connection.destroy();
    await settle();
    // Five new connections at once, each kept open after its answer: all fit, none is closed for another.
    const fresh = await Promise.all(Array.from({ length: 5 }, open));
    for (const connection of fresh) connection.get('/customers', key);
    for (const connection of fresh) expect((await connection.response()).status).toBe(200);
    await settle();
    expect(fresh.filter((connection) => connection.isClosed)).toHaveLength(0);
  });
});

describe('billing serve: timeouts', () => {
  it('answers 408 and closes a connection whose headers do not arrive within the headers timeout', async () => {
    const { stalled } = await setup({ headersTimeoutMs: 500 });
    const started = performance.now();
    const connection = await stalled();
    const answer = await connection.response(5_000);
    expect(answer.status).toBe(408);
    expect(await connection.closedWithin(5_000)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('closes a connection that sends nothing at all after twice the headers timeout', async () => {
    const { open } = await setup({ headersTimeoutMs: 300 });
    const connection = await open();
    expect(await connection.closedWithin(5_000)).toBe(true);
  });

  it('does not count the time a keep-alive connection waits between requests against the headers timeout', async () => {
    const { idle, key } = await setup({ headersTimeoutMs: 300 });
    const connection = await idle();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(connection.isClosed).toBe(false);
    connection.get('/customers', key);
    expect((await connection.response()).status).toBe(200);
  });

  it('answers 408 when a body does not arrive within the request timeout', async () => {
    const { open, key } = await setup({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const connection = await open();
    connection.write(
      `POST /customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Authorization: ${key}\r\nContent-Type: ${JSONAPI}\r\nContent-Length: 100\r\n\r\n{"data":`,
    );
    const answer = await connection.response(5_000);
    expect(answer.status).toBe(408);
    expect(await connection.closedWithin(5_000)).toBe(true);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { idle } = await setup({ keepAliveTimeoutMs: 200 });
    const connection = await idle();
    expect(await connection.closedWithin(5_000)).toBe(true);
  });
});
