// The same scenario on both engines gives the same documents, byte for byte, apart from the
// timestamps (each store runs on the real clock here, so those differ and are masked). This file
// opens one store of each engine itself, so it runs in the sqlite project only.
import { describe, expect, it } from 'vitest';
import { createPlan } from '../../src/lib/core/plan-writes.js';
import { systemClock } from '../../src/lib/core/clock.js';
import { ENGINE, freshStoreLocation } from '../helpers/engine.js';
import { testCore } from '../helpers/store.js';
import { scenarios, type Recorded } from './scenarios.js';

async function record(engine: 'sqlite' | 'postgres', name: string): Promise<string> {
  const core = await testCore({ dbPath: await freshStoreLocation(engine), clock: systemClock });
  const account = await core.account();
  const recorded: Recorded[] = await scenarios[name](core.transport, {
    async plan(attributes) {
      const result = await createPlan({ store: core.store, clock: core.clock, account }, attributes);
      if (!result.ok) throw new Error(`plan refused: ${JSON.stringify(result.failure)}`);
    },
  });
  await core.transport.close();
  return JSON.stringify(recorded, null, 1);
}

describe.runIf(ENGINE === 'sqlite')(
  'SQLite and PostgreSQL answer every scenario with the same documents (runs both engines)',
  () => {
    for (const name of Object.keys(scenarios)) {
      it(name, async () => {
        const [sqlite, postgres] = await Promise.all([record('sqlite', name), record('postgres', name)]);
        expect(sqlite.length).toBeGreaterThan(100);
        expect(postgres).toBe(sqlite);
      });
    }
  },
);
