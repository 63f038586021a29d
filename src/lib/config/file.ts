// The config file: saved profiles and defaults. Read with a plain JSON parse on every command
// (start-up) and checked, so that a file of the wrong shape is an error naming it rather than a
// guess, for reads and writes alike: a write never replaces a file it cannot understand. Writes
// are one read-modify-write under a lock file (config.json.lock, made with O_EXCL: processes
// changing profiles at the same moment queue, none loses another's change), then a temporary
// file renamed over the old one, mode 0600: it holds API keys. Messages never quote the file.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir, hostname } from 'node:os';
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

/** The config file cannot be read, understood or written (exit 2). */
export class ConfigFileError extends Error {
  override name = 'ConfigFileError';
}

/** Another process held the config file's lock for longer than a change waits (exit 1: try again). */
export class ConfigLockError extends Error {
  override name = 'ConfigLockError';
}

/**
 * A profile or setting by name, only when the file itself has it: "constructor", "toString" or
 * "__proto__" are never taken from Object.prototype.
 */
export function own<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && record !== null && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** An empty object without a prototype: nothing is in it that the file did not put there. */
export const emptyRecord = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const ordinal = (n: number): string =>
  `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
const PROFILE_FIELDS = ['base_url', 'api_key', 'db'] as const;

/**
 * What is wrong with the shape of a parsed config file, in words that quote nothing of it (a
 * profile is named by its place in the file: its name might be a pasted key); undefined when it is
 * fine. Fields this version does not know are left alone.
 */
function shapeProblem(parsed: unknown): string | undefined {
  if (!isObject(parsed)) return 'is not a JSON object';
  if (parsed.current_profile !== undefined && typeof parsed.current_profile !== 'string')
    return 'has a current_profile that is not a string';
  if (parsed.profiles !== undefined) {
    if (!isObject(parsed.profiles)) return 'has profiles that are not an object';
    let n = 0;
    for (const profile of Object.values(parsed.profiles)) {
      n++;
      if (!isObject(profile)) return `has a profile that is not an object (the ${ordinal(n)} in the file)`;
      for (const field of PROFILE_FIELDS) {
        if (profile[field] !== undefined && typeof profile[field] !== 'string')
          return `has a profile whose ${field} is not a string (the ${ordinal(n)} in the file)`;
      }
    }
  }
  if (parsed.defaults !== undefined) {
    if (!isObject(parsed.defaults)) return 'has defaults that are not an object';
    for (const key of CONFIG_KEYS) {
      const value = parsed.defaults[key];
      // A timeout written by hand may be a number.
      if (value !== undefined && typeof value !== 'string' && !(key === 'timeout' && typeof value === 'number')) {
        return `has a default ${key} that is not a string${key === 'timeout' ? ' or a number' : ''}`;
      }
    }
  }
  return undefined;
}

/** Parses and checks the file's text; every object in the result has no prototype. */
function parse(text: string, path: string): ConfigFile {
  if (text.trim() === '') return {}; // an empty file holds nothing to lose
  let parsed: unknown;
  try {
    // Not the parser's message: it quotes the text around the error, which may be a key.
    parsed = JSON.parse(text, (_key, value: unknown) =>
      isObject(value) ? Object.assign(emptyRecord(), value) : value,
    );
  } catch {
    throw new ConfigFileError(`${path} is not valid JSON; fix or remove it`);
  }
  const problem = shapeProblem(parsed);
  if (problem) throw new ConfigFileError(`${path} ${problem}; fix or remove it`);
  return parsed as ConfigFile;
}

function readAt(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    throw new ConfigFileError(`cannot read ${path}: ${code ?? (error as Error).message}`);
  }
  return parse(text, path);
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ConfigFile {
  return readAt(configPath(env));
}

export interface UpdateOptions {
  /** How long to wait for another process's lock (default 10 s). */
  lockTimeoutMs?: number;
}

const LOCK_TIMEOUT_MS = 10_000;

/**
 * Changes the config file: under its lock, reads it (a file that cannot be understood is an error,
 * never overwritten), lets `change` edit it (a throw writes nothing), and writes it back atomically
 * with mode 0600. Returns what `change` returns.
 */
export async function updateConfig<T>(
  env: NodeJS.ProcessEnv,
  change: (config: ConfigFile) => T,
  options: UpdateOptions = {},
): Promise<T> {
  const dir = configDir(env);
  const path = configPath(env);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigFileError(
      `cannot make the folder ${dir} of the config file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return withLock(path, options.lockTimeoutMs ?? LOCK_TIMEOUT_MS, () => {
    const config = readAt(path);
    const result = change(config);
    writeAtomically(path, `${JSON.stringify(config, null, 2)}\n`);
    return result;
  });
}

/** A temporary file beside the target, synced, then renamed over it: readers see the old file or the new one. */
function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      fchmodSync(fd, 0o600); // whatever the umask
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new ConfigFileError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

// ---- the lock ----

interface Holder {
  pid: number;
  host: string;
  token: string;
}

/** A lock file whose writer died before writing into it is stale after this long. */
const EMPTY_LOCK_STALE_MS = 2_000;
/** A lock of another host (a shared folder), whose process cannot be asked after, is stale after this long. */
const FOREIGN_LOCK_STALE_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process, alive
  }
}

function readHolder(text: string): Holder | undefined {
  try {
    const holder = JSON.parse(text) as Partial<Holder>;
    return typeof holder.pid === 'number' && typeof holder.host === 'string' && typeof holder.token === 'string'
      ? (holder as Holder)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs fn holding `${path}.lock`: made with O_EXCL (only one process can), retried with a growing
 * pause for up to timeoutMs. A lock left by a process that is gone (same host, its pid not running;
 * or a lock never written into) is taken away; a lock of a live process is waited for.
 */
async function withLock<T>(path: string, timeoutMs: number, fn: () => T): Promise<T> {
  const lockPath = `${path}.lock`;
  const me: Holder = { pid: process.pid, host: hostname(), token: randomBytes(8).toString('hex') };
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new ConfigFileError(`cannot lock ${path} (${lockPath}): ${code ?? (error as Error).message}`);
      if (breakIfStale(lockPath)) continue;
      if (Date.now() >= deadline) {
        let holder: Holder | undefined;
        try {
          holder = readHolder(readFileSync(lockPath, 'utf8'));
        } catch {
          holder = undefined;
        }
        const by = holder ? ` by process ${holder.pid}${holder.host === me.host ? '' : ` on ${holder.host}`}` : '';
        throw new ConfigLockError(
          `the config file ${path} is locked${by} (${lockPath}); try again, or remove the lock file if no billing command is running`,
        );
      }
      await sleep(Math.min(5 * 2 ** attempt, 100) * (0.5 + Math.random() / 2));
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(me));
    } finally {
      closeSync(fd);
    }
    break;
  }
  try {
    return fn();
  } finally {
    release(lockPath, me.token);
  }
}

/** Removes the lock only while it is still this process's (a lock judged stale may have been taken over). */
function release(lockPath: string, token: string): void {
  try {
    if (readHolder(readFileSync(lockPath, 'utf8'))?.token === token) rmSync(lockPath, { force: true });
  } catch {
    // already gone
  }
}

/**
 * Whether to try taking the lock again at once: it is gone, or it was stale and is now removed.
 * A stale lock is renamed aside first (atomic), then checked to be the very file judged stale
 * before it is deleted, so two processes that both find it stale never delete a fresh lock.
 */
function breakIfStale(lockPath: string): boolean {
  let text: string;
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(lockPath);
    text = readFileSync(lockPath, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
  const holder = readHolder(text);
  const age = Date.now() - stat.mtimeMs;
  const stale =
    holder === undefined
      ? age > EMPTY_LOCK_STALE_MS
      : holder.host === hostname()
        ? !alive(holder.pid)
        : age > FOREIGN_LOCK_STALE_MS;
  if (!stale) return false;
  // Its holder may have let go and exited after it was read, and another process taken the lock:
  // judged on what is there now. (Moved aside, a fresh lock is put back, but another process can
  // take the lock meanwhile: two changes at once, one lost. Ten processes started together did.)
  try {
    const now = statSync(lockPath);
    if (now.ino !== stat.ino || now.mtimeMs !== stat.mtimeMs || readFileSync(lockPath, 'utf8') !== text) return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
  const aside = `${lockPath}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'; // someone else took it away first; otherwise wait
  }
  let same = false;
  try {
    const moved = statSync(aside);
    same = moved.ino === stat.ino && moved.mtimeMs === stat.mtimeMs && readFileSync(aside, 'utf8') === text;
    if (!same) linkSync(aside, lockPath); // a fresh lock was moved by mistake: put it back
  } catch {
    // a newer lock exists already
  }
  rmSync(aside, { force: true });
  return same;
}
