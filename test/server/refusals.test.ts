// Refusals the client can read (issue 9, section 3). A client that writes its whole request, body
// included, before it reads anything (as many simple clients do) must read the 413, 401 or 415,
// never a broken pipe: the server answers, then reads and discards the rest of the body (up to a
// bound) before closing. The client here is a raw socket that writes headers and the whole body,
// waits until the last byte was handed to the kernel, and only then starts reading.
import { describe, expect, it } from 'vitest';
import { JSONAPI } from '../../src/lib/api/http.js';
import { createAccount } from '../../src/lib/core/accounts.js';
import { startServer } from '../../src/lib/runtime/serve.js';
import { openStore, type SqliteStore } from '../../src/lib/store/store.js';
import { tempDbPath } from '../helpers/store.js';
import { clock, running, stores } from './servers.js';
import { writeAllThenRead, type RawAnswer } from './raw.js';

async function setup() {
  const store = (await openStore(tempDbPath())) as SqliteStore;
  stores.push(store);
  const made = await createAccount(store, clock, 'alpha');
  if (!made.ok) throw new Error('account');
  const lines: string[] = [];
  const server = await startServer({ store, clock, host: '127.0.0.1', port: 0, log: (line) => lines.push(line) });
  running.push(server);
  return { server, key: made.value.apiKey, lines };
}

const MiB = 1024 * 1024;

function post(key: string, length: number, contentType = JSONAPI): string {
  return `POST /customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Authorization: ${key}\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`;
}

function bodyOf(size: number): Buffer {
  // A JSON document (a customer with a very long name), so only the size is wrong with it.
  const head = '{"data":{"type":"customer","attributes":{"first_name":"';
  const tail = '","last_name":"J","email":"j@example.com"}}}';
  return Buffer.concat([Buffer.from(head), Buffer.alloc(size - head.length - tail.length, 0x78), Buffer.from(tail)]);
}

describe('billing serve: refusals a client that writes everything first still reads', () => {
  const cases = [
    {
      name: '413 for a body over 1 MiB',
      status: 413,
      title: 'Payload Too Large',
      head: (key: string, n: number) => post(key, n),
    },
    {
      name: '401 for a bad key with a body',
      status: 401,
      title: 'Unauthorized',
      head: (_key: string, n: number) => post('bk_not-a-real-key', n),
    },
    {
      name: '415 for a bad media type with a body',
      status: 415,
      title: 'Unsupported Media Type',
      head: (key: string, n: number) => post(key, n, 'text/plain'),
    },
  ];
  for (const size of [2 * MiB, 8 * MiB]) {
    for (const c of cases) {
      it(`${c.name}, ${size / MiB} MiB, 10 tries, every one read`, async () => {
        const { server, key, lines } = await setup();
        const body = bodyOf(size);
        const answers: RawAnswer[] = [];
        for (let i = 0; i < 10; i++) answers.push(await writeAllThenRead(server.port, c.head(key, size), body));
        for (const answer of answers) {
          expect(answer.error, `the client saw ${answer.error}; read: ${answer.text.slice(0, 200)}`).toBeUndefined();
          expect(answer.status).toBe(c.status);
          expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
          const document = JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4));
          expect(document.errors[0]).toMatchObject({ status: String(c.status), title: c.title });
        }
        // Nothing was written, and every refusal has its log line with its status.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(lines.filter((line) => line.startsWith('POST /customers ')).map((line) => line.split(' ')[2])).toEqual(
          Array(10).fill(String(c.status)),
        );
      });
    }
  }

  it('413 for a chunked body that passes 1 MiB, read by a client that writes all 8 MiB first', async () => {
    const { server, key } = await setup();
    const head = `POST /customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Authorization: ${key}\r\nContent-Type: ${JSONAPI}\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const framed = Buffer.concat([
      ...Array.from({ length: 128 }, () =>
        Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
      ),
      Buffer.from('0\r\n\r\n'),
    ]);
    for (let i = 0; i < 3; i++) {
      const answer = await writeAllThenRead(server.port, head, framed);
      expect(answer.error).toBeUndefined();
      expect(answer.status).toBe(413);
    }
  });
});
