// Where a command connects: flag > environment > profile > default, for every setting.
import type { GlobalOptions } from '../command/globals.js';
import { defaultDbPath } from './paths.js';

export interface Profile {
  baseUrl?: string;
  apiKey?: string;
  db?: string;
}

export interface Settings {
  mode: 'embedded' | 'remote';
  dbPath: string;
  baseUrl?: string;
  apiKey?: string;
}

export function resolveSettings(globals: GlobalOptions, env: NodeJS.ProcessEnv, profile: Profile = {}): Settings {
  const baseUrl = globals.baseUrl ?? (env.BILLING_BASE_URL || undefined) ?? profile.baseUrl;
  return {
    mode: baseUrl ? 'remote' : 'embedded',
    dbPath: globals.db ?? (env.BILLING_DB || undefined) ?? profile.db ?? defaultDbPath(env),
    baseUrl,
    apiKey: globals.apiKey ?? (env.BILLING_API_KEY || undefined) ?? profile.apiKey,
  };
}
