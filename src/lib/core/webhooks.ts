// Where webhooks may go. A service that calls URLs its clients give must not be turned against its
// own network: billing serve refuses loopback, private and link-local targets unless told otherwise.
// isPrivateTarget judges the URL as written (a name or an address); isPrivateAddress judges an
// address a name resolved to: billing serve checks both when a URL is given and again when it
// connects to deliver (a name may point elsewhere by then).
import { isIP } from 'node:net';

const V4_PRIVATE: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
  [0xc0000000, 24], // 192.0.0/24 protocol assignments
  [0xc0000200, 24], // 192.0.2/24 documentation
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xc6336400, 24], // 198.51.100/24 documentation
  [0xcb007100, 24], // 203.0.113/24 documentation
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved, and the broadcast address
];

function v4Private(address: string): boolean {
  const n = address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  return V4_PRIVATE.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));
}

function v6Private(address: string): boolean {
  const a = address.toLowerCase();
  if (a === '::1' || a === '::') return true;
  // IPv4 inside IPv6 (mapped, or NAT64's well-known prefix) is judged as the IPv4 address.
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (embedded) return v4Private(embedded[1]);
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (hex) {
    const n = parseInt(hex[1], 16) * 65536 + parseInt(hex[2], 16);
    return v4Private([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'));
  }
  // Unique local fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8, documentation 2001:db8::/32.
  return /^f[cdf]/.test(a) || /^fe[89a-f]/.test(a) || /^2001:0?db8:/.test(a);
}

/** Whether an address (v4 or v6, as resolved) is loopback, private, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const kind = isIP(address);
  return kind === 4 ? v4Private(address) : kind === 6 ? v6Private(address) : true;
}

/** The host of a URL as written, without IPv6 brackets; undefined when it is no URL. */
export function hostOf(url: string): string | undefined {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  } catch {
    return undefined;
  }
}

/**
 * The receiver a delivery counts against when senders share themselves out fairly: host:port of the
 * URL as written (the scheme's port when none is given), before name resolution. It is known when
 * the row is written, with no DNS in a claim; it is what a keep-alive pool and a receiver's operator
 * go by; and two tenants behind one shared address (a CDN, a hosting platform) are not throttled
 * together for the other's hanging endpoint. A URL that does not parse is its own receiver.
 */
export function hostKey(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return url;
  }
}

/** Whether a URL's host is loopback, private or link-local, as written. */
export function isPrivateTarget(url: string): boolean {
  const host = hostOf(url);
  if (host === undefined) return false;
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal'))
    return true;
  const kind = isIP(host);
  if (kind === 4) return v4Private(host);
  if (kind === 6) return v6Private(host);
  return false;
}
