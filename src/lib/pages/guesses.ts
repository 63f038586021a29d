// Wrong secrets in page URLs, counted per client address: a guesser is slowed to a trickle (429 with
// Retry-After) before the store is even read, while a customer opening their own page is never
// counted. Each guess is taken before its secret is looked at and given back when the secret was
// right, so a burst of requests sent at once cannot slip past the count while the lookups run.
//
// In the memory of one billing serve process: instances behind a load balancer each count their
// own. Bounded: past maxClients the client heard from least recently is forgotten, so an attacker
// rotating addresses costs a fixed amount of memory (and gains no more than its addresses give it).
import ipaddr from 'ipaddr.js';

export interface GuessLimits {
  /** Wrong secrets a client may try in a row... */
  burst: number;
  /** ...and then per minute (one every 60/perMinute seconds). */
  perMinute: number;
  /** Clients remembered at most. */
  maxClients: number;
}

export const DEFAULT_GUESS_LIMITS: GuessLimits = { burst: 20, perMinute: 20, maxClients: 10_000 };

export interface GuessLimiter {
  /** Takes one guess before a secret is looked at: undefined when allowed, else whole seconds to wait. */
  take(client: string): number | undefined;
  /** Gives a taken guess back: the secret was right, or was never looked at. */
  giveBack(client: string): void;
  /** Clients remembered now. */
  readonly size: number;
}

/**
 * Per client, the time at which it would have its whole burst again (the generic cell rate
 * algorithm: a token bucket kept as one number). A guess moves it one interval on; it may run ahead
 * of now by at most burst - 1 intervals. A client whose time has passed is forgotten.
 */
export function guessLimiter(
  limits: GuessLimits = DEFAULT_GUESS_LIMITS,
  now: () => number = () => performance.now(),
): GuessLimiter {
  const interval = 60_000 / limits.perMinute;
  const ahead = (limits.burst - 1) * interval;
  const full = new Map<string, number>();
  const keep = (client: string, at: number, until: number) => {
    // Deleted first, so the Map's order is least recently heard first.
    full.delete(client);
    if (until <= at) return;
    full.set(client, until);
    if (full.size > limits.maxClients) full.delete(full.keys().next().value!);
  };
  return {
    take(client) {
      const at = now();
      const until = Math.max(full.get(client) ?? at, at);
      if (until - at > ahead) return Math.max(1, Math.ceil((until - ahead - at) / 1000));
      keep(client, at, until + interval);
      return undefined;
    },
    giveBack(client) {
      const until = full.get(client);
      if (until !== undefined) keep(client, now(), until - interval);
    },
    get size() {
      return full.size;
    },
  };
}

/**
 * Whom a request counts against: its IPv4 address (an IPv4-mapped IPv6 one as IPv4), or for IPv6
 * its /64, which one host is usually given whole and could otherwise spend an address per guess.
 */
export function clientOf(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address ?? '';
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const prefix = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
