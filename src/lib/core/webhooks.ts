// Where webhooks may go. A service that calls URLs its clients give must not be turned against its
// own network: billing serve refuses loopback, private and link-local targets unless told otherwise.
// This judges the URL as written (a name or an address); names that resolve to private addresses
// are the delivery's to refuse, when it connects.
import { isIP } from 'node:net';

const V4_PRIVATE: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
];

function v4Private(address: string): boolean {
  const n = address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  return V4_PRIVATE.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));
}

function v6Private(address: string): boolean {
  const a = address.toLowerCase();
  if (a === '::1' || a === '::') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return v4Private(mapped[1]);
  return /^f[cd]/.test(a) || /^fe[89ab]/.test(a);
}

/** Whether a URL's host is loopback, private or link-local, as written. */
export function isPrivateTarget(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return true;
  const kind = isIP(host);
  if (kind === 4) return v4Private(host);
  if (kind === 6) return v6Private(host);
  return false;
}
