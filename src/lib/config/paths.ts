// Per-user locations, following each platform's convention.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'billing');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'billing');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'billing');
}

export const defaultDbPath = (env: NodeJS.ProcessEnv = process.env): string => join(userDataDir(env), 'billing.db');
