// The config file: saved profiles and defaults. Read with a plain JSON parse on every command
// (start-up), written through conf (atomic writes, mode 0600: it holds API keys).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ProfileEntry {
  base_url?: string;
  api_key?: string;
  db?: string;
}

/** Keys of `billing config`: defaults below flags, environment and profile. */
export const CONFIG_KEYS = ['base_url', 'api_key', 'db', 'timeout', 'account'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export interface ConfigFile {
  current_profile?: string;
  profiles?: Record<string, ProfileEntry>;
  defaults?: Partial<Record<ConfigKey, string>>;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BILLING_CONFIG_DIR) return env.BILLING_CONFIG_DIR;
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'billing');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'billing');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'billing');
}

export const configPath = (env: NodeJS.ProcessEnv = process.env): string => join(configDir(env), 'config.json');

export class ConfigFileError extends Error {
  override name = 'ConfigFileError';
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ConfigFile {
  let text: string;
  try {
    text = readFileSync(configPath(env), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigFileError(`cannot read ${configPath(env)}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as ConfigFile) : {};
  } catch {
    throw new ConfigFileError(`${configPath(env)} is not valid JSON; fix or remove it`);
  }
}

/** Changes the config file in one atomic write, keeping mode 0600. */
export async function updateConfig(env: NodeJS.ProcessEnv, change: (config: ConfigFile) => void): Promise<void> {
  const { default: Conf } = await import('conf');
  const store = new Conf<ConfigFile>({
    cwd: configDir(env),
    configName: 'config',
    projectName: 'billing',
    projectSuffix: '',
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
  });
  const config = structuredClone(store.store) as ConfigFile;
  change(config);
  store.store = config;
}
