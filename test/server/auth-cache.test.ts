// The server's key cache must never outlive a key: rotated here or by another process, the old key
// is refused on the very next request.
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount, rotateKey } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { cachedAuthentication } from '../../src/lib/server/serve.js';
import { openStore, type Store } from '../../src/lib/store/store.js';
import { tempDbPath, TEST_NOW } from '../helpers/store.js';

const clock = fixedClock(TEST_NOW);
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
const open = (path: string) => {
  const store = openStore(path);
  stores.push(store);
  return store;
};

describe('cachedAuthentication', () => {
  it('when another process rotates the key, the old key is refused at once and the new one accepted', () => {
    const path = tempDbPath();
    const served = open(path);
    const made = createAccount(served, clock, 'alpha');
    if (!made.ok) throw new Error('account');
    const authenticate = cachedAuthentication(served);
    expect(authenticate(made.value.apiKey)?.name).toBe('alpha');
    expect(authenticate(made.value.apiKey)?.name).toBe('alpha'); // from the cache

    const cli = open(path); // another connection, as the CLI is
    const rotated = rotateKey(cli, clock, 'alpha');
    if (!rotated.ok) throw new Error('rotate');
    expect(authenticate(made.value.apiKey)).toBeUndefined();
    expect(authenticate(rotated.value.apiKey)?.name).toBe('alpha');
  });

  it('when the key is rotated through the same connection, the old key is refused at once', () => {
    const store = open(tempDbPath());
    const made = createAccount(store, clock, 'alpha');
    if (!made.ok) throw new Error('account');
    const authenticate = cachedAuthentication(store);
    expect(authenticate(made.value.apiKey)).toBeDefined();
    rotateKey(store, clock, 'alpha');
    expect(authenticate(made.value.apiKey)).toBeUndefined();
  });

  it('when a key was unknown and is then made, it is accepted at once', () => {
    const path = tempDbPath();
    const served = open(path);
    const authenticate = cachedAuthentication(served);
    served.get(served.q.selectFrom('accounts').select('id')); // the store exists
    const other = open(path);
    const made = createAccount(other, clock, 'beta');
    if (!made.ok) throw new Error('account');
    expect(authenticate('bk_unknown')).toBeUndefined();
    expect(authenticate(made.value.apiKey)?.name).toBe('beta');
  });
});
