// store snapshot NAME | snapshots | restore NAME | reset: whole copies of a SQLite store kept beside
// it (lib/store/snapshots.ts), for trying things safely. restore and reset replace everything in
// the store, so they ask first (--yes without a terminal). PostgreSQL: its own tools do this.
import { confirmAction } from '../../lib/command/confirm.js';
import type { Deps } from '../../lib/command/deps.js';
import { CliError, UsageError } from '../../lib/command/errors.js';
import { renderPlain } from '../../lib/output/render.js';
import type { SqliteStore } from '../../lib/store/store.js';
import type { SnapshotInfo } from '../../lib/store/snapshots.js';

/** The SQLite store of the command, or the plain refusal on PostgreSQL (exit 2). */
export async function sqliteStore(deps: Deps, command: string): Promise<SqliteStore> {
  const core = await deps.core(command);
  if (core.store.engine !== 'sqlite') {
    throw new UsageError(
      `${command} works on SQLite stores; this store is PostgreSQL (${core.store.location}): use the database's own tools (pg_dump and pg_restore, or CREATE DATABASE … TEMPLATE) to keep and put back copies`,
    );
  }
  return core.store as SqliteStore;
}

export async function checkedName(name: string): Promise<string> {
  const { badName } = await import('../../lib/store/snapshots.js');
  const problem = badName(name);
  if (problem) throw new UsageError(problem);
  return name;
}

export async function print(deps: Deps, value: SnapshotInfo | SnapshotInfo[]): Promise<void> {
  await renderPlain(value as unknown as Record<string, unknown>, deps.globals, deps.io, async () => {
    const { resourceTable, viewOf } = await import('../../lib/output/table.js');
    const rows = Array.isArray(value) ? value : [value];
    const tables = await Promise.all(rows.map((s) => resourceTable({ type: 'snapshot', id: s.name, attributes: { path: s.path, bytes: s.bytes, created_at: s.created_at } }, viewOf(deps.globals, deps.io), 'name')));
    return tables.join('\n');
  });
}

export async function snapshot(deps: Deps, name: string): Promise<void> {
  await checkedName(name);
  const store = await sqliteStore(deps, 'store snapshot');
  const { takeSnapshot, snapshotPath } = await import('../../lib/store/snapshots.js');
  const taken = await takeSnapshot(store, name);
  if (!taken) throw new UsageError(`a snapshot named ${name} exists (${snapshotPath(store.path, name)}): choose another name, or restore it`);
  if (!deps.globals.quiet) deps.io.err(`snapshot ${name} taken of ${store.path}\n`);
  await print(deps, taken);
}

export async function list(deps: Deps): Promise<void> {
  const store = await sqliteStore(deps, 'store snapshots');
  const { listSnapshots } = await import('../../lib/store/snapshots.js');
  const all = listSnapshots(store.path);
  if (all.length === 0) {
    if (!deps.globals.quiet) deps.io.err(`no snapshots of ${store.path} (make one: billing store snapshot NAME)\n`);
    if (deps.globals.output !== 'table') await print(deps, []);
    return;
  }
  await print(deps, all);
}

export async function restore(deps: Deps, name: string): Promise<void> {
  await checkedName(name);
  const store = await sqliteStore(deps, 'store restore');
  const { restoreSnapshot, snapshotPath } = await import('../../lib/store/snapshots.js');
  const { existsSync } = await import('node:fs');
  if (!existsSync(snapshotPath(store.path, name))) throw new CliError(`no snapshot named ${name} of ${store.path} (see: billing store snapshots)`, 1);
  await confirmAction(deps, `restore snapshot ${name}`, `Replace everything in ${store.path} by snapshot ${name}? What the store holds now is lost.`);
  const restored = (await restoreSnapshot(store.path, name))!;
  if (!deps.globals.quiet) deps.io.err(`restored snapshot ${name} into ${store.path}\n`);
  await print(deps, restored);
}

export async function reset(deps: Deps): Promise<void> {
  const store = await sqliteStore(deps, 'store reset');
  await confirmAction(deps, `reset the store ${store.path}`, `Empty ${store.path}? Everything in it is lost (snapshots are kept).`);
  const { resetStore } = await import('../../lib/store/snapshots.js');
  await resetStore(store.path);
  if (!deps.globals.quiet) deps.io.err(`the store ${store.path} is empty\n`);
}


