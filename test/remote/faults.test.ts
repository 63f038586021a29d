// Remote mode when things go wrong: retries (which, how many, how long), timeouts, refused
// connections, authentication, error documents, broken answers and links to other hosts.
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpTransport, retryAfterMs, type HttpOptions } from '../../src/lib/transport/http.js';
import { BASE, fixture, JSONAPI, KEY, rebase, remoteEnv, run } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.disableNetConnect();
});
afterAll(() => nock.enableNetConnect());

const CUSTOMER = fixture('customer-get-customer.json').response.body as object;
const JSON_HEADERS = { 'content-type': JSONAPI };
const unavailable = { errors: [{ status: '503', title: 'Service Unavailable', detail: 'down for maintenance' }] };
const newCustomer = JSON.stringify({
  data: { type: 'customer', attributes: { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' } },
});

/** An interceptor answering `status` every time, counting the requests it got. */
function counted(
  method: 'get' | 'post' | 'patch' | 'delete',
  path: string,
  status: number,
  body: object = unavailable,
  headers: Record<string, string> = JSON_HEADERS,
) {
  const hits = { count: 0 };
  const scope = nock(BASE);
  scope[method](path)
    .times(20)
    .reply(() => {
      hits.count++;
      return [status, body, headers];
    });
  return hits;
}

/** The transport with a recording sleep and no jitter, so delays are exact and the test instant. */
function transport(options: Partial<HttpOptions> = {}) {
  const sleeps: number[] = [];
  const t = httpTransport({
    baseUrl: BASE,
    apiKey: KEY,
    timeoutMs: 2000,
    backoffMs: 1,
    sleep: (ms) => (sleeps.push(ms), Promise.resolve()),
    random: () => 1,
    ...options,
  });
  return { t, sleeps };
}

describe('retries (CLI, default backoff)', () => {
  it('a GET answered 503 then 200 succeeds after one retry', async () => {
    const scope = nock(BASE)
      .get('/customers/1')
      .reply(503, unavailable, JSON_HEADERS)
      .get('/customers/1')
      .reply(200, CUSTOMER, JSON_HEADERS);
    const r = await run(['customers', 'get', '1', '--json'], remoteEnv());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    scope.done(); // both answers used: exactly two requests (a third would find no interceptor)
    expect(JSON.parse(r.stdout)).toEqual(CUSTOMER);
  });

  it('a DELETE answered 502 then 204 succeeds after one retry', async () => {
    const scope = nock(BASE).delete('/invoices/1').reply(502).delete('/invoices/1').reply(204);
    const r = await run(['api', 'DELETE', '/invoices/1'], remoteEnv());
    expect(r.code).toBe(0);
    scope.done();
  });

  it.each([
    ['POST', 'post', '/customers'],
    ['PATCH', 'patch', '/customers/1'],
  ] as const)('a %s answered 503 is not retried: exit 1, exactly one request', async (method, lower, path) => {
    const hits = counted(lower, path, 503);
    const r = await run(['api', method, path, '--data', newCustomer], remoteEnv());
    expect(r.code).toBe(1);
    expect(hits.count).toBe(1);
    expect(r.stderr).toBe('error: Service Unavailable: down for maintenance\n');
    expect(r.stdout).toBe('');
  });

  it('a POST is not retried after a connection error either', async () => {
    let count = 0;
    nock(BASE)
      .post('/customers')
      .times(5)
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .on('request', () => count++);
    const r = await run(['api', 'POST', '/customers', '--data', newCustomer], remoteEnv());
    expect(r.code).toBe(3);
    expect(count).toBe(1);
    expect(r.stderr).toMatch(/^error: cannot reach https:\/\/api\.test: /);
  });

  it('a GET always answered 503 is tried 1 + 3 times, then exits 1 with the error printed', async () => {
    const hits = counted('get', '/customers/1', 503);
    const r = await run(['customers', 'get', '1'], remoteEnv());
    expect(r.code).toBe(1);
    expect(hits.count).toBe(4);
    expect(r.stderr).toBe('error: Service Unavailable: down for maintenance\n');
    expect(r.stdout).toBe('');
    expect(r.ms).toBeLessThan(2500); // 250 + 500 + 1000 ms at most, with jitter
  });
});

describe('retries (transport, injected sleep)', () => {
  it('backs off exponentially with jitter between half and the full delay', async () => {
    for (const [random, expected] of [
      [() => 1, [100, 200, 400]],
      [() => 0, [50, 100, 200]],
    ] as const) {
      const hits = counted('get', '/customers/1', 500);
      const { t, sleeps } = transport({ backoffMs: 100, random });
      const response = await t.request({ method: 'GET', path: '/customers/1' });
      expect(response.status).toBe(500); // the last answer, for the command to report
      expect(response.body).toEqual(unavailable);
      expect(hits.count).toBe(4);
      expect(sleeps).toEqual(expected);
      nock.cleanAll();
    }
  });

  it('makes 1 + retries requests', async () => {
    const hits = counted('get', '/customers/1', 503);
    const { t, sleeps } = transport({ retries: 2 });
    expect((await t.request({ method: 'GET', path: '/customers/1' })).status).toBe(503);
    expect(hits.count).toBe(3);
    expect(sleeps).toHaveLength(2);
  });

  it('honours Retry-After in seconds on a 429', async () => {
    const scope = nock(BASE)
      .get('/customers')
      .reply(429, {}, { 'retry-after': '2' })
      .get('/customers')
      .reply(200, { data: [] }, JSON_HEADERS);
    const { t, sleeps } = transport();
    const response = await t.request({ method: 'GET', path: '/customers' });
    expect(response.status).toBe(200);
    scope.done();
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 5000).toUTCString(); // whole seconds: 4 to 5 s from now
    const scope = nock(BASE)
      .get('/customers')
      .reply(503, unavailable, { 'retry-after': at })
      .get('/customers')
      .reply(200, { data: [] }, JSON_HEADERS);
    const { t, sleeps } = transport();
    expect((await t.request({ method: 'GET', path: '/customers' })).status).toBe(200);
    scope.done();
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(3000); // 4 s at least, less the time the test took
    expect(sleeps[0]).toBeLessThanOrEqual(5000);
  });

  it('reads Retry-After as seconds or a date, and ignores what it cannot read', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Sat, 21 Nov 2026 10:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0); // in the past: at once
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('a Retry-After longer than the client waits ends the retries', async () => {
    const hits = counted(
      'get',
      '/customers',
      429,
      { errors: [{ status: '429', title: 'Too Many Requests' }] },
      { ...JSON_HEADERS, 'retry-after': '3600' },
    );
    const { t, sleeps } = transport();
    const response = await t.request({ method: 'GET', path: '/customers' });
    expect(response.status).toBe(429);
    expect(hits.count).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('a 429 on a POST is not retried, Retry-After or not', async () => {
    const hits = counted('post', '/customers', 429, {}, { 'retry-after': '1' });
    const { t, sleeps } = transport();
    expect((await t.request({ method: 'POST', path: '/customers', body: {} })).status).toBe(429);
    expect(hits.count).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('a POST to a server that honours Idempotency-Key (its 429 names the key) is sent again after Retry-After, with the same key', async () => {
    const keys: string[] = [];
    nock(BASE)
      .post('/customers')
      .times(2)
      .reply(function () {
        const key = this.req.headers['idempotency-key'];
        keys.push(key);
        return keys.length === 1
          ? [429, unavailable, { ...JSON_HEADERS, 'retry-after': '2', 'idempotency-key': key }]
          : [201, CUSTOMER, { ...JSON_HEADERS, 'idempotency-key': key }];
      });
    const { t, sleeps } = transport();
    expect((await t.request({ method: 'POST', path: '/customers', body: {} })).status).toBe(201);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(sleeps).toEqual([2000]);
  });

  it('4xx other than 429 is never retried', async () => {
    const hits = counted('get', '/customers/9', 404, { errors: [{ status: '404', title: 'Not Found' }] });
    const { t, sleeps } = transport();
    expect((await t.request({ method: 'GET', path: '/customers/9' })).status).toBe(404);
    expect(hits.count).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('a GET is retried after a connection error', async () => {
    const scope = nock(BASE)
      .get('/customers/1')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .get('/customers/1')
      .reply(200, CUSTOMER, JSON_HEADERS);
    const { t, sleeps } = transport();
    expect((await t.request({ method: 'GET', path: '/customers/1' })).status).toBe(200);
    scope.done();
    expect(sleeps).toEqual([1]);
  });
});

// ---- real sockets on 127.0.0.1 ----

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Slow {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** A server that answers after `delayMs`, or sends the headers at once and stalls the body. */
async function slowServer(delayMs: number, mode: 'headers' | 'body' = 'headers'): Promise<Slow> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((_req, res) => {
    if (mode === 'body') {
      res.writeHead(200, JSON_HEADERS);
      res.write('{"data":');
    }
    const timer = setTimeout(() => {
      if (!res.headersSent) res.writeHead(200, JSON_HEADERS);
      res.end(mode === 'body' ? 'null}' : JSON.stringify(CUSTOMER));
    }, delayMs);
    timers.add(timer);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('unreachable', () => {
  let slow: Slow | undefined;
  afterEach(async () => {
    await slow?.close();
    slow = undefined;
  });

  it('a refused connection exits 3 within a few seconds', async () => {
    nock.enableNetConnect('127.0.0.1');
    const port = await freePort();
    const r = await run(['customers', 'get', '1'], remoteEnv({ BILLING_BASE_URL: `http://127.0.0.1:${port}` }));
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`error: cannot reach http://127.0.0.1:${port}: connection refused\n`);
    expect(r.stdout).toBe('');
    expect(r.ms).toBeLessThan(5000);
  });

  it('a server slower than --timeout exits 3', async () => {
    nock.enableNetConnect('127.0.0.1');
    slow = await slowServer(3000);
    const r = await run(['customers', 'get', '1', '--timeout', '0.5'], remoteEnv({ BILLING_BASE_URL: slow.url }));
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`error: no answer from ${slow.url} within 0.5 s (--timeout)\n`);
    expect(r.ms).toBeLessThan(2500);
  });

  it('a server that stalls in the middle of the body exits 3 too, not as a crash', async () => {
    nock.enableNetConnect('127.0.0.1');
    slow = await slowServer(3000, 'body');
    const r = await run(['customers', 'get', '1', '--timeout', '0.5'], remoteEnv({ BILLING_BASE_URL: slow.url }));
    expect(r.stderr).toBe(`error: no answer from ${slow.url} within 0.5 s (--timeout)\n`);
    expect(r.code).toBe(3);
    expect(r.ms).toBeLessThan(2500);
  });

  it('a connection dropped in the middle of the body exits 3', async () => {
    let count = 0;
    const server = createServer((_req, res) => {
      count++;
      res.writeHead(200, { ...JSON_HEADERS, 'content-length': '1000' });
      res.write('{"data":', () => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    nock.enableNetConnect('127.0.0.1');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const { t } = transport({ baseUrl: url, retries: 1 });
      await expect(t.request({ method: 'GET', path: '/customers/1' })).rejects.toMatchObject({
        name: 'ServiceUnreachableError',
      });
      expect(count).toBe(2); // a GET: retried like any other connection error
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a request whose caller gives up (billing listen's Ctrl-C) is cut at once, not retried, with the caller's reason", async () => {
    nock.enableNetConnect('127.0.0.1');
    slow = await slowServer(3000);
    let count = 0;
    slow.server.on('request', () => count++);
    const { t, sleeps } = transport({ baseUrl: slow.url });
    const stop = new AbortController();
    const started = Date.now();
    const pending = t.request({ method: 'GET', path: '/customers/1', signal: stop.signal });
    setTimeout(() => stop.abort(new Error('given up')), 100);
    await expect(pending).rejects.toThrow('given up');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(count).toBe(1);
    expect(sleeps).toEqual([]);
  });
});

describe('authentication', () => {
  const unauthorized = {
    errors: [{ status: '401', title: 'Unauthorized', detail: 'The API key is missing or unknown' }],
  };

  it('no key: 401 exits 4', async () => {
    const scope = nock(BASE, { badheaders: ['x-authorization'] })
      .get('/customers/1')
      .reply(401, unauthorized, JSON_HEADERS);
    const r = await run(['customers', 'get', '1'], remoteEnv({ BILLING_API_KEY: undefined }));
    expect(r.code).toBe(4);
    scope.done();
    expect(r.stderr).toBe(
      'error: authentication failed: Unauthorized: The API key is missing or unknown\n' +
        'hint: no API key was sent: use --api-key, BILLING_API_KEY or `billing profiles add NAME --base-url URL --api-key KEY`\n',
    );
  });

  it('a wrong key: 401 exits 4, not retried; --json prints the error document', async () => {
    let count = 0;
    nock(BASE, { reqheaders: { 'x-authorization': 'k_wrong' } })
      .get('/customers/1')
      .times(2)
      .reply(() => {
        count++;
        return [401, unauthorized, JSON_HEADERS];
      });
    const r = await run(['customers', 'get', '1', '--api-key', 'k_wrong'], remoteEnv());
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: authentication failed: /);
    expect(r.stderr).toContain(
      `hint: ${BASE} did not accept the API key; check it (--api-key, BILLING_API_KEY) or get a new one\n`,
    );
    const json = await run(['customers', 'get', '1', '--api-key', 'k_wrong', '--json'], remoteEnv());
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toEqual(unauthorized);
    expect(count).toBe(2);
  });
});

describe('error documents', () => {
  const invalid = {
    errors: [
      {
        status: '400',
        title: 'Invalid Attribute',
        detail: 'email is not a valid email address',
        source: { pointer: '/data/attributes/email' },
      },
      {
        status: '400',
        title: 'Invalid Attribute',
        detail: 'The IBAN is not valid',
        source: { pointer: '/data/attributes/iban' },
      },
    ],
    meta: { original: JSON.parse(newCustomer) },
  };

  it('one line per error on stderr, with the field it points at; exit 1', async () => {
    nock(BASE).post('/customers').reply(400, invalid, JSON_HEADERS);
    const r = await run(['api', 'POST', '/customers', '--data', newCustomer], remoteEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'error: email: is not a valid email address',
      'error: iban: The IBAN is not valid',
    ]);
  });

  it('with --json the error document goes to stdout unchanged', async () => {
    nock(BASE).post('/customers').reply(400, invalid, JSON_HEADERS);
    const r = await run(['api', 'POST', '/customers', '--data', newCustomer, '--json'], remoteEnv());
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual(invalid);
    expect(r.stderr).toBe('');
  });

  it('a parameter error names the parameter; a document error its title', async () => {
    nock(BASE)
      .get('/customers?page[size]=500')
      .reply(
        400,
        {
          errors: [
            {
              status: '400',
              title: 'Invalid Parameter',
              detail: 'must be 1 to 100',
              source: { parameter: 'page[size]' },
            },
          ],
        },
        JSON_HEADERS,
      )
      .get('/customers/1')
      .reply(
        400,
        {
          errors: [
            { status: '400', title: 'Invalid Document', detail: 'data is missing', source: { pointer: '/data' } },
          ],
        },
        JSON_HEADERS,
      );
    // Through `api`: `customers list --page-size 500` is refused before anything is sent.
    const parameter = await run(['api', 'GET', '/customers?page[size]=500'], remoteEnv());
    expect(parameter.code).toBe(1);
    expect(parameter.stderr).toBe('error: page[size]: must be 1 to 100\n');
    const document = await run(['api', 'GET', '/customers/1'], remoteEnv());
    expect(document.code).toBe(1);
    expect(document.stderr).toBe('error: Invalid Document: data is missing\n');
  });

  it('a 404 exits 1', async () => {
    nock(BASE)
      .get('/customers/9')
      .reply(404, { errors: [{ status: '404', title: 'Not Found', detail: 'no customer 9' }] }, JSON_HEADERS);
    const r = await run(['customers', 'get', '9'], remoteEnv());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: Not Found: no customer 9\n');
  });

  it('an error answer that is not JSON (a proxy page) exits 1 and says so', async () => {
    nock(BASE).post('/customers').reply(502, '<html><body>Bad Gateway</body></html>', { 'content-type': 'text/html' });
    const r = await run(['api', 'POST', '/customers', '--data', newCustomer], remoteEnv());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: the service answered 502 without an error document\n');
  });
});

describe('broken answers', () => {
  it('a success whose body is not JSON exits 1', async () => {
    nock(BASE).get('/customers/1').reply(200, '<html>maintenance</html>', { 'content-type': 'text/html' });
    const r = await run(['customers', 'get', '1'], remoteEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: the service answered 200 with a body that is not JSON\n');
  });

  it('a redirect is not followed (the key stays home): exit 1', async () => {
    const evil = nock('https://evil.test').get(/.*/).reply(200, CUSTOMER);
    nock(BASE).get('/customers/1').reply(302, '', { location: 'https://evil.test/customers/1' });
    const r = await run(['customers', 'get', '1'], remoteEnv());
    expect(r.code).toBe(1);
    expect(evil.isDone()).toBe(false);
    expect(r.stderr).toMatch(
      /^error: the service answered 302 redirecting to https:\/\/evil\.test\/customers\/1; redirects are not followed/,
    );
  });
});

describe('links to another origin', () => {
  it('--all refuses a links.next on another host: non-zero exit, nothing sent there', async () => {
    const page1 = rebase(
      fixture('customer-list-customer.json').response.body as { links: Record<string, string | null> },
    );
    page1.links.next = 'https://evil.test/customers?page[number]=2&page[size]=10';
    let leaked = 0;
    nock('https://evil.test')
      .get(/.*/)
      .times(5)
      .reply(() => {
        leaked++;
        return [200, { data: [], links: { next: null } }];
      });
    const scope = nock(BASE).get('/customers?page[number]=1').reply(200, page1, JSON_HEADERS);
    const r = await run(['customers', 'list', '--all', '--json'], remoteEnv());
    scope.done();
    expect(r.code).not.toBe(0);
    expect(leaked).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: refusing to follow a link to https://evil.test: it is not https://api.test\n');
  });

  it('also through `billing api` with an absolute URL', async () => {
    const evil = nock('https://evil.test').get(/.*/).reply(200, {});
    const r = await run(['api', 'GET', 'https://evil.test/customers'], remoteEnv());
    expect(r.code).not.toBe(0);
    expect(evil.isDone()).toBe(false);
  });

  it('an absolute link on the same origin is followed', async () => {
    const scope = nock(BASE, { reqheaders: { 'x-authorization': KEY } })
      .get('/customers/1')
      .reply(200, CUSTOMER, JSON_HEADERS);
    const r = await run(['api', 'GET', `${BASE}/customers/1`], remoteEnv());
    expect(r.code).toBe(0);
    scope.done();
  });
});
