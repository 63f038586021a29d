// The doors the conformance scenarios go through. A door opens a fresh service (an empty store) and
// hands out a Transport to it, plus what the API itself cannot do: making plans, which are
// read-only over the API (an operator makes them; in the embedded store through the core).
//
// Two doors: the router in process (the embedded transport), and `billing serve` on a loopback
// port spoken to by the HTTP transport, with an API key, exactly as a remote client would. Both
// open their store on the engine of the run (SQLite, or PostgreSQL in the postgres project).
import { request as httpRequest } from 'node:http';
import { createAccount } from '../../src/lib/core/accounts.js';
import type { CoreContext } from '../../src/lib/core/context.js';
import { createPlan } from '../../src/lib/core/plan-writes.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { startServer } from '../../src/lib/runtime/serve.js';
import { httpTransport } from '../../src/lib/transport/http.js';
import type { Transport } from '../../src/lib/transport/types.js';
import { testCore } from '../helpers/store.js';

/** One request exactly as given, headers and all: what a Transport never sends (no Content-Type, say). */
export interface RawRequest {
  method: string;
  /** Path with its query, sent as it is (brackets raw or percent-encoded). */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed document; undefined for an empty body. */
  body: any;
}

export interface OpenDoor {
  transport: Transport;
  /** HTTP doors only (the in-process door has no headers): a request as a real client may send it, with the door's key. */
  raw?(request: RawRequest): Promise<RawAnswer>;
  /** The base of the absolute links in the documents, so documents of different doors compare. */
  baseUrl: string;
  /** Makes a subscription plan for the account the transport acts as. */
  seedPlan(attributes: Record<string, unknown>): Promise<void>;
  /**
   * Moves the store's test time forward to `iso` (setClock: all work due on the way is done, in
   * date order); the HTTP door's server then reads the new time, as its timer would.
   */
  advanceTo(iso: string): Promise<void>;
  /**
   * What an operator of the store does beside the API (simulated outcomes, reading rows): the
   * core's context for the account the transport acts as, on the same store and clock.
   */
  operator: CoreContext;
  close(): Promise<void>;
}

/** setClock, failing the test when the clock refuses (it never goes back). */
async function advance(context: CoreContext, iso: string): Promise<void> {
  const moved = await setClock({ store: context.store, clock: context.clock, allowPrivateWebhooks: true }, iso);
  if (!moved.ok) throw new Error(`setClock refused: ${JSON.stringify(moved.failure)}`);
}

export interface Door {
  name: string;
  open(): Promise<OpenDoor>;
}

export const IN_PROCESS_BASE_URL = 'http://127.0.0.1:8080';

/** The router called in process through the embedded transport, on a fresh store at a fixed time. */
export const inProcess: Door = {
  name: 'in-process',
  async open() {
    const core = await testCore({ baseUrl: IN_PROCESS_BASE_URL });
    const account = await core.account();
    const operator: CoreContext = { store: core.store, clock: core.clock, account, baseUrl: IN_PROCESS_BASE_URL };
    return {
      transport: core.transport,
      baseUrl: IN_PROCESS_BASE_URL,
      operator,
      advanceTo: (iso) => advance(operator, iso),
      async seedPlan(attributes) {
        const result = await createPlan({ store: core.store, clock: core.clock, account }, attributes);
        if (!result.ok) throw new Error(`seedPlan refused: ${JSON.stringify(result.failure)}`);
      },
      async close() {
        await core.transport.close();
      },
    };
  },
};

/** `billing serve` on 127.0.0.1 (a free port) over a fresh store, reached through the HTTP transport. */
export const loopback: Door = {
  name: 'loopback HTTP',
  async open() {
    const core = await testCore();
    const made = await createAccount(core.store, core.clock, 'conformance');
    if (!made.ok) throw new Error('could not make the conformance account');
    const account = made.value.account;
    const server = await startServer({
      store: core.store,
      clock: core.clock,
      host: '127.0.0.1',
      port: 0,
      log: () => {},
    });
    const apiKey = made.value.apiKey;
    const operator: CoreContext = { store: core.store, clock: core.clock, account, baseUrl: server.baseUrl };
    return {
      transport: httpTransport({ baseUrl: server.url, apiKey, timeoutMs: 10_000, retries: 0 }),
      baseUrl: server.baseUrl,
      operator,
      async advanceTo(iso) {
        await advance(operator, iso);
        await server.catchUp();
      },
      raw: (request) => sendRaw(server.url, apiKey, request),
      async seedPlan(attributes) {
        const result = await createPlan({ store: core.store, clock: core.clock, account }, attributes);
        if (!result.ok) throw new Error(`seedPlan refused: ${JSON.stringify(result.failure)}`);
      },
      async close() {
        await server.close(); // closes the store too
      },
    };
  },
};

/** node:http, not fetch: fetch adds a Content-Type of its own to a text body. */
function sendRaw(base: string, apiKey: string, raw: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const payload = raw.body === undefined ? undefined : Buffer.from(raw.body, 'utf8');
    const headers: Record<string, string | number> = { 'x-authorization': apiKey, ...raw.headers };
    if (payload) headers['content-length'] = payload.length;
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: raw.method, path: raw.path, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text === '' ? undefined : JSON.parse(text),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const doors: Door[] = [inProcess, loopback];
