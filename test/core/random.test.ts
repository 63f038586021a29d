// Random ids and secrets: version 4 UUIDs in crypto.randomUUID()'s form, bytes that are never
// handed out twice, and node:crypto filling in where the device cannot be read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillRandom, randomBytes, randomUUID } from '../../src/lib/core/random.js';

describe('random ids and secrets', () => {
  it('makes version 4 UUIDs, each one different', () => {
    const ids = Array.from({ length: 5_000 }, () => randomUUID());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hands out bytes of the asked size, never the same bytes twice, across refills of the pool', () => {
    // 24-byte secrets, as API keys and page tokens take: 1,000 of them cross several 4 KB pools.
    const secrets = Array.from({ length: 1_000 }, () => randomBytes(24).toString('hex'));
    for (const secret of secrets) expect(secret).toHaveLength(48);
    expect(new Set(secrets).size).toBe(secrets.length);
    // Larger than the pool: read on its own.
    const big = randomBytes(10_000);
    expect(big.length).toBe(10_000);
    expect(new Set(big).size).toBeGreaterThan(200);
  });

  it('gives each caller a copy of its own: the pool forgets what it handed out, the caller keeps it', () => {
    const bytes = Array.from({ length: 300 }, () => randomBytes(32));
    for (const secret of bytes) expect(secret.equals(Buffer.alloc(32))).toBe(false);
  });

  it('reads the device it is given, and falls back to node:crypto where there is none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'billing-random-'));
    try {
      const device = join(dir, 'device');
      writeFileSync(device, Buffer.alloc(64, 7));
      // The bytes are the device's: a device that is not random gives what it has.
      expect(fillRandom(Buffer.alloc(32), device).equals(Buffer.alloc(32, 7))).toBe(true);
      // A device that ends before the buffer is full is not used: node:crypto fills it instead.
      const short = join(dir, 'short');
      writeFileSync(short, Buffer.alloc(8, 7));
      const filled = fillRandom(Buffer.alloc(32), short);
      expect(filled.equals(Buffer.alloc(32, 7))).toBe(false);
      const fallback = fillRandom(Buffer.alloc(32), join(dir, 'missing'));
      expect(fallback.equals(Buffer.alloc(32))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
