// The migration that put a secret in every mandate page's URL, run on a store made before it: every
// subscription gets a token of its own, confirmations not yet sent get the new link, sent ones stay.
import { describe, expect, it } from 'vitest';
import { findMandate } from '../../src/lib/core/mandate.js';
import { postgresMigrations, sqliteMigrations } from '../../src/lib/store/migrations.js';
import { openStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { ENGINE } from '../helpers/engine.js';
import { storeAtVersion } from '../helpers/older-store.js';
import { closeLater } from '../helpers/store.js';

const migrations = ENGINE === 'sqlite' ? sqliteMigrations : postgresMigrations;
/** The migration under test, found by what it does (its number is decided when branches merge). */
const version = migrations.findIndex((sql) => sql.includes('ADD COLUMN confirmation_token'));

const CODE = "LID/2026 (A)+1?:.,'-";
const T = '2026-11-21T10:00:00.000Z';
const BASE = 'https://pay.example.com';
const greeting = 'Beste Jan,\n\nBevestig de machtiging voor Goud op';
const bodyFor = (id: number, code: string) => `${greeting} ${BASE}/mandate/accept/${id}/${encodeURIComponent(code)}\n`;
const quoted = (text: unknown) => `'${String(text).replace(/'/g, "''")}'`;

// Plain SQL both engines take (false is 0 to SQLite; ISO text is a timestamptz to PostgreSQL).
const ROWS = [
  `INSERT INTO accounts (id, name, webhook_secret, is_default, created_at, updated_at)
    VALUES (1, 'sportclub', 'whsec', false, '${T}', '${T}')`,
  `INSERT INTO customers (id, account_id, first_name, last_name, email, created_at, updated_at)
    VALUES (1, 1, 'Jan', 'Jansen', 'jan@example.com', '${T}', '${T}')`,
  `INSERT INTO subscription_plans (id, account_id, name, start_date, status, mandate_authentication_method, send_invoice,
      storno_retries, amount_cents, frequency, created_at, updated_at)
    VALUES (1, 1, 'Goud', '${T}', 'active', 'email', false, 0, 1250, 'monthly', '${T}', '${T}')`,
  ...[
    [1, 'MNDT-1'],
    [2, CODE],
    [3, 'MNDT-3'],
  ].map(
    ([
      id,
      code,
    ]) => `INSERT INTO subscriptions (id, account_id, customer_id, subscription_plan_id, mandate_code, start_date,
      created_at, updated_at) VALUES (${id}, 1, 1, 1, ${quoted(code)}, '${T}', '${T}', '${T}')`,
  ),
  // 1: an email waiting to be sent; 2: a text (never sent by the service); 3: an email already sent.
  ...[
    [1, 'email', 'jan@example.com', bodyFor(1, 'MNDT-1'), 'NULL', `'${T}'`],
    [2, 'sms', '+31612345678', bodyFor(2, CODE), 'NULL', 'NULL'],
    [3, 'email', 'jan@example.com', bodyFor(3, 'MNDT-3'), `'${T}'`, 'NULL'],
  ].map(
    ([
      id,
      channel,
      recipient,
      body,
      sent,
      next,
    ]) => `INSERT INTO notifications (account_id, customer_id, subscription_id,
      kind, channel, language, recipient, subject, body, created_at, sent_at, next_send_at)
    VALUES (1, 1, ${id}, 'mandate_confirmation', '${channel}', 'nl', '${recipient}', 'Bevestig', ${quoted(body)},
      '${T}', ${sent}, ${next})`,
  ),
];

/** A store at the version before the migration, with the rows above: its location. */
const storeBefore = () => storeAtVersion(version, ROWS);

describe(`the migration to confirmation tokens (${ENGINE})`, () => {
  it('gives every existing subscription a random token of its own, and the old URLs find nothing', async () => {
    expect(version).toBeGreaterThan(0);
    const store = closeLater(await openStore(await storeBefore(), { poolSize: 1 }));
    expect(await store.schemaVersion()).toBe(migrations.length);
    const columns = ['id', 'mandate_code', 'confirmation_token'] as const;
    const subs = await store.read(() => all((q) => q.selectFrom('subscriptions').select(columns).orderBy('id')));
    expect(subs).toHaveLength(3);
    for (const sub of subs) expect(sub.confirmation_token).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(subs.map((s) => s.confirmation_token)).size).toBe(3);
    for (const sub of subs) {
      const found = await store.read(() => findMandate(sub.id, sub.confirmation_token));
      expect(found).toMatchObject({ subscription: { id: sub.id } });
      expect(await store.read(() => findMandate(sub.id, sub.mandate_code))).toBeUndefined();
      expect(await store.read(() => findMandate(sub.id, encodeURIComponent(sub.mandate_code)))).toBeUndefined();
    }
  });

  it('puts the new link in the confirmations not yet sent, and leaves the ones sent as they were sent', async () => {
    const store = closeLater(await openStore(await storeBefore(), { poolSize: 1 }));
    const subs = await store.read(() => all((q) => q.selectFrom('subscriptions').select(['id', 'confirmation_token'])));
    const tokens = new Map(subs.map((s) => [Number(s.id), s.confirmation_token]));
    const bodies = await store.read(() => all((q) => q.selectFrom('notifications').select('body').orderBy('id')));
    const link = (id: number) => `${greeting} ${BASE}/mandate/accept/${id}/${tokens.get(id)}\n`;
    expect(bodies.map((n) => n.body)).toEqual([link(1), link(2), bodyFor(3, 'MNDT-3')]);
  });
});
