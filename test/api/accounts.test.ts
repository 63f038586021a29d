// Accounts and API keys (core level), and the isolation of one account's resources from another's.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  authenticate,
  createAccount,
  defaultAccount,
  listAccounts,
  rotateKey,
  updateAccount,
} from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import type { Result } from '../../src/lib/core/result.js';
import { all } from '../../src/lib/store/unit.js';
import { freshStoreLocation } from '../helpers/engine.js';
import { TEST_NOW, testCore, testStore } from '../helpers/store.js';
import {
  createCustomer,
  customerBody,
  customerRows,
  expectError,
  insertSubscription,
  makePlan,
  minimalCustomer,
  send,
} from './support.js';

const clock = fixedClock(TEST_NOW);

/** A fresh store on the run's engine, closed after the test. */
const freshStore = () => testStore();

function unwrapOk<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.failure)}`);
  return result.value;
}

const problemAttributes = (result: Result<unknown>): string[] => {
  if (result.ok) throw new Error('expected a refusal');
  if (result.failure.kind !== 'invalid_attribute')
    throw new Error(`expected invalid_attribute, got ${result.failure.kind}`);
  return result.failure.problems.map((p) => p.attribute).sort();
};

describe('the default account', () => {
  it('when the store is new, does not exist until first used, then is made with the defaults', async () => {
    const store = await freshStore();
    expect(await listAccounts(store)).toEqual([]);
    const account = await defaultAccount(store, clock);
    expect(account).toMatchObject({
      name: 'default',
      is_default: 1,
      invoice_prefix: 'INV-',
      time_zone: 'Europe/Amsterdam',
      created_at: TEST_NOW,
    });
    expect(account.webhook_secret).toMatch(/^whsec_[A-Za-z0-9_-]{20,}$/);
    expect(await listAccounts(store)).toHaveLength(1);
  });

  it('when asked for twice, is made once', async () => {
    const store = await freshStore();
    const first = await defaultAccount(store, clock);
    const second = await defaultAccount(store, clock);
    expect(second).toEqual(first);
    expect(await listAccounts(store)).toHaveLength(1);
  });

  it('when two connections to one store ask for it, both get the same single account', async () => {
    const location = await freshStoreLocation();
    const a = await testStore(location);
    const b = await testStore(location);
    const fromA = await defaultAccount(a, clock);
    const fromB = await defaultAccount(b, clock);
    expect(fromB.id).toBe(fromA.id);
    expect(await listAccounts(a)).toHaveLength(1);
  });

  it('when a named account is the first one made, the default account is made too', async () => {
    const store = await freshStore();
    unwrapOk(await createAccount(store, clock, 'acme'));
    expect((await listAccounts(store)).map((a) => [a.name, a.is_default])).toEqual([
      ['default', 1],
      ['acme', 0],
    ]);
  });

  it('when the embedded core is used, it acts as the default account', async () => {
    const core = await testCore();
    expect((await core.account()).name).toBe('default');
    expect((await core.account()).is_default).toBe(1);
  });
});

describe('createAccount and keys', () => {
  it('when made, returns a key that authenticates as the new account', async () => {
    const store = await freshStore();
    const { account, apiKey } = unwrapOk(
      await createAccount(store, clock, 'acme', { invoice_prefix: 'ACME-', time_zone: 'Asia/Kolkata' }),
    );
    expect(account).toMatchObject({ name: 'acme', is_default: 0, invoice_prefix: 'ACME-', time_zone: 'Asia/Kolkata' });
    expect(apiKey).toMatch(/^bk_[A-Za-z0-9_-]{32}$/);
    expect((await authenticate(store, apiKey))?.id).toBe(account.id);
  });

  it('when the key is missing, empty or unknown, authenticates nobody', async () => {
    const store = await freshStore();
    const { apiKey } = unwrapOk(await createAccount(store, clock, 'acme'));
    expect(await authenticate(store, undefined)).toBeUndefined();
    expect(await authenticate(store, '')).toBeUndefined();
    expect(await authenticate(store, `${apiKey}x`)).toBeUndefined();
    expect(await authenticate(store, apiKey.toUpperCase())).toBeUndefined();
  });

  it('when two accounts are made, each key maps to its own account', async () => {
    const store = await freshStore();
    const a = unwrapOk(await createAccount(store, clock, 'a'));
    const b = unwrapOk(await createAccount(store, clock, 'b'));
    expect(a.apiKey).not.toBe(b.apiKey);
    expect((await authenticate(store, a.apiKey))?.name).toBe('a');
    expect((await authenticate(store, b.apiKey))?.name).toBe('b');
  });

  it('when stored, the key is kept only as its SHA-256 hash', async () => {
    const store = await freshStore();
    const { account, apiKey } = unwrapOk(await createAccount(store, clock, 'acme'));
    const keys = await store.read(() => all((q) => q.selectFrom('api_keys').selectAll()));
    expect(keys).toHaveLength(1);
    expect(keys[0].account_id).toBe(account.id);
    expect(keys[0].key_hash).toBe(createHash('sha256').update(apiKey).digest('hex'));
    // The plaintext appears nowhere: not in api_keys, not in accounts.
    const everything = JSON.stringify([keys, await store.read(() => all((q) => q.selectFrom('accounts').selectAll()))]);
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(apiKey.slice(3));
  });

  it('when the key is rotated, the old key stops working and the new one works', async () => {
    const store = await freshStore();
    const { account, apiKey: old } = unwrapOk(await createAccount(store, clock, 'acme'));
    const { apiKey: fresh } = unwrapOk(await rotateKey(store, clock, 'acme'));
    expect(fresh).not.toBe(old);
    expect(await authenticate(store, old)).toBeUndefined();
    expect((await authenticate(store, fresh))?.id).toBe(account.id);
    expect(
      await store.read(() => all((q) => q.selectFrom('api_keys').selectAll().where('account_id', '=', account.id))),
    ).toHaveLength(1);
  });

  it('when one account rotates its key, the other account keeps its key', async () => {
    const store = await freshStore();
    const a = unwrapOk(await createAccount(store, clock, 'a'));
    const b = unwrapOk(await createAccount(store, clock, 'b'));
    unwrapOk(await rotateKey(store, clock, 'a'));
    expect((await authenticate(store, b.apiKey))?.name).toBe('b');
    expect(await authenticate(store, a.apiKey)).toBeUndefined();
  });

  it('when the default account rotates its key on a new store, it is made and gets a working key', async () => {
    const store = await freshStore();
    const { account, apiKey } = unwrapOk(await rotateKey(store, clock, 'default'));
    expect(account.name).toBe('default');
    expect((await authenticate(store, apiKey))?.id).toBe(account.id);
  });

  it('when rotating the key of an unknown account, answers not found', async () => {
    const store = await freshStore();
    const result = await rotateKey(store, clock, 'nobody');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.kind).toBe('not_found');
  });

  it.each(['acme', 'default'])('when the name %s is already taken, refuses it and makes nothing', async (name) => {
    const store = await freshStore();
    unwrapOk(await createAccount(store, clock, 'acme'));
    const before = await listAccounts(store);
    const keys = await store.read(() => all((q) => q.selectFrom('api_keys').selectAll()));
    expect(problemAttributes(await createAccount(store, clock, name))).toEqual(['name']);
    expect(await listAccounts(store)).toEqual(before);
    expect(await store.read(() => all((q) => q.selectFrom('api_keys').selectAll()))).toEqual(keys);
  });

  it('when a name differs from a taken one only in case, it is another account', async () => {
    const store = await freshStore();
    const lower = unwrapOk(await createAccount(store, clock, 'acme'));
    const upper = unwrapOk(await createAccount(store, clock, 'ACME'));
    expect(upper.account.id).not.toBe(lower.account.id);
  });

  it.each([
    ['a time zone that does not exist', { time_zone: 'Mars/Olympus_Mons' }, ['time_zone']],
    ['an empty time zone', { time_zone: '' }, ['time_zone']],
    ['an empty invoice prefix', { invoice_prefix: '' }, ['invoice_prefix']],
    ['an invoice prefix with a space', { invoice_prefix: 'INV 1' }, ['invoice_prefix']],
    ['an invoice prefix of 21 characters', { invoice_prefix: 'A'.repeat(21) }, ['invoice_prefix']],
    ['an invoice prefix starting with a dash', { invoice_prefix: '-INV' }, ['invoice_prefix']],
    ['both bad', { time_zone: 'Nowhere', invoice_prefix: '??' }, ['invoice_prefix', 'time_zone']],
  ])('when given %s, refuses it and makes nothing', async (_situation, settings, expected) => {
    const store = await freshStore();
    expect(problemAttributes(await createAccount(store, clock, 'acme', settings))).toEqual(expected);
    expect((await listAccounts(store)).map((a) => a.name)).not.toContain('acme');
  });

  it.each(['', '-acme', 'a b', 'x'.repeat(64), 'ünïcode'])('when the name is %j, refuses it', async (name) => {
    const store = await freshStore();
    expect(problemAttributes(await createAccount(store, clock, name))).toEqual(['name']);
  });

  it.each([
    ['asia/kolkata', '2026-11-21T15:30:00+05:30'],
    ['europe/amsterdam', '2026-11-21T11:00:00+01:00'],
    ['AMERICA/ST_JOHNS', '2026-11-21T06:30:00-03:30'],
  ])('when the time zone is written %s, dates still come out in that zone', async (zone, createdAt) => {
    const first = await testCore();
    unwrapOk(await createAccount(first.store, first.clock, 'spelled', { time_zone: zone }));
    const core = await testCore({ dbPath: first.dbPath, account: 'spelled' });
    const id = await createCustomer(core);
    expect((await send(core, 'GET', `/customers/${id}`)).body.data.attributes.created_at).toBe(createdAt);
  });

  it('when the time zone is an exactly spelled alias, keeps it as written', async () => {
    const store = await freshStore();
    expect(unwrapOk(await createAccount(store, clock, 'india', { time_zone: 'Asia/Kolkata' })).account.time_zone).toBe(
      'Asia/Kolkata',
    );
    expect(unwrapOk(await createAccount(store, clock, 'west', { time_zone: 'US/Pacific' })).account.time_zone).toBe(
      'US/Pacific',
    );
  });

  it('when the time zone is changed to a miscased one, dates come out in that zone', async () => {
    const first = await testCore();
    unwrapOk(await createAccount(first.store, first.clock, 'moved'));
    unwrapOk(await updateAccount(first.store, first.clock, 'moved', { time_zone: 'asia/kolkata' }));
    const core = await testCore({ dbPath: first.dbPath, account: 'moved' });
    const id = await createCustomer(core);
    expect((await send(core, 'GET', `/customers/${id}`)).body.data.attributes.created_at).toBe(
      '2026-11-21T15:30:00+05:30',
    );
  });

  it('when updated, changes the prefix and time zone, and refuses bad values', async () => {
    const store = await freshStore();
    unwrapOk(await createAccount(store, clock, 'acme'));
    expect(
      unwrapOk(await updateAccount(store, clock, 'acme', { invoice_prefix: 'F-', time_zone: 'America/St_Johns' })),
    ).toMatchObject({ invoice_prefix: 'F-', time_zone: 'America/St_Johns' });
    expect(problemAttributes(await updateAccount(store, clock, 'acme', { time_zone: 'Moon/Base' }))).toEqual([
      'time_zone',
    ]);
    expect((await listAccounts(store)).find((a) => a.name === 'acme')?.time_zone).toBe('America/St_Johns');
    const missing = await updateAccount(store, clock, 'nobody', { invoice_prefix: 'X-' });
    expect(!missing.ok && missing.failure.kind).toBe('not_found');
  });
});

describe('isolation between accounts', () => {
  const twoAccounts = async () => {
    const a = await testCore();
    unwrapOk(await createAccount(a.store, a.clock, 'bravo'));
    const b = await testCore({ dbPath: a.dbPath, account: 'bravo' });
    expect((await b.account()).name).toBe('bravo');
    const aIds = [await createCustomer(a, minimalCustomer(1)), await createCustomer(a, minimalCustomer(2))];
    const bIds = [
      await createCustomer(b, minimalCustomer(3)),
      await createCustomer(b, minimalCustomer(4)),
      await createCustomer(b, minimalCustomer(5)),
    ];
    return { a, b, aIds, bIds };
  };

  it("when A lists customers, B's are neither shown nor counted", async () => {
    const { a, b, aIds, bIds } = await twoAccounts();
    const listA = await send(a, 'GET', '/customers');
    expect(listA.body.meta.total).toBe(2);
    expect(listA.body.data.map((c: { id: string }) => c.id)).toEqual(aIds);
    const listB = await send(b, 'GET', '/customers', { query: 'page[size]=2&page[number]=2' });
    expect(listB.body.meta.total).toBe(3);
    expect(listB.body.data.map((c: { id: string }) => c.id)).toEqual([bIds[2]]);
  });

  it("when A asks for one of B's customers, answers 404", async () => {
    const { a, bIds } = await twoAccounts();
    expectError(await send(a, 'GET', `/customers/${bIds[0]}`), 404, 'Not Found');
    expectError(await send(a, 'GET', `/customers/${bIds[0]}/subscriptions`), 404, 'Not Found');
  });

  it("when A patches one of B's customers, answers 404 and B's customer is unchanged", async () => {
    const { a, bIds } = await twoAccounts();
    const rows = await customerRows(a);
    expectError(
      await send(a, 'PATCH', `/customers/${bIds[1]}`, { body: customerBody({ city: 'Hacked' }, bIds[1]) }),
      404,
      'Not Found',
    );
    expect(await customerRows(a)).toEqual(rows);
  });

  it("when A looks at B's plans and subscriptions, sees none of them", async () => {
    const { a, b, bIds } = await twoAccounts();
    const plan = await makePlan(b);
    const sub = await insertSubscription(b, bIds[0], plan);
    expectError(await send(a, 'GET', `/subscription-plans/${plan}`), 404, 'Not Found');
    expectError(await send(a, 'GET', `/subscription-plans/${plan}/subscriptions`), 404, 'Not Found');
    expect((await send(a, 'GET', '/subscription-plans')).body.meta.total).toBe(0);
    const withIncluded = await send(a, 'GET', '/customers', { query: 'include=subscriptions' });
    expect(withIncluded.body.included).toEqual([]);
    expect(
      (await send(b, 'GET', '/customers', { query: 'include=subscriptions' })).body.included.map(
        (s: { id: string }) => s.id,
      ),
    ).toEqual([String(sub)]);
  });

  it('when an account name is unknown to the store, the embedded core refuses to act', async () => {
    const a = await testCore();
    const ghost = await testCore({ dbPath: a.dbPath, account: 'ghost' });
    await expect(ghost.account()).rejects.toThrow(/no account named "ghost"/);
  });
});
