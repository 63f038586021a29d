// Accounts and their API keys. Keys are shown once, when made, and stored only as SHA-256 hashes.
import { createHash } from 'node:crypto';
import { randomBytes } from './random.js';
import type { Store } from '../store/store.js';
import { all, get, prepared, run, andThen, type MaybePromise, type Unit } from '../store/unit.js';
import type { Clock } from './clock.js';
import { transact, transactLocked, type Account } from './context.js';
import { invalidAttributes, notFound, ok, type AttributeProblem, type Result } from './result.js';
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
  /** How it collects: 'simulated' (the default) or 'sepa'. */
  collection?: string;
  /** SEPA creditor settings; an empty one clears it. */
  creditor_id?: string;
  creditor_name?: string;
  creditor_iban?: string;
  creditor_bic?: string;
  prenotification_days?: number;
}

export const COLLECTION_MODES = ['simulated', 'sepa'] as const;
/** The longest pre-notification period an account may ask for, in days. */
export const MAX_PRENOTIFICATION_DAYS = 60;
/** C0 and C1 control characters and DEL (schemas/common.ts's rule, without loading zod here). */
const CONTROL = /\p{Cc}/u;
const SEPA_SETTINGS = [
  'collection',
  'creditor_id',
  'creditor_name',
  'creditor_iban',
  'creditor_bic',
  'prenotification_days',
] as const;

/**
 * The SEPA settings as they are kept (creditor id and IBAN upper case without spaces, the BIC upper
 * case, null when cleared), with a problem for each that is wrong. Loaded only when one is given:
 * IBANs and BICs are checked by ibantools, a library every other command can do without.
 */
async function sepaSettings(settings: AccountSettings, problems: AttributeProblem[]): Promise<Partial<Account>> {
  if (!SEPA_SETTINGS.some((name) => settings[name] !== undefined)) return {};
  const { isValidBIC, isValidIBAN, isSEPACountry } = await import('ibantools');
  const { isValidCreditorId, normaliseCreditorId } = await import('../sepa/creditor.js');
  const { toEpcLatin } = await import('../sepa/charset.js');
  const kept: Partial<Account> = {};
  if (settings.collection !== undefined) {
    if ((COLLECTION_MODES as readonly string[]).includes(settings.collection)) kept.collection = settings.collection;
    else problems.push({ attribute: 'collection', detail: `must be ${COLLECTION_MODES.join(' or ')}` });
  }
  // An empty value clears a setting (a batch then cannot be exported until it is given again).
  if (settings.creditor_id !== undefined) {
    if (settings.creditor_id.trim() === '') kept.creditor_id = null;
    else if (isValidCreditorId(settings.creditor_id)) kept.creditor_id = normaliseCreditorId(settings.creditor_id);
    else
      problems.push({
        attribute: 'creditor_id',
        detail:
          'must be a SEPA creditor identifier with valid check digits (ISO 7064 mod 97-10), e.g. NL57ZZZ999999999999',
      });
  }
  if (settings.creditor_name !== undefined) {
    const name = settings.creditor_name.trim();
    if (name === '') kept.creditor_name = null;
    else if ([...name].length > 70 || CONTROL.test(name))
      problems.push({
        attribute: 'creditor_name',
        detail: 'must be at most 70 characters, without control characters',
      });
    else if (toEpcLatin(name) === '')
      problems.push({
        attribute: 'creditor_name',
        detail: 'must have letters or digits a SEPA file can carry (the EPC Latin set, after transliteration)',
      });
    else kept.creditor_name = name;
  }
  if (settings.creditor_iban !== undefined) {
    const iban = settings.creditor_iban.replace(/\s+/g, '').toUpperCase();
    if (iban === '') kept.creditor_iban = null;
    else if (!isValidIBAN(iban))
      problems.push({ attribute: 'creditor_iban', detail: 'must be a valid IBAN (country length and check digits)' });
    else if (!isSEPACountry(iban.slice(0, 2)))
      problems.push({
        attribute: 'creditor_iban',
        detail: `must be the IBAN of an account in the SEPA area, not ${iban.slice(0, 2)}`,
      });
    else kept.creditor_iban = iban;
  }
  if (settings.creditor_bic !== undefined) {
    const bic = settings.creditor_bic.replace(/\s+/g, '').toUpperCase();
    if (bic === '') kept.creditor_bic = null;
    else if (isValidBIC(bic)) kept.creditor_bic = bic;
    else
      problems.push({
        attribute: 'creditor_bic',
        detail: 'must be a BIC of 8 or 11 characters (e.g. ABNANL2A), or empty to leave it out',
      });
  }
  if (settings.prenotification_days !== undefined) {
    const days = settings.prenotification_days;
    if (Number.isInteger(days) && days >= 1 && days <= MAX_PRENOTIFICATION_DAYS) kept.prenotification_days = days;
    else
      problems.push({
        attribute: 'prenotification_days',
        detail: `must be a whole number of days from 1 to ${MAX_PRENOTIFICATION_DAYS}`,
      });
  }
  return kept;
}

function checkSettings(settings: AccountSettings): AttributeProblem[] {
  const problems: AttributeProblem[] = [];
  if (settings.invoice_prefix !== undefined && !PREFIX.test(settings.invoice_prefix)) {
    problems.push({
      attribute: 'invoice_prefix',
      detail: 'must be 1 to 20 letters, digits or _ . / - (starting with a letter or digit)',
    });
  }
  if (settings.time_zone !== undefined && !isValidTimeZone(settings.time_zone)) {
    problems.push({ attribute: 'time_zone', detail: `is not an IANA time zone (for example Europe/Amsterdam)` });
  }
  return problems;
}

/** Minutes east of UTC in timeZone at ms, as Intl (ICU, case-insensitive about zone names) sees it. */
function intlOffsetMinutes(ms: number, timeZone: string): number {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(ms)
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
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

const byName = prepared<Account, [string]>('accounts.by-name', (q, p) =>
  q.selectFrom('accounts').selectAll().where('name', '=', p(0)),
);
const byDefault = prepared<Account, []>('accounts.default', (q) =>
  q.selectFrom('accounts').selectAll().where('is_default', '=', 1),
);
const byKeyHash = prepared<Account, [string]>('accounts.by-key', (q, p) =>
  q
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('accounts')
    .where('api_keys.key_hash', '=', p(0)),
);

export function findAccount(name: string): Unit<Account | undefined> {
  return byName.get(name);
}

/** The store's default account, made on first use (safe when several processes race to make it). */
export function defaultAccount(store: Store, clock: Clock): MaybePromise<Account> {
  return andThen(
    store.read(() => byDefault.get(), 'accounts.default'),
    (existing) =>
      existing ??
      store.write(function* () {
        const now = clock.now().toISOString();
        yield* run((q) =>
          q
            .insertInto('accounts')
            .values({
              name: DEFAULT_ACCOUNT_NAME,
              is_default: 1,
              webhook_secret: newSecret(),
              invoice_prefix: 'INV-',
              time_zone: 'Europe/Amsterdam',
              next_invoice_number: 1,
              created_at: now,
              updated_at: now,
            })
            .onConflict((oc) => oc.doNothing()),
        );
        return (yield* byDefault.get())!;
      }),
  );
}

/** Whether the account has an API key: replacing it locks out whoever uses it. */
export function* accountHasKey(name: string): Unit<boolean> {
  const account = yield* findAccount(name);
  if (!account) return false;
  return (
    (yield* get((q) => q.selectFrom('api_keys').select('id').where('account_id', '=', account.id).limit(1))) !==
    undefined
  );
}

/** An account by name; the default one is made on first use, as every command makes it. */
export async function showAccount(store: Store, clock: Clock, name: string): Promise<Result<Account>> {
  const account =
    name === DEFAULT_ACCOUNT_NAME ? await defaultAccount(store, clock) : await store.read(() => findAccount(name));
  return account ? ok(account) : notFound(`no account named "${name}"`);
}

export function listAccounts(store: Store): MaybePromise<Account[]> {
  return store.read(() => all((q) => q.selectFrom('accounts').selectAll().orderBy('id')));
}

export async function createAccount(
  store: Store,
  clock: Clock,
  name: string,
  settings: AccountSettings = {},
): Promise<Result<{ account: Account; apiKey: string }>> {
  const problems = checkSettings(settings);
  if (!NAME.test(name))
    problems.unshift({
      attribute: 'name',
      detail: 'must be 1 to 63 letters, digits, _ or -, starting with a letter or digit',
    });
  if (problems.length) return invalidAttributes(problems);
  await defaultAccount(store, clock); // the first account of a store is always the default one
  const timeZone = settings.time_zone === undefined ? 'Europe/Amsterdam' : storedTimeZone(settings.time_zone);
  return transact(store, function* () {
    if (yield* findAccount(name))
      return invalidAttributes([{ attribute: 'name', detail: `an account named "${name}" already exists` }]);
    const now = clock.now().toISOString();
    const account = (yield* get((q) =>
      q
        .insertInto('accounts')
        .values({
          name,
          is_default: 0,
          webhook_secret: newSecret(),
          invoice_prefix: settings.invoice_prefix ?? 'INV-',
          time_zone: timeZone,
          next_invoice_number: 1,
          created_at: now,
          updated_at: now,
        })
        .returningAll(),
    )) as Account;
    const apiKey = newKey();
    yield* run((q) =>
      q.insertInto('api_keys').values({ account_id: account.id, key_hash: hashKey(apiKey), created_at: now }),
    );
    return ok({ account, apiKey });
  });
}

export async function updateAccount(
  store: Store,
  clock: Clock,
  name: string,
  settings: AccountSettings,
): Promise<Result<Account>> {
  const problems = checkSettings(settings);
  const sepa = await sepaSettings(settings, problems);
  if (problems.length) return invalidAttributes(problems);
  if (name === DEFAULT_ACCOUNT_NAME) await defaultAccount(store, clock);
  const now = clock.now().toISOString();
  const changes = {
    ...(settings.invoice_prefix === undefined ? {} : { invoice_prefix: settings.invoice_prefix }),
    ...(settings.time_zone === undefined ? {} : { time_zone: storedTimeZone(settings.time_zone) }),
    ...sepa,
    updated_at: now,
  };
  // Going over to SEPA or back changes how the account's scheduled transactions are collected (collection-writes.ts).
  const switching =
    sepa.collection === undefined ? undefined : (await import('./collection-writes.js')).collectionSwitched;
  return transactLocked(store, function* () {
    const account = yield* findAccount(name);
    if (!account) return notFound<Account>(`no account named "${name}"`);
    yield* run((q) => q.updateTable('accounts').set(changes).where('id', '=', account.id));
    const updated = (yield* findAccount(name))!;
    if (switching && updated.collection !== account.collection) yield* switching(updated, now);
    return ok(updated);
  });
}

/** Replaces every key of the account with one new key, returned once. */
export async function rotateKey(
  store: Store,
  clock: Clock,
  name: string,
): Promise<Result<{ account: Account; apiKey: string }>> {
  if (name === DEFAULT_ACCOUNT_NAME) await defaultAccount(store, clock);
  return transact(store, function* () {
    const account = yield* findAccount(name);
    if (!account) return notFound(`no account named "${name}"`);
    const apiKey = newKey();
    yield* run((q) => q.deleteFrom('api_keys').where('account_id', '=', account.id));
    yield* run((q) =>
      q
        .insertInto('api_keys')
        .values({ account_id: account.id, key_hash: hashKey(apiKey), created_at: clock.now().toISOString() }),
    );
    return ok({ account, apiKey });
  });
}

/**
 * A new webhook signing secret for an account: deliveries sent from the commit on are signed with
 * it (a delivery being retried too). Separate from rotate-key: an API key leaks to whoever calls
 * the API, the secret to whoever receives the webhooks.
 */
export async function rotateWebhookSecret(store: Store, clock: Clock, name: string): Promise<Result<Account>> {
  if (name === DEFAULT_ACCOUNT_NAME) await defaultAccount(store, clock);
  return transact(store, function* () {
    const account = yield* findAccount(name);
    if (!account) return notFound(`no account named "${name}"`);
    const webhook_secret = newSecret();
    const updated_at = clock.now().toISOString();
    yield* run((q) => q.updateTable('accounts').set({ webhook_secret, updated_at }).where('id', '=', account.id));
    return ok({ ...account, webhook_secret, updated_at });
  });
}

/** The account an API key belongs to, or undefined for a missing or unknown key: run it inside a read. */
export function* authenticateKey(apiKey: string | undefined): Unit<Account | undefined> {
  if (!apiKey) return undefined;
  return yield* byKeyHash.get(hashKey(apiKey));
}

export function authenticate(store: Store, apiKey: string | undefined): MaybePromise<Account | undefined> {
  return store.read(() => authenticateKey(apiKey), 'accounts.by-key');
}
