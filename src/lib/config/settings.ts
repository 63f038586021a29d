// Where a command connects: flag > environment > profile > config default > built-in default.
import type { GlobalOptions } from '../command/globals.js';
import type { ConfigFile, ProfileEntry } from './file.js';
import { defaultDbPath } from './paths.js';

export interface Settings {
  mode: 'embedded' | 'remote';
  dbPath: string;
  baseUrl?: string;
  apiKey?: string;
  /** Request timeout in milliseconds (remote mode). */
  timeoutMs: number;
  /** The profile in use, if any. */
  profile?: string;
  account?: string;
}

export class UnknownProfileError extends Error {
  override name = 'UnknownProfileError';
}

export const DEFAULT_TIMEOUT_SECONDS = 30;

/** The longest timer Node keeps (2^31 - 1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** A number of seconds above 0 from the environment or the config file; anything else is left out. */
const seconds = (value: unknown): number | undefined => {
  // Hand-edited config files may hold a number rather than a string.
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

const first = <T>(...values: (T | undefined | '')[]): T | undefined => values.find((v) => v !== undefined && v !== '') as T | undefined;

export function resolveSettings(globals: GlobalOptions, env: NodeJS.ProcessEnv, config: ConfigFile = {}): Settings {
  const profileName = first(globals.profile, env.BILLING_PROFILE, config.current_profile);
  let profile: ProfileEntry = {};
  if (profileName !== undefined) {
    const found = config.profiles?.[profileName];
    if (!found) throw new UnknownProfileError(`no profile named "${profileName}" (see: billing profiles list)`);
    profile = found;
  }
  const defaults = config.defaults ?? {};
  const baseUrl = first(globals.baseUrl, env.BILLING_BASE_URL, profile.base_url, defaults.base_url);
  const timeoutSeconds = first(globals.timeout, seconds(env.BILLING_TIMEOUT), seconds(defaults.timeout)) ?? DEFAULT_TIMEOUT_SECONDS;
  return {
    mode: baseUrl ? 'remote' : 'embedded',
    dbPath: first(globals.db, env.BILLING_DB, profile.db, defaults.db) ?? defaultDbPath(env),
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    apiKey: first(globals.apiKey, env.BILLING_API_KEY, profile.api_key, defaults.api_key),
    timeoutMs: Math.min(Math.round(timeoutSeconds * 1000), MAX_TIMEOUT_MS),
    profile: profileName,
    account: first(globals.account, env.BILLING_ACCOUNT, defaults.account),
  };
}
