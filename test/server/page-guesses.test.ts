// The count of wrong page secrets per client (pages/guesses.ts), on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { clientOf, DEFAULT_GUESS_LIMITS, guessLimiter } from '../../src/lib/pages/guesses.js';

function limiter(limits = DEFAULT_GUESS_LIMITS) {
  let at = 1_000_000;
  const guesses = guessLimiter(limits, () => at);
  return { guesses, advance: (ms: number) => void (at += ms) };
}

/** How many guesses in a row the client is allowed before the first refusal, and that refusal. */
function run(guesses: ReturnType<typeof guessLimiter>, client: string): { allowed: number; wait: number } {
  for (let allowed = 0; ; allowed++) {
    const wait = guesses.take(client);
    if (wait !== undefined) return { allowed, wait };
  }
}

describe('guessLimiter', () => {
  it('allows 20 wrong guesses, then refuses with the seconds until the next, one every 3 s', () => {
    const { guesses, advance } = limiter();
    expect(run(guesses, '203.0.113.7')).toEqual({ allowed: 20, wait: 3 });
    advance(2_000);
    expect(guesses.take('203.0.113.7')).toBe(1);
    advance(1_000);
    expect(guesses.take('203.0.113.7')).toBeUndefined();
    expect(guesses.take('203.0.113.7')).toBe(3);
    // A minute later, 20 again (never more: the burst is the ceiling).
    advance(10 * 60_000);
    expect(run(guesses, '203.0.113.7').allowed).toBe(20);
  });

  it('counts each client apart', () => {
    const { guesses } = limiter();
    expect(run(guesses, '203.0.113.7').allowed).toBe(20);
    expect(run(guesses, '203.0.113.8').allowed).toBe(20);
  });

  it('does not count a guess given back (the secret was right); forgets a client whose count is whole', () => {
    const { guesses } = limiter();
    for (let i = 0; i < 1_000; i++) {
      expect(guesses.take('198.51.100.1')).toBeUndefined();
      guesses.giveBack('198.51.100.1');
    }
    expect(guesses.size).toBe(0);
    expect(run(guesses, '198.51.100.1').allowed).toBe(20);
    // Giving back what was never taken does not raise the count past the burst.
    for (let i = 0; i < 50; i++) guesses.giveBack('198.51.100.2');
    expect(run(guesses, '198.51.100.2').allowed).toBe(20);
  });

  it('remembers maxClients at most: an attacker rotating addresses uses bounded memory', () => {
    const { guesses, advance } = limiter({ burst: 20, perMinute: 20, maxClients: 1_000 });
    for (let i = 0; i < 100_000; i++) {
      guesses.take(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      if (i % 1_000 === 0) advance(1);
    }
    expect(guesses.size).toBe(1_000);
    // The least recently heard are forgotten first: the latest are still counted.
    expect(run(guesses, '10.1.134.159').allowed).toBe(19);
  });
});

describe('clientOf', () => {
  it('is the IPv4 address, also when it comes IPv4-mapped', () => {
    expect(clientOf('127.0.0.1')).toBe('127.0.0.1');
    expect(clientOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 of an IPv6 address: one host cannot spend an address per guess', () => {
    expect(clientOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('keeps anything else as it is (never throws)', () => {
    expect(clientOf(undefined)).toBe('');
    expect(clientOf('not an address')).toBe('not an address');
  });
});
