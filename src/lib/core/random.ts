// Random ids and secrets from the operating system's CSPRNG, read from /dev/urandom where there is
// one. node:crypto gives the same bytes, but loading it loads twenty of Node's internal modules:
// about 3.5 ms of every command that makes a transaction, an event or an invoice's page token. The
// bytes come from a pool read 4 KB at a time, as node:crypto's randomUUID does; elsewhere (Windows)
// node:crypto fills it.
import { randomFillSync } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

const POOL_SIZE = 4096;
const DEVICE = '/dev/urandom';

/** Fills the buffer from the device, or from node:crypto when the device cannot be read. */
export function fillRandom(buffer: Buffer, device = DEVICE): Buffer {
  if (readDevice(buffer, device)) return buffer;
  return randomFillSync(buffer);
}

let deviceWorks = true;
function readDevice(buffer: Buffer, device: string): boolean {
  if (!deviceWorks && device === DEVICE) return false;
  let fd: number;
  try {
    fd = openSync(device, 'r');
  } catch {
    if (device === DEVICE) deviceWorks = false;
    return false;
  }
  try {
    for (let filled = 0; filled < buffer.length;) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) return false;
      filled += read;
    }
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

let pool: Buffer = Buffer.alloc(0);
let used = 0;

/** size random bytes, a copy of its own (never shared with another caller's). */
export function randomBytes(size: number): Buffer {
  if (size > POOL_SIZE) return fillRandom(Buffer.allocUnsafe(size));
  if (used + size > pool.length) {
    pool = fillRandom(Buffer.allocUnsafe(POOL_SIZE));
    used = 0;
  }
  const bytes = Buffer.from(pool.subarray(used, used + size));
  // What was handed out is not kept: a later reader of the pool (a heap dump) cannot recover a secret.
  pool.fill(0, used, used + size);
  used += size;
  return bytes;
}

/** A random (version 4) UUID, as crypto.randomUUID() makes it. */
export function randomUUID(): string {
  const bytes = randomBytes(16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
