// Short ids (issue 23, point 4): a transaction is named by the start of its id as git names a
// commit (8 hex digits or more; several that start so are exit 2, listed), tables on a terminal show
// each id as its shortest start no other row has, and events list shows the newest first.
import { describe, expect, it } from 'vitest';
import { all, run as sql } from '../../src/lib/store/unit.js';
import { testCore } from '../helpers/store.js';
import { cli } from './harness.js';

const IDS = [
  'abcdef01-0000-4000-8000-000000000001',
  'abcdef01-f000-4000-8000-000000000002',
  'abcdef02-0000-4000-8000-000000000003',
];

/** A store with three subscriptions whose latest transactions (scheduled, not yet collected) have the ids above. */
async function arranged() {
  const run = cli();
  await run.seedCustomers(3);
  expect((await run.run(['plans', 'create', '--name', 'Box', '--amount', '10'])).code).toBe(0);
  for (const n of [1, 2, 3]) {
    const made = await run.run([
      'subscriptions',
      'create',
      '--customer-id',
      String(n),
      '--subscription-plan-id',
      '1',
      '--status',
      'active',
      '--mandate-accepted',
      '--mandate-accepted-date',
      '2026-11-20',
    ]);
    expect(made.code, made.stderr).toBe(0);
  }
  const core = await testCore({ dbPath: run.dbPath });
  await core.store.write(function* () {
    for (const [n, id] of IDS.entries()) {
      const [first] = yield* all((q) =>
        q
          .selectFrom('transactions')
          .select('id')
          .where('subscription_id', '=', n + 1)
          .orderBy('seq')
          .limit(1),
      );
      yield* sql((q) => q.updateTable('transactions').set({ id }).where('id', '=', first.id));
    }
  });
  await core.store.close();
  return run;
}

describe('short ids', () => {
  it('transactions get takes a start of 8 hex digits or more; several that start so are exit 2, listed', async () => {
    const run = await arranged();
    const one = await run.run(['transactions', 'get', 'abcdef01f', '--json']);
    expect(one.code, one.stderr + one.stdout).toBe(0);
    expect(JSON.parse(one.stdout).data.id).toBe(IDS[1]);
    expect(JSON.parse((await run.run(['transactions', 'get', 'ABCDEF02', '--json'])).stdout).data.id).toBe(IDS[2]);
    const both = await run.run(['transactions', 'get', 'abcdef01']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('abcdef01 is the start of 2 transaction ids; give more of it:');
    expect(both.stderr).toContain(IDS[0]);
    expect(both.stderr).toContain(IDS[1]);
    const none = await run.run(['transactions', 'get', 'abcdef03']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no transaction has an id starting with abcdef03');
    const short = await run.run(['transactions', 'get', 'abcdef0']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('or its first 8 hex digits or more');
    // A command that acts is as careful: cancel refuses a start two ids share, before it asks.
    const cancel = await run.run(['transactions', 'cancel', 'abcdef01', '--yes']);
    expect(cancel.code).toBe(2);
  });

  it('a table on a terminal shows each id as its shortest start no other row has; without one, whole', async () => {
    const run = await arranged();
    const table = await run.run(['transactions', 'list'], { tty: true, columns: 100, env: { NO_COLOR: '1' } });
    expect(table.code, table.stderr).toBe(0);
    for (const start of ['abcdef01-0 ', 'abcdef01-f ', 'abcdef02 ']) expect(table.stdout).toContain(`│ ${start}`);
    expect(table.stdout).not.toContain(IDS[0]);
    const tsv = await run.run(['transactions', 'list']);
    for (const id of IDS) expect(tsv.stdout).toContain(id);
  });

  it('events list shows the newest first; --after and --sort id the oldest first', async () => {
    const run = await arranged();
    const ids = async (...argv: string[]) =>
      (JSON.parse((await run.run(['events', 'list', '--json', ...argv])).stdout).data as { id: string }[]).map((e) =>
        Number(e.id),
      );
    const newest = await ids();
    expect(newest).toEqual([...newest].sort((a, b) => b - a));
    expect(await ids('--sort', 'id', '--page-size', '3')).toEqual([1, 2, 3]);
    expect(await ids('--after', '2', '--page-size', '2')).toEqual([3, 4]);
  });
});
