// The doors the conformance scenarios go through. A door opens a fresh service (an empty store) and
// hands out a Transport to it, plus what the API itself cannot do: making plans, which are
// read-only over the API (an operator makes them; in the embedded store through the core).
//
// Only the in-process door exists so far; the loopback door (`billing serve` spoken to over HTTP)
// joins this list and every scenario runs through it unchanged.
import { createPlan } from '../../src/lib/core/plan-writes.js';
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
    const core = testCore({ baseUrl: IN_PROCESS_BASE_URL });
    return {
      transport: core.transport,
      baseUrl: IN_PROCESS_BASE_URL,
      async seedPlan(attributes) {
        const result = createPlan({ store: core.store, clock: core.clock, account: core.account() }, attributes);
        if (!result.ok) throw new Error(`seedPlan refused: ${JSON.stringify(result.failure)}`);
      },
      async close() {
        await core.transport.close();
      },
    };
  },
};

export const doors: Door[] = [inProcess];
