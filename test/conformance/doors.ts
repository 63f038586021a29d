// The doors the conformance scenarios go through. A door opens a fresh service (an empty store) and
// hands out a Transport to it, plus what the API itself cannot do: making plans, which are
// read-only over the API (an operator makes them; in the embedded store through the core).
//
// Two doors: the router in process (the embedded transport), and `billing serve` on a loopback
// port spoken to by the HTTP transport, with an API key, exactly as a remote client would. Both
// open their store on the engine of the run (SQLite, or PostgreSQL in the postgres project).
import { createAccount } from '../../src/lib/core/accounts.js';
import { createPlan } from '../../src/lib/core/plan-writes.js';
import { startServer } from '../../src/lib/server/serve.js';
import { httpTransport } from '../../src/lib/transport/http.js';
import type { Transport } from '../../src/lib/transport/types.js';
import { testCore } from '../helpers/store.js';

export interface OpenDoor {
  transport: Transport;
  /** The base of the absolute links in the documents, so documents of different doors compare. */
  baseUrl: string;
  /** Makes a subscription plan for the account the transport acts as. */
  seedPlan(attributes: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
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
    return {
      transport: core.transport,
      baseUrl: IN_PROCESS_BASE_URL,
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
    const server = await startServer({ store: core.store, clock: core.clock, host: '127.0.0.1', port: 0, log: () => {} });
    return {
      transport: httpTransport({ baseUrl: server.url, apiKey: made.value.apiKey, timeoutMs: 10_000, retries: 0 }),
      baseUrl: server.baseUrl,
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

export const doors: Door[] = [inProcess, loopback];
