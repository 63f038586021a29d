// Where a command connects: flag > environment > profile > config default > built-in default,
// for the store, the base URL and the API key each. The mode follows the higher-ranked of the
// store and the base URL (an explicit --db is embedded mode whatever the profile says; at the same
// rank the base URL wins, and --db with --base-url is a contradiction). A key saved in a profile
// (or in the config defaults) is sent only to the base URL saved beside it.
import type { GlobalOptions } from '../cli/globals.js';
import { own, type ConfigFile, type ProfileEntry } from './file.js';
import { defaultDbPath } from './paths.js';
import { isSendableKey, unsendableKey } from '../transport/keys.js';

/** Where a setting came from, highest rank first. */
export type Source = 'flag' | 'env' | 'profile' | 'config' | 'default';
const RANK: Record<Source, number> = { flag: 4, env: 3, profile: 2, config: 1, default: 0 };

export interface Settings {
  mode: 'embedded' | 'remote';
  dbPath: string;
  dbSource: Source;
  baseUrl?: string;
  baseUrlSource?: Source;
  apiKey?: string;
  apiKeySource?: Source;
  /** Request timeout in milliseconds (remote mode). */
  timeoutMs: number;
  /** The profile in use, if any. */
  profile?: string;
  /** What chose the profile: --profile, BILLING_PROFILE or the config's current profile. */
  profileSource?: Source;
  /** Embedded mode: the account to act as (remote mode never has one: the key decides). */
  account?: string;
  /**
   * Remote mode: why nothing may be sent (a key of another base URL, a key no header can carry,
   * --account). Checked when the transport is made, so commands that send nothing still run.
   */
  refusal?: string;
}

export class UnknownProfileError extends Error {
  override name = 'UnknownProfileError';
}

/** --db with --base-url, both flags of another pair that cannot both hold, or a setting no value of its kind (exit 2). */
export class ConflictingSettingsError extends Error {
  override name = 'ConflictingSettingsError';
}

export const DEFAULT_TIMEOUT_SECONDS = 30;

/** The longest timer Node keeps (2^31 - 1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** A timeout set by `where`, in seconds; none when unset, and a usage error when set to no number above 0. */
const seconds = (value: unknown, where: string): number | undefined => {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return undefined;
  // Hand-edited config files may hold a number rather than a string.
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  if (Number.isFinite(n) && n > 0) return n;
  // Ignored, it left every request waiting the default 30 s, blamed on --timeout.
  throw new ConflictingSettingsError(`${where} must be a number of seconds above 0, not ${JSON.stringify(value)}`);
};

/** The first value that is set, with where it came from. */
function pick<T>(...candidates: [Source, T | undefined | ''][]): { value: T; source: Source } | undefined {
  for (const [source, value] of candidates) if (value !== undefined && value !== '') return { value, source };
  return undefined;
}

const trimUrl = (url: string): string => url.replace(/\/+$/, '');

const KEY_SOURCE_WORDS: Record<Source, string> = {
  flag: 'from --api-key',
  env: 'from BILLING_API_KEY',
  profile: 'of profile',
  config: 'of the config defaults (billing config set api_key)',
  default: '',
};
const URL_SOURCE_WORDS: Record<Source, string> = {
  flag: 'from --base-url',
  env: 'from BILLING_BASE_URL',
  profile: 'of profile',
  config: 'from the config defaults (billing config set base_url)',
  default: '',
};

export function resolveSettings(globals: GlobalOptions, env: NodeJS.ProcessEnv, config: ConfigFile = {}): Settings {
  const chosenProfile = pick<string>(
    ['flag', globals.profile],
    ['env', env.BILLING_PROFILE],
    ['config', config.current_profile],
  );
  const profileName = chosenProfile?.value;
  let profile: ProfileEntry = {};
  if (profileName !== undefined) {
    const found = own(config.profiles, profileName);
    if (!found) throw new UnknownProfileError(`no profile named "${profileName}" (see: billing profiles list)`);
    profile = found;
  }
  const defaults = config.defaults ?? {};
  const fromDefaults = (key: 'base_url' | 'api_key' | 'db' | 'account' | 'timeout') =>
    own(defaults as Record<string, string | undefined>, key);

  const db = pick<string>(
    ['flag', globals.db],
    ['env', env.BILLING_DB],
    ['profile', profile.db],
    ['config', fromDefaults('db')],
  ) ?? {
    value: defaultDbPath(env),
    source: 'default' as const,
  };
  const baseUrl = pick<string>(
    ['flag', globals.baseUrl],
    ['env', env.BILLING_BASE_URL],
    ['profile', profile.base_url],
    ['config', fromDefaults('base_url')],
  );
  if (db.source === 'flag' && baseUrl?.source === 'flag') {
    throw new ConflictingSettingsError(
      '--db (an embedded store) and --base-url (a server) contradict each other: give one of them',
    );
  }
  const mode = baseUrl !== undefined && RANK[baseUrl.source] >= RANK[db.source] ? 'remote' : 'embedded';
  const apiKey = pick<string>(
    ['flag', globals.apiKey],
    ['env', env.BILLING_API_KEY],
    ['profile', profile.api_key],
    ['config', fromDefaults('api_key')],
  );
  const account = pick<string>(
    ['flag', globals.account],
    ['env', env.BILLING_ACCOUNT],
    ['config', fromDefaults('account')],
  );
  // Requests to a server time out; in process nothing does, and a bad value there stops nothing.
  const timeoutSeconds =
    (mode === 'embedded' ? DEFAULT_TIMEOUT_SECONDS : undefined) ??
    globals.timeout ??
    seconds(env.BILLING_TIMEOUT, 'BILLING_TIMEOUT') ??
    seconds(fromDefaults('timeout'), 'the config default timeout (billing config set timeout)') ??
    DEFAULT_TIMEOUT_SECONDS;

  let refusal: string | undefined;
  if (mode === 'remote') {
    const url = trimUrl(baseUrl!.value);
    const urlWhere =
      baseUrl!.source === 'profile' ? `${URL_SOURCE_WORDS.profile} ${profileName}` : URL_SOURCE_WORDS[baseUrl!.source];
    const keyWhere =
      apiKey &&
      (apiKey.source === 'profile' ? `${KEY_SOURCE_WORDS.profile} ${profileName}` : KEY_SOURCE_WORDS[apiKey.source]);
    // A stored key belongs to the base URL stored beside it; only a key given for this run goes anywhere.
    const home =
      apiKey?.source === 'profile'
        ? profile.base_url
        : apiKey?.source === 'config'
          ? fromDefaults('base_url')
          : undefined;
    if (apiKey && !isSendableKey(apiKey.value)) {
      refusal = unsendableKey(keyWhere!);
    } else if (
      apiKey &&
      (apiKey.source === 'profile' || apiKey.source === 'config') &&
      (home === undefined || trimUrl(home) !== url)
    ) {
      const only =
        home === undefined
          ? 'is only sent to a base URL saved with it, and there is none'
          : `is only sent to ${trimUrl(home)}`;
      refusal = `the API key ${keyWhere} ${only}; give --api-key or BILLING_API_KEY for ${url} (${urlWhere})`;
    } else if (account?.source === 'flag') {
      refusal =
        '--account chooses an account of the embedded store; in remote mode the API key decides the account (drop --account)';
    } else if (account?.source === 'env') {
      refusal =
        'BILLING_ACCOUNT chooses an account of the embedded store; in remote mode the API key decides the account (unset BILLING_ACCOUNT)';
    }
  }
  return {
    mode,
    dbPath: db.value,
    dbSource: db.source,
    baseUrl: baseUrl === undefined ? undefined : trimUrl(baseUrl.value),
    baseUrlSource: baseUrl?.source,
    apiKey: apiKey?.value,
    apiKeySource: apiKey?.source,
    timeoutMs: Math.min(Math.round(timeoutSeconds * 1000), MAX_TIMEOUT_MS),
    profile: profileName,
    profileSource: chosenProfile?.source,
    // The config's default account is for the embedded store; remote mode leaves it aside.
    account: mode === 'embedded' ? account?.value : undefined,
    refusal,
  };
}
