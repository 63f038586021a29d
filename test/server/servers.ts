// What the serve suites start, stopped after each test: servers first, then the stores under them.
import { afterEach } from 'vitest';
import { fixedClock } from '../../src/lib/core/clock.js';
import type { Serving as RunningServer } from '../../src/lib/runtime/serve.js';
import type { Store } from '../../src/lib/store/store.js';
import { TEST_NOW } from '../helpers/store.js';

export const running: RunningServer[] = [];
export const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

export const clock = fixedClock(TEST_NOW);
