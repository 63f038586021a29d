// The adapter alone, on a bare node:http server: a stub router, a stub authenticator, a captured log.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JSONAPI, type ApiRequest, type ApiResponse } from '../../src/lib/api/http.js';
import type { Account } from '../../src/lib/core/context.js';
import {
  acceptedMediaType,
  bodyText,
  createHttpAdapter,
  requestKey,
  type AdapterOptions,
  type RequestHandler,
} from '../../src/lib/server/http-adapter.js';
import { RawConnection, writeAllThenRead } from './raw.js';

const KEY = 'bk_test-key-123';
const ACCOUNT = { id: 7, name: 'alpha' } as unknown as Account;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function serve(handler: RequestHandler, options: Partial<AdapterOptions> = {}) {
  const lines: string[] = [];
  const adapter = createHttpAdapter({
    handler,
    authenticate: (key) => (key === KEY ? ACCOUNT : undefined),
    log: (line) => lines.push(line),
    ...options,
  });
  const server = createServer(adapter);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, lines, adapter };
}

const ok = (body: unknown = { data: [] }): ApiResponse => ({ status: 200, headers: { 'content-type': JSONAPI }, body });

describe('http adapter', () => {
  it('hands method, path, raw query, raw body and the account to the handler', async () => {
    const seen: { request: ApiRequest; account: Account }[] = [];
    const { url } = await serve({
      handle(request, account) {
        seen.push({ request, account });
        return Promise.resolve(ok());
      },
    });
    const body = '{"data":{"type":"customer"}}';
    const response = await fetch(`${url}/customers/3?include=subscriptions&page[size]=2`, {
      method: 'PATCH',
      headers: { 'x-authorization': KEY, 'content-type': JSONAPI },
      body,
    });
    expect(response.status).toBe(200);
    expect(seen).toEqual([
      {
        request: { method: 'PATCH', path: '/customers/3', query: 'include=subscriptions&page[size]=2', body },
        account: ACCOUNT,
      },
    ]);
  });

  it('passes no body for a GET', async () => {
    const seen: ApiRequest[] = [];
    const { url } = await serve({ handle: (request) => (seen.push(request), Promise.resolve(ok())) });
    await fetch(`${url}/customers`, { headers: { 'x-authorization': KEY } });
    expect(seen[0]).toEqual({ method: 'GET', path: '/customers', query: undefined, body: undefined });
  });

  it('answers 500 Internal Error without stack or SQL when the handler throws, and logs the request', async () => {
    const { url, lines } = await serve({
      handle() {
        const error = new Error('SqliteError: no such column: secret_sauce in SELECT * FROM customers');
        error.stack = `${error.message}\n    at handle (/work/main/src/lib/api/router.ts:1:1)`;
        return Promise.reject(error);
      },
    });
    const response = await fetch(`${url}/customers`, { headers: { 'x-authorization': KEY } });
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe(JSONAPI);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      errors: [{ status: '500', title: 'Internal Error', detail: expect.any(String) }],
    });
    expect(text).not.toMatch(/SELECT|Sqlite|secret_sauce|router\.ts|\bat /);
    expect(lines.at(-1)).toMatch(/^GET \/customers 500 \d+ms$/);
  });

  it('answers 500 when the handler answers something that cannot be written, without its headers', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const { url } = await serve({
      handle: () => Promise.resolve({ status: 200, headers: { location: 'http://x/1' }, body: circular }),
    });
    const response = await fetch(`${url}/customers`, { headers: { 'x-authorization': KEY } });
    expect(response.status).toBe(500);
    expect(response.headers.get('location')).toBeNull();
    expect((await response.json()).errors[0].title).toBe('Internal Error');
  });

  it('answers 500 when the handler gives a header that cannot be sent', async () => {
    const { url } = await serve({
      handle: () =>
        Promise.resolve({ status: 201, headers: { location: 'http://x/1\r\nset-cookie: a=b' }, body: { data: null } }),
    });
    const response = await fetch(`${url}/customers`, { headers: { 'x-authorization': KEY } });
    expect(response.status).toBe(500);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('answers 401 before asking the handler, and when the authenticator itself fails, 500', async () => {
    let called = 0;
    const handler = { handle: () => (called++, Promise.resolve(ok())) };
    const { url } = await serve(handler);
    expect((await fetch(`${url}/customers`)).status).toBe(401);
    expect((await fetch(`${url}/customers`, { headers: { 'x-authorization': 'nope' } })).status).toBe(401);
    expect(called).toBe(0);

    const failing = await serve(handler, {
      authenticate: () => {
        throw new Error('the database connection is not open');
      },
    });
    const response = await fetch(`${failing.url}/customers`, { headers: { 'x-authorization': KEY } });
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('database');
  });

  it('gives 204 no body and still the JSON:API content type', async () => {
    const { url } = await serve({
      handle: () => Promise.resolve({ status: 204, headers: { 'content-type': JSONAPI } }),
    });
    const response = await fetch(`${url}/transactions/1`, { method: 'DELETE', headers: { 'x-authorization': KEY } });
    expect(response.status).toBe(204);
    expect(response.headers.get('content-type')).toBe(JSONAPI);
    expect(await response.text()).toBe('');
  });

  it('sets the JSON:API content type even when the handler left it out', async () => {
    const { url } = await serve({ handle: () => Promise.resolve({ status: 200, headers: {}, body: { data: null } }) });
    const response = await fetch(`${url}/x`, { headers: { 'x-authorization': KEY } });
    expect(response.headers.get('content-type')).toBe(JSONAPI);
  });

  it('refuses a body above its limit with 413 and one without a JSON media type with 415, before the handler', async () => {
    let called = 0;
    const { url } = await serve({ handle: () => (called++, Promise.resolve(ok())) }, { maxBodyBytes: 10 });
    const post = (body: string, contentType?: string) =>
      fetch(`${url}/customers`, {
        method: 'POST',
        headers: { 'x-authorization': KEY, ...(contentType ? { 'content-type': contentType } : {}) },
        body,
      });
    expect((await post('01234567890', JSONAPI)).status).toBe(413);
    expect((await post('0123456789', JSONAPI)).status).toBe(200);
    expect((await post('{}', 'text/plain')).status).toBe(415);
    expect((await post('{}', 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await post('{}', 'APPLICATION/VND.API+JSON; charset=utf-8')).status).toBe(200);
    expect(called).toBe(2);
  });

  it('reads a body sent without a Content-Type, or with an empty one, as JSON', async () => {
    const seen: (string | undefined)[] = [];
    const { url } = await serve({ handle: (request) => (seen.push(request.body), Promise.resolve(ok())) });
    // node:http, not fetch: fetch gives a string body a text/plain type of its own.
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${url}/customers`,
          { method: 'POST', headers: { 'x-authorization': KEY, 'content-length': '2', ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
    expect(await post({})).toBe(200);
    expect(await post({ 'content-type': '' })).toBe(200);
    expect(await post({ 'content-type': ' ' })).toBe(200);
    expect(await post({ 'content-type': 'text/plain' })).toBe(415);
    expect(seen).toEqual(['{}', '{}', '{}']);
    expect(acceptedMediaType(undefined)).toBe(true);
    expect(acceptedMediaType('application/json')).toBe(true);
    expect(acceptedMediaType('application/vnd.api+json; charset=utf-8')).toBe(true);
    expect(acceptedMediaType('text/json')).toBe(false);
    expect(acceptedMediaType('multipart/form-data; boundary=x')).toBe(false);
  });

  it('takes charset=utf-8 as the only parameter of a JSON media type; any other is 415, before the handler', async () => {
    for (const type of [
      'application/vnd.api+json; charset=utf-8',
      'application/vnd.api+json;charset="UTF-8"',
      'Application/Json ; Charset=utf8',
      'application/vnd.api+json;',
    ]) {
      expect(acceptedMediaType(type), type).toBe(true);
    }
    for (const type of [
      'application/vnd.api+json; ext=bogus',
      'application/vnd.api+json; profile="https://example.com/profile"',
      'application/vnd.api+json; charset=utf-8; ext=bogus',
      'application/json; charset=iso-8859-1',
      'application/json; q=1',
      '; charset=utf-8',
      'application/vnd.api+json x; charset=utf-8',
    ]) {
      expect(acceptedMediaType(type), type).toBe(false);
    }
    let called = 0;
    const { url } = await serve({ handle: () => (called++, Promise.resolve(ok())) });
    const post = (contentType: string) =>
      fetch(`${url}/customers`, {
        method: 'POST',
        headers: { 'x-authorization': KEY, 'content-type': contentType },
        body: '{}',
      });
    const refused = await post(`${JSONAPI}; ext=bogus`);
    expect(refused.status).toBe(415);
    expect((await refused.json()).errors[0]).toMatchObject({
      status: '415',
      title: 'Unsupported Media Type',
      detail: expect.stringContaining('charset=utf-8'),
    });
    expect((await post(`${JSONAPI}; charset=utf-8`)).status).toBe(200);
    expect(called).toBe(1);
  });

  it('refuses a body that is not valid UTF-8 with 400 Invalid Document (pointer /data, meta.original null), before the handler', async () => {
    let called = 0;
    const { url } = await serve({ handle: () => (called++, Promise.resolve(ok())) });
    const post = (body: Buffer<ArrayBuffer>) =>
      fetch(`${url}/customers`, { method: 'POST', headers: { 'x-authorization': KEY, 'content-type': JSONAPI }, body });
    const prefix = Buffer.from('{"data":{"type":"customer","attributes":{"first_name":"');
    const suffix = Buffer.from('"}}}');
    for (const bad of [
      [0xff],
      [0xc3],
      [0xc3, 0x28],
      [0xed, 0xa0, 0x80] /* a surrogate, encoded */,
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xc0, 0xaf] /* overlong */,
    ]) {
      const response = await post(Buffer.concat([prefix, Buffer.from(bad), suffix]));
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe(JSONAPI);
      expect(await response.json()).toEqual({
        errors: [
          {
            status: '400',
            title: 'Invalid Document',
            detail: expect.stringContaining('UTF-8'),
            source: { pointer: '/data' },
          },
        ],
        meta: { original: null },
      });
    }
    expect(called).toBe(0);
  });

  it('hands valid UTF-8 over as it is, without a leading byte order mark', async () => {
    const seen: (string | undefined)[] = [];
    const { url } = await serve({ handle: (request) => (seen.push(request.body), Promise.resolve(ok())) });
    const text = '{"data":{"attributes":{"first_name":"Zoë 🐘 Øre"}}}';
    for (const body of [Buffer.from(text), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])]) {
      const response = await fetch(`${url}/customers`, {
        method: 'POST',
        headers: { 'x-authorization': KEY, 'content-type': JSONAPI },
        body,
      });
      expect(response.status).toBe(200);
    }
    expect(seen).toEqual([text, text]);
    expect(bodyText(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('{}');
    expect(bodyText(Buffer.from('\ufeff\ufeff{}'))).toBe('\ufeff{}'); // one mark only
    expect(bodyText(Buffer.from([0x7b, 0xff, 0x7d]))).toBeUndefined();
  });

  it('reads and discards the rest of a refused body, then closes: the client that writes it all first reads the answer', async () => {
    let called = 0;
    const { url, lines } = await serve({ handle: () => (called++, Promise.resolve(ok())) }, { maxBodyBytes: 1024 });
    const port = Number(new URL(url).port);
    const body = Buffer.alloc(8 * 1024 * 1024, 0x20);
    const head = (key: string, type: string) =>
      `POST /customers HTTP/1.1\r\nHost: x\r\nX-Authorization: ${key}\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`;
    for (const [key, type, status] of [
      [KEY, JSONAPI, 413],
      ['nope', JSONAPI, 401],
      [KEY, 'text/plain', 415],
    ] as const) {
      const answer = await writeAllThenRead(port, head(key, type), body, { chunkSize: 256 * 1024 });
      expect(answer.error).toBeUndefined();
      expect(answer.written).toBe(body.length);
      expect(answer.status).toBe(status);
      expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
    }
    expect(called).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines.map((line) => line.replace(/ \d+ms$/, ''))).toEqual([
      'POST /customers 413',
      'POST /customers 401',
      'POST /customers 415',
    ]);
  });

  it('closes without reading more once a refused body passes the drain bound in bytes, or at once when its declared length is past it', async () => {
    const { url } = await serve(
      { handle: () => Promise.resolve(ok()) },
      { maxBodyBytes: 1024, drainBytes: 256 * 1024 },
    );
    const port = Number(new URL(url).port);
    const body = Buffer.alloc(16 * 1024 * 1024, 0x20);
    // Chunked: no declared length, so the server reads until the bound, then closes.
    const chunked = `POST /customers HTTP/1.1\r\nHost: x\r\nX-Authorization: ${KEY}\r\nContent-Type: ${JSONAPI}\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const framed = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
    const cut = await writeAllThenRead(port, chunked, framed, { chunkSize: 64 * 1024 });
    expect(cut.written).toBeLessThan(framed.length);
    expect(cut.error).toBeDefined(); // the broken pipe, past the bound: what the bound is for

    const declared = await RawConnection.open(port);
    declared.write(
      `POST /customers HTTP/1.1\r\nHost: x\r\nX-Authorization: ${KEY}\r\nContent-Type: ${JSONAPI}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    expect((await declared.response()).status).toBe(413);
    expect(await declared.closedWithin(5_000)).toBe(true);
  });

  it('closes a refused request whose body stops coming once the drain time bound passes', async () => {
    const { url, lines } = await serve({ handle: () => Promise.resolve(ok()) }, { drainMs: 300 });
    const connection = await RawConnection.open(Number(new URL(url).port));
    connection.write(
      `POST /customers HTTP/1.1\r\nHost: x\r\nX-Authorization: nope\r\nContent-Type: ${JSONAPI}\r\nContent-Length: 1000\r\n\r\n{"data":`,
    );
    expect((await connection.response()).status).toBe(401);
    expect(connection.isClosed).toBe(false); // still reading what comes
    expect(await connection.closedWithin(5_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines.at(-1)).toMatch(/^POST \/customers 401 \d+ms$/);
    connection.destroy();
  });

  it('answers what admit() gives instead of handling the request, and closes the connection', async () => {
    let called = 0;
    const { url, lines } = await serve(
      { handle: () => (called++, Promise.resolve(ok())) },
      {
        admit: (req) =>
          req.url === '/full'
            ? { status: 503, headers: { 'retry-after': '1' }, body: { errors: [{ status: '503' }] } }
            : undefined,
      },
    );
    const refused = await fetch(`${url}/full`, { headers: { 'x-authorization': KEY } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('connection')).toBe('close');
    expect((await fetch(`${url}/customers`, { headers: { 'x-authorization': KEY } })).status).toBe(200);
    expect(called).toBe(1);
    expect(lines[0]).toMatch(/^GET \/full 503 \d+ms$/);
  });

  it('logs method, path without query, status and the measured ms, and never a header', async () => {
    let t = 1000;
    const { url, lines } = await serve({ handle: () => ((t += 42), Promise.resolve(ok())) }, { now: () => t });
    await fetch(`${url}/customers/1?include=subscriptions`, {
      headers: { 'x-authorization': KEY, cookie: 'session=abc' },
    });
    await fetch(`${url}/customers/1`, { headers: { 'x-authorization': 'bk_someone-else' } });
    expect(lines).toEqual(['GET /customers/1 200 42ms', 'GET /customers/1 401 0ms']);
  });

  it("runs a GET's key check and its answer as one unit (atOnce), and nothing else in it", async () => {
    const seen: string[] = [];
    let inside = false;
    const { url } = await serve(
      {
        handle: (request) => {
          seen.push(`${request.method} answered ${inside ? 'inside' : 'outside'}`);
          return request.method === 'GET' ? ok() : Promise.resolve(ok());
        },
      },
      {
        authenticate: (key) => (
          seen.push(`key checked ${inside ? 'inside' : 'outside'}`),
          key === KEY ? ACCOUNT : undefined
        ),
        atOnce: (fn) => {
          inside = true;
          try {
            return fn();
          } finally {
            inside = false;
          }
        },
      },
    );
    expect((await fetch(`${url}/customers/1`, { headers: { 'x-authorization': KEY } })).status).toBe(200);
    expect(
      (
        await fetch(`${url}/customers`, {
          method: 'POST',
          headers: { 'x-authorization': KEY, 'content-type': JSONAPI },
          body: '{}',
        })
      ).status,
    ).toBe(200);
    expect((await fetch(`${url}/customers/1`, { method: 'DELETE', headers: { 'x-authorization': KEY } })).status).toBe(
      200,
    );
    expect(seen).toEqual([
      'key checked inside',
      'GET answered inside',
      'key checked outside',
      'POST answered outside',
      'key checked outside',
      'DELETE answered outside',
    ]);
  });

  it('answers GETs that arrive together (pipelined) in one unit, after all of them arrived, each in order', async () => {
    const units: string[][] = [];
    let current: string[] | undefined;
    const { url } = await serve(
      { handle: (request) => (current!.push(request.path), ok({ data: request.path })) },
      {
        atOnce: (fn) => {
          current = [];
          units.push(current);
          try {
            return fn();
          } finally {
            current = undefined;
          }
        },
      },
    );
    const { port } = new URL(url);
    const paths = ['/customers/1', '/customers/2', '/customers/3', '/subscription-plans'];
    const raw = paths
      .map((path) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Authorization: ${KEY}\r\n\r\n`)
      .join('');
    const answered = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(raw));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if ((text.match(/HTTP\/1\.1 200/g) ?? []).length === paths.length && text.endsWith('"}')) socket.end();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => (socket.destroy(), reject(new Error(`not all answered: ${text}`))), 2_000).unref();
    });
    expect(units).toEqual([paths]);
    expect([...answered.matchAll(/\{"data":"([^"]+)"\}/g)].map((m) => m[1])).toEqual(paths);
  });

  it('answers 500 to every GET of a unit that could not run (the store closed), and logs each', async () => {
    const { url, lines } = await serve(
      { handle: () => ok() },
      {
        atOnce: () => {
          throw new Error('The database connection is not open');
        },
      },
    );
    const answers = await Promise.all(
      [1, 2, 3].map((n) => fetch(`${url}/customers/${n}`, { headers: { 'x-authorization': KEY } })),
    );
    expect(answers.map((a) => a.status)).toEqual([500, 500, 500]);
    for (const answer of answers) expect(await answer.text()).not.toContain('database');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines.filter((line) => / 500 \d+ms$/.test(line))).toHaveLength(3);
  });

  it('answers a handler that answers at once just like one that waits: status, 500 on a throw or an unwritable body, the log line', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const { url, lines } = await serve({
      handle: (request) => {
        if (request.path === '/throws') throw new Error('SqliteError: no such table: secret_sauce');
        if (request.path === '/circular') return { status: 200, headers: {}, body: circular };
        return { status: 404, headers: {}, body: { errors: [{ status: '404' }] } };
      },
    });
    const get = (path: string) => fetch(`${url}${path}`, { headers: { 'x-authorization': KEY } });
    const missing = await get('/customers/9');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe(JSONAPI);
    expect(await missing.json()).toEqual({ errors: [{ status: '404' }] });
    for (const path of ['/throws', '/circular']) {
      const response = await get(path);
      expect(response.status).toBe(500);
      expect(await response.text()).not.toContain('secret_sauce');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines.filter((line) => line.startsWith('GET')).map((line) => line.replace(/ \d+ms$/, ''))).toEqual([
      'GET /customers/9 404',
      'GET /throws 500',
      'GET /circular 500',
    ]);
  });

  it('counts requests in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const started = new Promise<void>((resolve) => (arrived = resolve));
    const { url, adapter } = await serve({ handle: async () => (arrived(), await gate, ok()) });
    const pending = fetch(`${url}/customers`, { headers: { 'x-authorization': KEY } });
    await started;
    expect(adapter.inFlight).toBe(1);
    release();
    await (await pending).text();
    expect(adapter.inFlight).toBe(0);
  });
});

describe('requestKey', () => {
  it('reads X-Authorization raw or as Bearer, else Authorization: Bearer', () => {
    expect(requestKey({ 'x-authorization': KEY })).toBe(KEY);
    expect(requestKey({ 'x-authorization': ` Bearer ${KEY} ` })).toBe(KEY);
    expect(requestKey({ authorization: `Bearer ${KEY}` })).toBe(KEY);
    expect(requestKey({ authorization: `Basic abc` })).toBeUndefined();
    expect(requestKey({ 'x-authorization': '' })).toBeUndefined();
    expect(requestKey({ 'x-authorization': 'Bearer ' })).toBeUndefined();
    expect(requestKey({})).toBeUndefined();
  });
});
