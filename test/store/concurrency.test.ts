// Four processes write to one store at the same moment (one SQLite file, or one PostgreSQL
// database): nobody sees SQLITE_BUSY or a serialization failure, nothing is lost.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { all } from '../../src/lib/store/unit.js';
import { ENGINE, freshPostgresUrl } from '../helpers/engine.js';
import { startChild, within, type Child } from '../helpers/children.js';
import { tempDir, testCore } from '../helpers/store.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = 'test/store/fixtures/create-customers.ts';
const CHILDREN = 4;
const PER_CHILD = 200;

const start = (args: string[]): Child => startChild(['--import', 'tsx', FIXTURE, ...args], ROOT);

describe(`concurrent writers on one store on ${ENGINE}`, () => {
  it('when four processes each create 200 customers at once, all succeed and all 800 are there with distinct ids', async () => {
    const dir = tempDir();
    const dbPath = ENGINE === 'sqlite' ? join(dir, 'shared.db') : await freshPostgresUrl();
    const goFile = join(dir, 'go');
    const children = Array.from({ length: CHILDREN }, (_, n) =>
      start([dbPath, goFile, String(PER_CHILD), `writer${n}`]),
    );

    await within(Promise.all(children.map((c) => c.ready)), 30_000, 'the children to load');
    writeFileSync(goFile, ''); // the barrier opens for all four at once
    const codes = await within(Promise.all(children.map((c) => c.exit)), 60_000, 'the children to finish');

    for (const [n, child] of children.entries()) {
      expect(child.stderr, `child ${n} stderr`).not.toMatch(
        /SQLITE_BUSY|database is locked|could not serialize|deadlock/i,
      );
      expect(codes[n], `child ${n} stderr: ${child.stderr}`).toBe(0);
    }

    const reported = children.flatMap((c) => {
      const line = c.stdout.split('\n').find((l) => l.startsWith('{'));
      expect(line, `child output: ${c.stdout}`).toBeDefined();
      const { ids } = JSON.parse(line!) as { ids: string[] };
      expect(ids).toHaveLength(PER_CHILD);
      return ids;
    });
    expect(new Set(reported).size).toBe(CHILDREN * PER_CHILD);
    // The writers really raced: their ids interleave rather than coming in one block per child.
    const ranges = children.map((_, n) => {
      const ids = reported.slice(n * PER_CHILD, (n + 1) * PER_CHILD).map(Number);
      return [Math.min(...ids), Math.max(...ids)] as const;
    });
    const overlapping = ranges.some(([lo, hi], n) => ranges.some(([lo2, hi2], m) => m !== n && lo < hi2 && lo2 < hi));
    expect(overlapping, `id ranges per child: ${JSON.stringify(ranges)}`).toBe(true);

    const core = await testCore({ dbPath });
    expect(await core.store.read(() => all((q) => q.selectFrom('accounts').select('id')))).toHaveLength(1);
    const answer = await core.router.handle(
      { method: 'GET', path: '/customers', query: 'page[size]=1' },
      await core.account(),
    );
    expect((answer.body as { meta: { total: number } }).meta.total).toBe(CHILDREN * PER_CHILD);
    const rows = await core.store.read(() =>
      all((q) => q.selectFrom('customers').select(['id', 'first_name', 'last_name'])),
    );
    expect(new Set(rows.map((r) => r.id)).size).toBe(CHILDREN * PER_CHILD);
    expect(new Set(rows.map((r) => String(r.id)))).toEqual(new Set(reported));
    for (let n = 0; n < CHILDREN; n++) {
      const mine = rows.filter((r) => r.first_name === `writer${n}`).map((r) => r.last_name);
      expect(new Set(mine).size, `writer${n}`).toBe(PER_CHILD);
    }
  }, 120_000);
});
