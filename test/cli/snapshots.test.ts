// store snapshot | snapshots | restore | reset on a SQLite store, through main() in process
// (harness.ts): a snapshot taken, the store changed, the snapshot put back (also under a second
// connection that stays open, as a running billing serve's would), the store emptied; every refusal
// (no --yes without a terminal, a declined question, a name used twice, a bad or unknown name, a
// PostgreSQL store) changes nothing.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import { openStore } from '../../src/lib/store/store.js';
import { get } from '../../src/lib/store/unit.js';
import { freshPostgresUrl } from '../helpers/engine.js';
import { cli, type Cli } from './harness.js';

const customers = async (c: Cli): Promise<number> =>
  JSON.parse((await c.run(['store', 'info', '--json'])).stdout).counts.customers;

async function withCustomers(n: number): Promise<Cli> {
  const c = cli();
  await c.seedCustomers(n);
  expect(await customers(c)).toBe(n);
  return c;
}

describe('store snapshots (SQLite)', () => {
  it('takes a snapshot, and restoring it puts the store back as it was, under connections that stay open', async () => {
    const c = await withCustomers(3);
    const taken = await c.run(['store', 'snapshot', 'before', '--json']);
    expect(taken.code, taken.stderr).toBe(0);
    const info = JSON.parse(taken.stdout);
    expect(info).toMatchObject({ name: 'before', path: `${c.dbPath}.snapshots/before.db` });
    expect(info.bytes).toBeGreaterThan(0);
    expect(existsSync(info.path)).toBe(true);
    await c.seedCustomers(2, 4);
    expect(await customers(c)).toBe(5);
    // Another connection, open across the restore (a running billing serve).
    const other = await openStore(c.dbPath);
    try {
      const restored = await c.run(['store', 'restore', 'before', '--yes']);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stderr).toContain('restored snapshot before');
      expect(await customers(c)).toBe(3);
      const seen = await other.read(() =>
        get((q) => q.selectFrom('customers').select((eb) => eb.fn.countAll<number>().as('n'))),
      );
      expect(Number(seen!.n)).toBe(3);
    } finally {
      await other.close();
    }
    // The snapshot is kept, and listed.
    const listed = await c.run(['store', 'snapshots', '--json']);
    expect(JSON.parse(listed.stdout).map((s: { name: string }) => s.name)).toEqual(['before']);
  });

  it('restore and reset ask first: without a terminal they need --yes (exit 2), declined they change nothing', async () => {
    const c = await withCustomers(2);
    expect((await c.run(['store', 'snapshot', 'empty-ish'])).code).toBe(0);
    await c.seedCustomers(1, 3);
    const refused = await c.run(['store', 'restore', 'empty-ish']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const declined = await c.run(['store', 'reset'], { prompter: fakePrompter([false]) });
    expect(declined.code).not.toBe(0);
    expect(await customers(c)).toBe(3);
    const asked = fakePrompter([true]);
    expect((await c.run(['store', 'restore', 'empty-ish'], { prompter: asked })).code).toBe(0);
    expect(asked.asked).toHaveLength(1);
    expect(await customers(c)).toBe(2);
  });

  it('reset empties the store and keeps the snapshots; a later command starts on an empty store', async () => {
    const c = await withCustomers(2);
    expect((await c.run(['store', 'snapshot', 'keep'])).code).toBe(0);
    const reset = await c.run(['store', 'reset', '--yes']);
    expect(reset.code, reset.stderr).toBe(0);
    const counts = JSON.parse((await c.run(['store', 'info', '--json'])).stdout).counts;
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
    expect((await c.run(['store', 'restore', 'keep', '--yes'])).code).toBe(0);
    expect(await customers(c)).toBe(2);
  });

  it('refuses a name used twice, a bad name and an unknown snapshot, and --dry-run, changing nothing', async () => {
    const c = await withCustomers(1);
    expect((await c.run(['store', 'snapshot', 'one'])).code).toBe(0);
    const twice = await c.run(['store', 'snapshot', 'one']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('a snapshot named one exists');
    for (const name of ['two words', '../escape', '.hidden', 'x'.repeat(65)]) {
      const bad = await c.run(['store', 'snapshot', name]);
      expect(bad.code, name).toBe(2);
      expect(bad.stderr).toContain('must be 1 to 64 letters');
    }
    const unknown = await c.run(['store', 'restore', 'nope', '--yes']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no snapshot named nope');
    for (const argv of [
      ['store', 'restore', 'one'],
      ['store', 'reset'],
      ['store', 'snapshot', 'three'],
    ]) {
      expect((await c.run([...argv, '--dry-run'])).code, argv.join(' ')).toBe(2);
    }
    expect(
      JSON.parse((await c.run(['store', 'snapshots', '--json'])).stdout).map((s: { name: string }) => s.name),
    ).toEqual(['one']);
    expect(await customers(c)).toBe(1);
  });

  it('restore and reset wait for another process’s write lock, then put the store back; past the wait, exit 1 and nothing changed', async () => {
    const c = await withCustomers(2);
    expect((await c.run(['store', 'snapshot', 'two'])).code).toBe(0);
    await c.seedCustomers(1, 3);
    // Another connection in the middle of a write (a sqlite3 shell, a long import).
    const writer = new Database(c.dbPath);
    try {
      writer.exec('BEGIN IMMEDIATE');
      const short = { env: { BILLING_BUSY_MS: '300' } };
      for (const argv of [
        ['store', 'restore', 'two', '--yes'],
        ['store', 'reset', '--yes'],
      ]) {
        const refused = await c.run(argv, short);
        expect([refused.code, refused.stdout], argv.join(' ')).toEqual([1, '']);
        expect(refused.stderr, argv.join(' ')).toContain('store busy, try again');
        expect(refused.stderr).toContain('nothing was changed');
      }
      writer.exec('COMMIT');
      expect(await customers(c)).toBe(3);
      writer.exec('BEGIN IMMEDIATE');
      setTimeout(() => writer.exec('COMMIT'), 300);
      const waited = await c.run(['store', 'restore', 'two', '--yes'], { env: { BILLING_BUSY_MS: '5000' } });
      expect(waited.code, waited.stderr).toBe(0);
      expect(await customers(c)).toBe(2);
    } finally {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('refuses to restore a snapshot a newer billing made (exit 2, both versions named): the store stays this billing’s', async () => {
    const c = await withCustomers(2);
    expect((await c.run(['store', 'snapshot', 'newer'])).code).toBe(0);
    await c.seedCustomers(1, 3);
    const snapshot = new Database(`${c.dbPath}.snapshots/newer.db`);
    const known = snapshot.pragma('user_version', { simple: true }) as number;
    snapshot.pragma(`user_version = ${known + 1}`);
    snapshot.close();
    const refused = await c.run(['store', 'restore', 'newer', '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`is at schema version ${known + 1}, which a newer billing made`);
    expect(refused.stderr).toContain(`knows versions up to ${known}`);
    expect(await customers(c)).toBe(3);
    expect((await c.run(['store', 'snapshots'])).code).toBe(0);
  });

  it('on a PostgreSQL store says plainly that the database’s own tools do this (exit 2)', async () => {
    const url = await freshPostgresUrl();
    for (const argv of [
      ['store', 'snapshot', 'x'],
      ['store', 'restore', 'x', '--yes'],
      ['store', 'reset', '--yes'],
    ]) {
      const refused = await cli(url).run(argv);
      expect(refused.code, argv.join(' ')).toBe(2);
      expect(refused.stderr).toContain('pg_dump');
    }
  });
});
