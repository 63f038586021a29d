// The server's key cache must never outlive a key: rotated here or by another process, the old key
// is refused on the very next request.
import { describe, expect, it } from 'vitest';
import { createAccount, rotateKey } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { cachedAuthentication } from '../../src/lib/server/serve.js';
import type { SqliteStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { tempDbPath, TEST_NOW, testStore } from '../helpers/store.js';

const clock = fixedClock(TEST_NOW);
/** A connection to the SQLite store file (the cache watches SQLite's data version), closed after the test. */
const open = async (path: string) => (await testStore(path)) as SqliteStore;

describe('cachedAuthentication', () => {
  it('when another process rotates the key, the old key is refused at once and the new one accepted', async () => {
    const path = tempDbPath();
    const served = await open(path);
    const made = await createAccount(served, clock, 'alpha');
    if (!made.ok) throw new Error('account');
    const authenticate = cachedAuthentication(served);
    expect(authenticate(made.value.apiKey)?.name).toBe('alpha');
    expect(authenticate(made.value.apiKey)?.name).toBe('alpha'); // from the cache

    const cli = await open(path); // another connection, as the CLI is
    const rotated = await rotateKey(cli, clock, 'alpha');
    if (!rotated.ok) throw new Error('rotate');
    expect(authenticate(made.value.apiKey)).toBeUndefined();
    expect(authenticate(rotated.value.apiKey)?.name).toBe('alpha');
  });

  it('when the key is rotated through the same connection, the old key is refused at once', async () => {
    const store = await open(tempDbPath());
    const made = await createAccount(store, clock, 'alpha');
    if (!made.ok) throw new Error('account');
    const authenticate = cachedAuthentication(store);
    expect(authenticate(made.value.apiKey)).toBeDefined();
    await rotateKey(store, clock, 'alpha');
    expect(authenticate(made.value.apiKey)).toBeUndefined();
  });

  it('when a key was unknown and is then made, it is accepted at once', async () => {
    const path = tempDbPath();
    const served = await open(path);
    const authenticate = cachedAuthentication(served);
    served.read(() => all((q) => q.selectFrom('accounts').select('id'))); // the store exists
    const other = await open(path);
    const made = await createAccount(other, clock, 'beta');
    if (!made.ok) throw new Error('account');
    expect(authenticate('bk_unknown')).toBeUndefined();
    expect(authenticate(made.value.apiKey)?.name).toBe('beta');
  });
});
