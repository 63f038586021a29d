// Looking after the store itself, as the `store` commands do: what it holds (info), copying it into
// another store of either engine, and keeping whole copies of a SQLite store beside it (snapshots).
// Named operations of the runtime over store/.
import { copyStore as copy, sameStore, type CopyProgress, type CopyResult } from '../store/copy.js';
import { storeInfo as info, type StoreInfo } from '../store/info.js';
import * as snapshots from '../store/snapshots.js';
import { openStore, parseLocation, type SqliteStore } from '../store/store.js';
import type { Runtime } from './runtime.js';

export type { CopyProgress, CopyResult, StoreInfo };
export type SnapshotInfo = snapshots.SnapshotInfo;
export { CopyRefusedError } from '../store/copy.js';

/** The engine, where the store is, its schema version and rows per table. Reads only (no default account is made). */
export const storeInfo = (runtime: Runtime): Promise<StoreInfo> => info(runtime.store);

/** Whether `to` names the runtime's own store (a copy onto itself is refused before the target is opened). */
export function copiesOntoItself(runtime: Runtime, to: string): Promise<boolean> {
  parseLocation(to); // a URL of another engine is refused before anything is opened
  return sameStore(runtime.store.location, to);
}

/** Copies everything into the empty store at `to` (made when missing), closed again afterwards. */
export async function copyStore(
  runtime: Runtime,
  to: string,
  o: { poolSize?: number; onProgress?: (progress: CopyProgress) => void } = {},
): Promise<CopyResult> {
  const target = await openStore(to, { poolSize: o.poolSize });
  try {
    return await copy(runtime.store, target, { onProgress: o.onProgress });
  } finally {
    await target.close();
  }
}

/** The SQLite file of the runtime's store; undefined on PostgreSQL, whose own tools keep copies. */
export const sqlitePath = (runtime: Runtime): string | undefined =>
  runtime.store.engine === 'sqlite' ? (runtime.store as SqliteStore).path : undefined;

export const snapshotNameProblem = snapshots.badName;
export const snapshotPath = snapshots.snapshotPath;
export const listSnapshots = snapshots.listSnapshots;
export const restoreSnapshot = snapshots.restoreSnapshot;
export const resetStore = snapshots.resetStore;

/** A whole copy of the runtime's SQLite store named `name`; undefined when one of that name exists. */
export const takeSnapshot = (runtime: Runtime, name: string): Promise<SnapshotInfo | undefined> =>
  snapshots.takeSnapshot(runtime.store as SqliteStore, name);
