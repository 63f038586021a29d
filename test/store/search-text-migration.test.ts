// Migration 14 on a store made before it: every customer gets the search text the core would have
// written, so the people already there are found as new ones are (accents, IBAN, phone).
import { describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import { listCustomers } from '../../src/lib/core/customers.js';
import { postgresMigrations, SEARCH_TEXT_VERSION, sqliteMigrations } from '../../src/lib/store/migrations.js';
import { openStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { ENGINE } from '../helpers/engine.js';
import { storeAtVersion } from '../helpers/older-store.js';
import { closeLater, TEST_NOW } from '../helpers/store.js';

const migrations = ENGINE === 'sqlite' ? sqliteMigrations : postgresMigrations;
const before = SEARCH_TEXT_VERSION - 1;
const T = TEST_NOW;
// More customers than one round of the fill (5,000), so the rounds hand over.
const COUNT = 5_003;

const ROWS = [
  `INSERT INTO accounts (id, name, webhook_secret, is_default, created_at, updated_at)
    VALUES (1, 'default', 'whsec', true, '${T}', '${T}')`,
  `INSERT INTO customers (account_id, first_name, last_name, email, iban, telephone, company_name, created_at, updated_at)
    VALUES (1, 'Zoë', 'Ångström', 'zoe@example.org', 'NL91ABNA0417164300', '+31 6 1234 5678', 'Groß & Co', '${T}', '${T}')`,
];
const filler = (from: number, to: number) =>
  `INSERT INTO customers (account_id, first_name, last_name, email, created_at, updated_at) VALUES ${Array.from(
    { length: to - from },
    (_, i) => `(1, 'First${from + i}', 'Last${from + i}', 'c${from + i}@example.com', '${T}', '${T}')`,
  ).join(', ')}`;

async function storeBefore(): Promise<string> {
  const statements = [...ROWS];
  for (let from = 1; from < COUNT; from += 1000) statements.push(filler(from, Math.min(COUNT, from + 1000)));
  return storeAtVersion(before, statements);
}

describe(`the migration to search texts (${ENGINE})`, () => {
  it('gives every customer there its search text, and search finds them by it', async () => {
    const store = closeLater(await openStore(await storeBefore(), { poolSize: 1 }));
    expect(await store.schemaVersion()).toBe(migrations.length);
    const clock = fixedClock(T);
    const ctx = { store, clock, account: await defaultAccount(store, clock) };
    const empty = await store.read(() =>
      all((q) => q.selectFrom('customers').select('id').where('search_text', '=', '')),
    );
    expect(empty).toEqual([]);
    const found = async (search: string) =>
      (await store.read(() => listCustomers(ctx, { number: 1, size: 10 }, { search }))).rows.map((c) => c.email);
    for (const search of ['zoe angstrom', 'gross', 'NL91 ABNA 0417 1643 00', '06 12345678', 'ZOË'])
      expect(await found(search), search).toEqual(['zoe@example.org']);
    expect(await found(`last${COUNT - 1}`)).toEqual([`c${COUNT - 1}@example.com`]);
  });
});
