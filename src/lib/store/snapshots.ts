// Snapshots of a SQLite store: whole copies kept beside it (`<store>.snapshots/<name>.db`), made and
// put back through SQLite's backup API, for trying things safely. PostgreSQL has its own tools.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { openSqliteStore, replaceSqliteStore } from './sqlite.js';
import { StoreOpenError, type SqliteStore } from './store.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why a snapshot name is refused, or undefined: letters, digits and . _ - (at most 64), a letter or digit first. */
export const badName = (name: string): string | undefined =>
  NAME.test(name)
    ? undefined
    : `the snapshot name "${name}" must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit`;

export const snapshotsDir = (storePath: string): string => join(dirname(storePath), `${basename(storePath)}.snapshots`);
export const snapshotPath = (storePath: string, name: string): string => join(snapshotsDir(storePath), `${name}.db`);

export interface SnapshotInfo {
  name: string;
  path: string;
  bytes: number;
  created_at: string;
}

const info = (path: string, name: string): SnapshotInfo => {
  const stat = statSync(path);
  return { name, path, bytes: stat.size, created_at: stat.mtime.toISOString() };
};

/** The snapshots of a store, oldest first. */
export function listSnapshots(storePath: string): SnapshotInfo[] {
  const dir = snapshotsDir(storePath);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.db') && !badName(file.slice(0, -3)))
    .map((file) => info(join(dir, file), file.slice(0, -3)))
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** A folder this user cannot write, said as such (exit 2); any other error as it is. */
function unwritable(error: unknown, message: string): unknown {
  const code = (error as { code?: string }).code ?? '';
  return /^SQLITE_(READONLY|CANTOPEN)/.test(code) || code === 'EACCES' || code === 'EROFS'
    ? new StoreOpenError(message)
    : error;
}

/** A new snapshot; refused (undefined) when one of that name exists. Written beside, then moved in: never half a snapshot. */
export async function takeSnapshot(store: SqliteStore, name: string): Promise<SnapshotInfo | undefined> {
  const path = snapshotPath(store.path, name);
  if (existsSync(path)) return undefined;
  mkdirSync(snapshotsDir(store.path), { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  try {
    await store.backup(partial);
    renameSync(partial, path);
  } catch (error) {
    throw unwritable(
      error,
      `cannot keep the snapshot ${name}: the folder ${snapshotsDir(store.path)} cannot be written`,
    );
  } finally {
    rmSync(partial, { force: true });
    rmSync(`${partial}-journal`, { force: true });
  }
  return info(path, name);
}

/** Puts a snapshot back over the store (whose connections may stay open). */
export async function restoreSnapshot(
  storePath: string,
  name: string,
  busyMs?: number,
): Promise<SnapshotInfo | undefined> {
  const path = snapshotPath(storePath, name);
  if (!existsSync(path)) return undefined;
  try {
    await replaceSqliteStore(path, storePath, busyMs);
  } catch (error) {
    // A snapshot is a store in WAL mode: reading it makes its shared-memory file beside it.
    throw unwritable(
      error,
      `cannot read the snapshot ${name}: the folder ${snapshotsDir(storePath)} cannot be written (SQLite makes the snapshot's shared-memory file there); the store is unchanged`,
    );
  }
  return info(path, name);
}

/** Empties the store: an empty store of this version put over it, as a restore would. */
export async function resetStore(storePath: string, busyMs?: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'billing-reset-'));
  try {
    const empty = join(dir, 'empty.db');
    await openSqliteStore(empty).close();
    await replaceSqliteStore(empty, storePath, busyMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
