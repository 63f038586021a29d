// billing api -H 'Name: value' and --paginate: headers for a server (Idempotency-Key honoured in
// both modes, the protocol's own refused), and every page of a list as one document or as NDJSON.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cli } from './harness.js';

const customer = (n: number) =>
  JSON.stringify({
    data: { type: 'customer', attributes: { first_name: `F${n}`, last_name: `L${n}`, email: `c${n}@example.com` } },
  });

describe('billing api', () => {
  it('--paginate: every page of a list, merged into one document or a resource a line with -o ndjson', async () => {
    const run = cli();
    await run.seedCustomers(7);
    const merged = await run.run(['api', 'GET', '/customers?page[size]=3', '--paginate']);
    expect(merged.code, merged.stderr).toBe(0);
    const document = JSON.parse(merged.stdout) as { data: { id: string }[]; links: { next: null } };
    expect(document.data.map((c) => c.id)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(document.links.next).toBeNull();
    const lines = await run.run(['api', 'GET', '/customers?page[size]=3', '--paginate', '-o', 'ndjson']);
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    for (const [argv, message] of [
      [['api', 'POST', '/customers', '--paginate'], '--paginate follows the pages of a GET'],
      [['api', 'GET', '/customers/1', '--paginate'], 'answers one resource, not a list'],
    ] as const) {
      const refused = await run.run([...argv]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(message);
    }
  });

  it("-H 'Idempotency-Key: K' makes a POST once; the protocol's own headers and malformed lines are refused", async () => {
    const run = cli();
    for (let i = 0; i < 2; i++) {
      const made = await run.run(['api', 'POST', '/customers', '-H', 'Idempotency-Key: k-1', '--data', customer(1)]);
      expect(made.code, made.stderr).toBe(0);
      expect(JSON.parse(made.stdout).data.id).toBe('1');
    }
    expect(await run.customerCount()).toBe(1);
    for (const line of ['Authorization: Bearer x', 'X-Authorization: k', 'Content-Type: text/plain', 'no colon']) {
      const refused = await run.run(['api', 'GET', '/customers', '-H', line]);
      expect(refused.code, line).toBe(2);
    }
  });

  it('sends other headers to a server, beside its own', async () => {
    let seen: IncomingHttpHeaders | undefined;
    const server = createServer((request, response) => {
      seen = request.headers;
      response.writeHead(200, { 'content-type': 'application/vnd.api+json' });
      response.end(JSON.stringify({ data: [], links: { self: '/customers', next: null }, meta: { total: 0 } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const run = cli();
      const result = await run.run(
        [
          '--base-url',
          url,
          '--api-key',
          'k',
          'api',
          'GET',
          '/customers',
          '-H',
          'X-Request-Id: abc-1',
          '-H',
          'X-Trace:  t ',
        ],
        { real: true },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(seen).toMatchObject({ 'x-request-id': 'abc-1', 'x-trace': 't', 'x-authorization': 'k' });
    } finally {
      server.close();
    }
  });
});
