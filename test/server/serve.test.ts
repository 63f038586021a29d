// `billing serve` in process: a real store, a real socket on 127.0.0.1, global fetch as the client.
import { describe, expect, it } from 'vitest';
import { JSONAPI } from '../../src/lib/api/http.js';
import { createAccount, rotateKey } from '../../src/lib/core/accounts.js';
import { startServer, type ServeOptions } from '../../src/lib/runtime/serve.js';
import { openStore, type SqliteStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { tempDbPath } from '../helpers/store.js';
import { clock, running, stores } from './servers.js';

async function setup(options: Partial<ServeOptions> = {}) {
  const store = (await openStore(tempDbPath())) as SqliteStore;
  stores.push(store);
  const made = async (name: string) => {
    const result = await createAccount(store, clock, name);
    if (!result.ok) throw new Error(`account ${name}: ${JSON.stringify(result.failure)}`);
    return result.value.apiKey;
  };
  const keyA = await made('alpha');
  const keyB = await made('beta');
  const lines: string[] = [];
  const server = await startServer({
    store,
    clock,
    host: '127.0.0.1',
    port: 0,
    log: (line) => lines.push(line),
    ...options,
  });
  running.push(server);

  async function request(
    method: string,
    path: string,
    init: { key?: string; body?: unknown; contentType?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== undefined) headers['x-authorization'] = init.key;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] = init.contentType ?? JSONAPI;
    }
    const response = await fetch(`${server.url}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
  }

  return { store, server, keyA, keyB, lines, request };
}

const customer = (email = 'jan@example.com') => ({
  data: { type: 'customer', attributes: { first_name: 'Jan', last_name: 'Jansen', email } },
});

describe('billing serve: authentication', () => {
  it('answers 401 with an error document when X-Authorization is missing', async () => {
    const { request } = await setup();
    const response = await request('GET', '/customers');
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe(JSONAPI);
    expect(response.json.errors[0]).toMatchObject({ status: '401', title: 'Unauthorized' });
  });

  it('answers 401 for an unknown key, also on unknown paths', async () => {
    const { request } = await setup();
    for (const path of ['/customers', '/nothing-here']) {
      const response = await request('GET', path, { key: 'bk_not-a-real-key' });
      expect(response.status).toBe(401);
      expect(response.json.errors[0].title).toBe('Unauthorized');
    }
  });

  it('answers 200 for a known key, raw or as Bearer, in X-Authorization or Authorization', async () => {
    const { request, keyA } = await setup();
    expect((await request('GET', '/customers', { key: keyA })).status).toBe(200);
    expect((await request('GET', '/customers', { key: `Bearer ${keyA}` })).status).toBe(200);
    expect((await request('GET', '/customers', { headers: { authorization: `Bearer ${keyA}` } })).status).toBe(200);
  });

  it('refuses a key on the very next GET once another connection (the CLI) has rotated it', async () => {
    const { request, keyA, store } = await setup();
    expect((await request('GET', '/customers', { key: keyA })).status).toBe(200);
    const cli = await openStore(store.path);
    stores.push(cli);
    const rotated = await rotateKey(cli, clock, 'alpha');
    if (!rotated.ok) throw new Error('rotate failed');
    expect((await request('GET', '/customers', { key: keyA })).status).toBe(401);
    expect((await request('GET', '/customers', { key: rotated.value.apiKey })).status).toBe(200);
  });

  it("accepts the default account's key once it has one", async () => {
    const { request, store } = await setup();
    const rotated = await rotateKey(store, clock, 'default');
    if (!rotated.ok) throw new Error('rotate failed');
    const response = await request('GET', '/customers', { key: rotated.value.apiKey });
    expect(response.status).toBe(200);
    expect(response.json.meta.total).toBe(0);
  });
});

describe('billing serve: every request is scoped to the key’s account', () => {
  it("never shows, changes or counts another account's customers", async () => {
    const { request, keyA, keyB } = await setup();
    const created = await request('POST', '/customers', { key: keyA, body: customer() });
    expect(created.status).toBe(201);
    const id = created.json.data.id;

    const got = await request('GET', `/customers/${id}`, { key: keyB });
    expect(got.status).toBe(404);
    expect(got.json.errors[0].title).toBe('Not Found');

    const patch = { data: { type: 'customer', id, attributes: { first_name: 'Piet' } } };
    const patched = await request('PATCH', `/customers/${id}`, { key: keyB, body: patch });
    expect(patched.status).toBe(404);

    expect((await request('GET', '/customers', { key: keyB })).json.meta.total).toBe(0);
    const own = await request('GET', `/customers/${id}`, { key: keyA });
    expect(own.status).toBe(200);
    expect(own.json.data.attributes.first_name).toBe('Jan');
    expect((await request('GET', '/customers', { key: keyA })).json.meta.total).toBe(1);
  });
});

describe('billing serve: bodies', () => {
  it('answers 413 for a body over 1 MiB and writes nothing', async () => {
    const { request, keyA } = await setup();
    const big = JSON.stringify({
      data: {
        type: 'customer',
        attributes: { first_name: 'x'.repeat(1024 * 1024), last_name: 'J', email: 'j@example.com' },
      },
    });
    const response = await request('POST', '/customers', { key: keyA, body: big });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toBe(JSONAPI);
    expect(response.json.errors[0]).toMatchObject({ status: '413', title: 'Payload Too Large' });
    expect((await request('GET', '/customers', { key: keyA })).json.meta.total).toBe(0);
  });

  it('answers 413 for a chunked body once it passes 1 MiB, without reading all of it', async () => {
    const { server, keyA, request } = await setup();
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const total = 8 * 1024 * 1024;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= total) return controller.close();
        controller.enqueue(chunk);
        sent += chunk.length;
      },
    });
    const response = await fetch(`${server.url}/customers`, {
      method: 'POST',
      headers: { 'x-authorization': keyA, 'content-type': JSONAPI },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect((await response.json()).errors[0].title).toBe('Payload Too Large');
    expect(sent).toBeLessThan(total);
    expect((await request('GET', '/customers', { key: keyA })).json.meta.total).toBe(0);
  });

  it('answers 415 for a text/plain body and writes nothing', async () => {
    const { request, keyA } = await setup();
    const response = await request('POST', '/customers', { key: keyA, body: customer(), contentType: 'text/plain' });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toBe(JSONAPI);
    expect(response.json.errors[0]).toMatchObject({ status: '415', title: 'Unsupported Media Type' });
    expect((await request('GET', '/customers', { key: keyA })).json.meta.total).toBe(0);
  });

  it('answers 415 for the JSON:API media type with a parameter other than charset, and writes nothing', async () => {
    const { request, keyA } = await setup();
    for (const contentType of [
      `${JSONAPI}; ext=bogus`,
      `${JSONAPI}; profile="https://example.com/p"`,
      'application/json; charset=latin1',
    ]) {
      const response = await request('POST', '/customers', { key: keyA, body: customer(), contentType });
      expect(response.status, contentType).toBe(415);
      expect(response.json.errors[0]).toMatchObject({ status: '415', title: 'Unsupported Media Type' });
    }
    expect((await request('GET', '/customers', { key: keyA })).json.meta.total).toBe(0);
    expect(
      (await request('POST', '/customers', { key: keyA, body: customer(), contentType: `${JSONAPI}; charset=UTF-8` }))
        .status,
    ).toBe(201);
  });

  it('accepts application/json with a charset', async () => {
    const { request, keyA } = await setup();
    const response = await request('POST', '/customers', {
      key: keyA,
      body: customer(),
      contentType: 'application/json; charset=utf-8',
    });
    expect(response.status).toBe(201);
  });

  it('passes an invalid document to the router, which answers 400 with meta.original', async () => {
    const { request, keyA } = await setup();
    const response = await request('POST', '/customers', { key: keyA, body: '{not json' });
    expect(response.status).toBe(400);
    expect(response.json.errors[0].title).toBe('Invalid Document');
  });
});

describe('billing serve: routing', () => {
  it('answers 405 with an Allow header from the router', async () => {
    const { request, keyA } = await setup();
    const response = await request('DELETE', '/customers', { key: keyA });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(response.headers.get('content-type')).toBe(JSONAPI);
    expect(response.json.errors[0].title).toBe('Method Not Allowed');
  });

  it('answers HEAD as the GET without its body: the same status and headers, its length, no bytes', async () => {
    const { request, keyA } = await setup();
    expect((await request('POST', '/customers', { key: keyA, body: customer() })).status).toBe(201);
    for (const path of ['/customers/1', '/customers?page[size]=5', '/nothing-here', '/customers/2']) {
      const got = await request('GET', path, { key: keyA });
      const head = await request('HEAD', path, { key: keyA });
      expect([head.status, head.text], path).toEqual([got.status, '']);
      expect(head.headers.get('content-type'), path).toBe(got.headers.get('content-type'));
      expect(Number(head.headers.get('content-length')), path).toBe(Buffer.byteLength(got.text));
    }
    expect((await request('HEAD', '/customers/1')).status).toBe(401);
  });

  it('answers 404 for an unknown path', async () => {
    const { request, keyA } = await setup();
    const response = await request('GET', '/nothing-here', { key: keyA });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe(JSONAPI);
  });

  it('passes the query string to the router', async () => {
    const { request, keyA } = await setup();
    expect((await request('GET', '/customers?page[size]=0', { key: keyA })).json.errors[0]).toMatchObject({
      title: 'Invalid Parameter',
      source: { parameter: 'page[size]' },
    });
    expect((await request('GET', '/customers?page[size]=5', { key: keyA })).json.links.self).toContain(
      'page%5Bsize%5D=5',
    );
  });
});

describe('billing serve: requests that are not HTTP', () => {
  it('answers 400 with an error document and closes', async () => {
    const { server } = await setup();
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write('HELLO THERE\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
      setTimeout(() => (socket.destroy(), reject(new Error('no answer'))), 5_000).unref();
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain(`Content-Type: ${JSONAPI}`);
    expect(JSON.parse(answer.split('\r\n\r\n')[1]).errors[0].status).toBe('400');
  });
});

describe('billing serve: links', () => {
  it('creates with 201 and links to http://127.0.0.1:PORT by default', async () => {
    const { request, keyA, server } = await setup();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const response = await request('POST', '/customers', { key: keyA, body: customer() });
    expect(response.status).toBe(201);
    expect(response.json.data.links.self).toBe(`http://127.0.0.1:${server.port}/customers/${response.json.data.id}`);
    expect(response.headers.get('location')).toBe(response.json.data.links.self);
  });

  it('links to --public-url when given', async () => {
    const { request, keyA } = await setup({ publicUrl: 'https://billing.example.com/' });
    const created = await request('POST', '/customers', { key: keyA, body: customer() });
    expect(created.json.data.links.self).toBe(`https://billing.example.com/customers/${created.json.data.id}`);
    const list = await request('GET', '/customers', { key: keyA });
    expect(list.json.links.self.startsWith('https://billing.example.com/customers')).toBe(true);
  });
});

describe('billing serve: logging', () => {
  it('logs one line per request with method, path, status and ms, and never the key', async () => {
    const { request, keyA, lines, server, store } = await setup();
    await request('GET', '/customers?page[size]=2', { key: keyA });
    await request('POST', '/customers', { key: keyA, body: customer() });
    await request('GET', '/customers/1', { key: keyA });
    await request('GET', '/customers', { key: 'bk_wrong' });
    expect(lines[0]).toBe(`billing serve: listening on ${server.url} (store: ${store.path})`);
    const requests = lines.slice(1);
    expect(requests).toHaveLength(4);
    for (const line of requests) expect(line).toMatch(/^(GET|POST) \/\S* \d{3} \d+ms$/);
    expect(requests.map((line) => line.replace(/ \d+ms$/, ''))).toEqual([
      'GET /customers 200',
      'POST /customers 201',
      'GET /customers/1 200',
      'GET /customers 401',
    ]);
    expect(lines.join('\n')).not.toContain(keyA);
    expect(lines.join('\n')).not.toContain('bk_wrong');
  });

  it('names the public URL in the listening line when one is given', async () => {
    const { lines, server } = await setup({ publicUrl: 'https://billing.example.com' });
    expect(lines[0]).toMatch(
      new RegExp(`^billing serve: listening on ${server.url} \\(store: .+; links: https://billing\\.example\\.com\\)$`),
    );
  });
});

describe('billing serve: shutting down', () => {
  it('waits for a request in progress, then closes the store', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const started = new Promise<void>((resolve) => (arrived = resolve));
    const { server, keyA, store } = await setup({
      handler: () => ({
        async handle() {
          arrived();
          await gate;
          return { status: 200, headers: { 'content-type': JSONAPI }, body: { data: [] } };
        },
      }),
    });
    const inFlight = fetch(`${server.url}/customers`, { headers: { 'x-authorization': keyA } });
    await started;

    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    expect(() => store.read(() => all((q) => q.selectFrom('accounts').select('id')))).not.toThrow();
    // No new connections once closing has begun.
    await expect(fetch(`${server.url}/customers`, { headers: { 'x-authorization': keyA } })).rejects.toThrow();

    release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({ data: [] });
    await closing;
    expect(closed).toBe(true);
    expect(() => store.read(() => all((q) => q.selectFrom('accounts').select('id')))).toThrow();
  });

  it('does not wait for idle keep-alive connections', async () => {
    const { server, request, keyA } = await setup();
    expect((await request('GET', '/customers', { key: keyA })).status).toBe(200);
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('cuts connections still busy after the shutdown timeout', async () => {
    const { server, keyA } = await setup({
      shutdownTimeoutMs: 200,
      handler: () => ({ handle: () => new Promise(() => {}) }),
    });
    const hanging = fetch(`${server.url}/customers`, { headers: { 'x-authorization': keyA } }).then(
      (r) => r.status,
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    expect(await hanging).toBe('cut');
  });
});
