// store snapshot NAME | snapshots | restore NAME | reset: whole copies of a SQLite store kept beside
// it (lib/store/snapshots.ts, through lib/runtime/maintenance.ts), for trying things safely. restore and reset replace everything in
// the store, so they ask first (--yes without a terminal). PostgreSQL: its own tools do this.
import { confirmAction } from '../../lib/command/confirm.js';
import { busyMsFromEnv, type Deps } from '../../lib/command/deps.js';
import { CliError, UsageError } from '../../lib/cli/errors.js';
import { renderPlain } from '../../lib/output/render.js';
import type * as MaintenanceModule from '../../lib/runtime/maintenance.js';
import type { SnapshotInfo } from '../../lib/runtime/maintenance.js';
import type { Runtime } from '../../lib/runtime/runtime.js';

type Maintenance = typeof MaintenanceModule;

/**
 * The runtime of a SQLite store and the path of its file, or the plain refusal on PostgreSQL
 * (exit 2). `store snapshot` and `store snapshots` only read the store.
 */
export async function sqliteStore(
  deps: Deps,
  command: string,
  write: boolean,
): Promise<{ runtime: Runtime; path: string; maintenance: Maintenance }> {
  const runtime = await deps.runtime(command, { write });
  const maintenance = await import('../../lib/runtime/maintenance.js');
  const path = maintenance.sqlitePath(runtime);
  if (path === undefined) {
    throw new UsageError(
      `${command} works on SQLite stores; this store is PostgreSQL (${runtime.store.location}): use the database's own tools (pg_dump and pg_restore, or CREATE DATABASE … TEMPLATE) to keep and put back copies`,
    );
  }
  return { runtime, path, maintenance };
}

export async function checkedName(name: string): Promise<string> {
  const { snapshotNameProblem } = await import('../../lib/runtime/maintenance.js');
  const problem = snapshotNameProblem(name);
  if (problem) throw new UsageError(problem);
  return name;
}

export async function print(deps: Deps, value: SnapshotInfo | SnapshotInfo[]): Promise<void> {
  await renderPlain(value as unknown as Record<string, unknown>, deps.globals, deps.io, async () => {
    const { resourceTable, viewOf } = await import('../../lib/output/table.js');
    const rows = Array.isArray(value) ? value : [value];
    const tables = await Promise.all(
      rows.map((s) =>
        resourceTable(
          { type: 'snapshot', id: s.name, attributes: { path: s.path, bytes: s.bytes, created_at: s.created_at } },
          viewOf(deps.globals, deps.io),
          'name',
        ),
      ),
    );
    return tables.join('\n');
  });
}

export async function snapshot(deps: Deps, name: string): Promise<void> {
  await checkedName(name);
  const { runtime, path, maintenance } = await sqliteStore(deps, 'store snapshot', false);
  const taken = await maintenance.takeSnapshot(runtime, name);
  if (!taken)
    throw new UsageError(
      `a snapshot named ${name} exists (${maintenance.snapshotPath(path, name)}): choose another name, or restore it`,
    );
  if (!deps.globals.quiet) deps.io.err(`snapshot ${name} taken of ${path}\n`);
  await print(deps, taken);
}

export async function list(deps: Deps): Promise<void> {
  const { path, maintenance } = await sqliteStore(deps, 'store snapshots', false);
  const all = maintenance.listSnapshots(path);
  if (all.length === 0) {
    if (!deps.globals.quiet) deps.io.err(`no snapshots of ${path} (make one: billing store snapshot NAME)\n`);
    if (deps.globals.output !== 'table') await print(deps, []);
    return;
  }
  await print(deps, all);
}

export async function restore(deps: Deps, name: string): Promise<void> {
  await checkedName(name);
  const { path, maintenance } = await sqliteStore(deps, 'store restore', true);
  const { existsSync } = await import('node:fs');
  if (!existsSync(maintenance.snapshotPath(path, name)))
    throw new CliError(`no snapshot named ${name} of ${path} (see: billing store snapshots)`, 1);
  await confirmAction(
    deps,
    `restore snapshot ${name}`,
    `Replace everything in ${path} by snapshot ${name}? What the store holds now is lost.`,
  );
  const restored = (await maintenance.restoreSnapshot(path, name, busyMsFromEnv(deps.env)))!;
  if (!deps.globals.quiet) deps.io.err(`restored snapshot ${name} into ${path}\n`);
  await print(deps, restored);
}

export async function reset(deps: Deps): Promise<void> {
  const { path, maintenance } = await sqliteStore(deps, 'store reset', true);
  await confirmAction(deps, `reset the store ${path}`, `Empty ${path}? Everything in it is lost (snapshots are kept).`);
  await maintenance.resetStore(path, busyMsFromEnv(deps.env));
  if (!deps.globals.quiet) deps.io.err(`the store ${path} is empty\n`);
}
