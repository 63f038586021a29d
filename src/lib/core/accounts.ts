// Accounts and their API keys. Keys are shown once, when made, and stored only as SHA-256 hashes.
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { transact, type Account } from './context.js';
import { fail, invalidAttributes, notFound, ok, type AttributeProblem, type Result } from './result.js';
import { isValidTimeZone, offsetMinutes } from './time.js';

export const DEFAULT_ACCOUNT_NAME = 'default';
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/i;
const PREFIX = /^[A-Za-z0-9][A-Za-z0-9_./-]{0,19}$/;

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');
const newKey = (): string => `bk_${randomBytes(24).toString('base64url')}`;
const newSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`;

export interface AccountSettings {
  invoice_prefix?: string;
  time_zone?: string;
}

function checkSettings(settings: AccountSettings): AttributeProblem[] {
  const problems: AttributeProblem[] = [];
  if (settings.invoice_prefix !== undefined && !PREFIX.test(settings.invoice_prefix)) {
    problems.push({ attribute: 'invoice_prefix', detail: 'must be 1 to 20 letters, digits or _ . / - (starting with a letter or digit)' });
  }
  if (settings.time_zone !== undefined && !isValidTimeZone(settings.time_zone)) {
    problems.push({ attribute: 'time_zone', detail: `is not an IANA time zone (for example Europe/Amsterdam)` });
  }
  return problems;
}

/** Minutes east of UTC in timeZone at ms, as Intl (ICU, case-insensitive about zone names) sees it. */
function intlOffsetMinutes(ms: number, timeZone: string): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
}

/**
 * The zone as the account keeps it. Intl accepts any spelling ("europe/amsterdam"), but time.ts
 * applies a zone through TZ, which only knows the exact spelling and otherwise falls back to UTC
 * without a word. A zone that TZ would misread is kept under ICU's canonical name instead.
 */
function storedTimeZone(timeZone: string): string {
  const probes = [Date.UTC(2026, 0, 15), Date.UTC(2026, 6, 15)];
  if (probes.every((ms) => offsetMinutes(ms, timeZone) === intlOffsetMinutes(ms, timeZone))) return timeZone;
  return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
}

export function findAccount(store: Store, name: string): Account | undefined {
  return store.prepared<Account, [string]>('accounts.by-name', (p) => store.q.selectFrom('accounts').selectAll().where('name', '=', p(0))).get(name);
}

const findDefault = (store: Store): Account | undefined =>
  store.prepared<Account, []>('accounts.default', () => store.q.selectFrom('accounts').selectAll().where('is_default', '=', 1)).get();

/** The store's default account, made on first use (safe when several processes race to make it). */
export function defaultAccount(store: Store, clock: Clock): Account {
  const existing = findDefault(store);
  if (existing) return existing;
  return store.write(() => {
    const now = clock.now().toISOString();
    store.run(
      store.q
        .insertInto('accounts')
        .values({ name: DEFAULT_ACCOUNT_NAME, is_default: 1, webhook_secret: newSecret(), invoice_prefix: 'INV-', time_zone: 'Europe/Amsterdam', next_invoice_number: 1, created_at: now, updated_at: now })
        .onConflict((oc) => oc.doNothing()),
    );
    return findDefault(store)!;
  });
}

export function listAccounts(store: Store): Account[] {
  return store.all(store.q.selectFrom('accounts').selectAll().orderBy('id'));
}

export function createAccount(store: Store, clock: Clock, name: string, settings: AccountSettings = {}): Result<{ account: Account; apiKey: string }> {
  const problems = checkSettings(settings);
  if (!NAME.test(name)) problems.unshift({ attribute: 'name', detail: 'must be 1 to 63 letters, digits, _ or -, starting with a letter or digit' });
  if (problems.length) return invalidAttributes(problems);
  defaultAccount(store, clock); // the first account of a store is always the default one
  return transact(store, () => {
    if (findAccount(store, name)) return invalidAttributes([{ attribute: 'name', detail: `an account named "${name}" already exists` }]);
    const now = clock.now().toISOString();
    const { lastInsertRowid } = store.run(
      store.q.insertInto('accounts').values({
        name,
        is_default: 0,
        webhook_secret: newSecret(),
        invoice_prefix: settings.invoice_prefix ?? 'INV-',
        time_zone: settings.time_zone === undefined ? 'Europe/Amsterdam' : storedTimeZone(settings.time_zone),
        next_invoice_number: 1,
        created_at: now,
        updated_at: now,
      }),
    );
    const apiKey = newKey();
    store.run(store.q.insertInto('api_keys').values({ account_id: lastInsertRowid, key_hash: hashKey(apiKey), created_at: now }));
    return ok({ account: findAccount(store, name)!, apiKey });
  });
}

export function updateAccount(store: Store, clock: Clock, name: string, settings: AccountSettings): Result<Account> {
  const problems = checkSettings(settings);
  if (problems.length) return invalidAttributes(problems);
  if (name === DEFAULT_ACCOUNT_NAME) defaultAccount(store, clock);
  return transact(store, () => {
    const account = findAccount(store, name);
    if (!account) return notFound(`no account named "${name}"`);
    store.run(
      store.q
        .updateTable('accounts')
        .set({ ...settings, ...(settings.time_zone === undefined ? {} : { time_zone: storedTimeZone(settings.time_zone) }), updated_at: clock.now().toISOString() })
        .where('id', '=', account.id),
    );
    return ok(findAccount(store, name)!);
  });
}

/** Replaces every key of the account with one new key, returned once. */
export function rotateKey(store: Store, clock: Clock, name: string): Result<{ account: Account; apiKey: string }> {
  if (name === DEFAULT_ACCOUNT_NAME) defaultAccount(store, clock);
  return transact(store, () => {
    const account = findAccount(store, name);
    if (!account) return notFound(`no account named "${name}"`);
    const apiKey = newKey();
    store.run(store.q.deleteFrom('api_keys').where('account_id', '=', account.id));
    store.run(store.q.insertInto('api_keys').values({ account_id: account.id, key_hash: hashKey(apiKey), created_at: clock.now().toISOString() }));
    return ok({ account, apiKey });
  });
}

/** The account an API key belongs to, or undefined for a missing or unknown key. */
export function authenticate(store: Store, apiKey: string | undefined): Account | undefined {
  if (!apiKey) return undefined;
  return store
    .prepared<Account, [string]>('accounts.by-key', (p) =>
      store.q.selectFrom('api_keys').innerJoin('accounts', 'accounts.id', 'api_keys.account_id').selectAll('accounts').where('api_keys.key_hash', '=', p(0)),
    )
    .get(hashKey(apiKey));
}
