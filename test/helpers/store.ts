// Temporary stores and an in-process core for tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { fixedClock, type Clock } from '../../src/lib/core/clock.js';
import { openCore, embeddedTransport, type EmbeddedCore } from '../../src/lib/transport/embedded.js';
import type { Transport } from '../../src/lib/transport/types.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, removed after the test file. */
export function tempDir(prefix = 'billing-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A path for a fresh store file. */
export const tempDbPath = (): string => join(tempDir(), 'billing.db');

export const TEST_NOW = '2026-11-21T10:00:00.000Z';

/** The core on a fresh store, acting as the default account, at a fixed time. */
export function testCore(options: { clock?: Clock; account?: string; dbPath?: string; baseUrl?: string } = {}): EmbeddedCore & { transport: Transport; dbPath: string } {
  const dbPath = options.dbPath ?? tempDbPath();
  const core = openCore({ dbPath, clock: options.clock ?? fixedClock(TEST_NOW), account: options.account, baseUrl: options.baseUrl });
  return Object.assign(core, { transport: embeddedTransport(core), dbPath });
}
