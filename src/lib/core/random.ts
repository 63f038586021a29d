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

/** The next size bytes of the pool (refilled when it has too few left), forgotten by the pool once read. */
function take<T>(size: number, read: (pool: Buffer, at: number) => T): T {
  if (used + size > pool.length) {
    pool = fillRandom(Buffer.allocUnsafe(POOL_SIZE));
    used = 0;
  }
  const at = used;
  used += size;
  const value = read(pool, at);
  // A later reader of the pool (a heap dump) cannot recover what was handed out.
  pool.fill(0, at, at + size);
  return value;
}

/** size random bytes, a copy of its own (never shared with another caller's). */
export function randomBytes(size: number): Buffer {
  if (size > POOL_SIZE) return fillRandom(Buffer.allocUnsafe(size));
  return take(size, (bytes, at) => Buffer.from(bytes.subarray(at, at + size)));
}

/** A random (version 4) UUID, as crypto.randomUUID() makes it. */
export function randomUUID(): string {
  const hex = take(16, (bytes, at) => bytes.toString('hex', at, at + 16));
  // The version (4) and the variant (10xx: 8, 9, a or b) in place of their bits.
  const variant = '89ab'[Number.parseInt(hex[16], 16) & 3];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`;
}
