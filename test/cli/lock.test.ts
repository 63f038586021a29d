// The embedded CLI while another process (a child of its own) holds the SQLite store's write lock:
// a command that writes waits for it (there is no event loop to protect) for BILLING_BUSY_MS, then
// exits 1 with "store busy, try again", naming the store's file and the process holding the lock,
// having changed nothing. Reads are not held up.
import { beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { ensureBundle, runCli } from '../helpers/cli.js';
import { holdWriteLock } from '../helpers/lock.js';
import { storeWithAccount } from '../helpers/store.js';

beforeAll(() => ensureBundle('BILLING_BUSY_MS'), 120_000);

const customers = async (dbPath: string) => {
  const store = await openStore(dbPath);
  try {
    return await store.read(() => all((q) => q.selectFrom('customers').select('email')));
  } finally {
    await store.close();
  }
};

describe('embedded commands while another process holds the SQLite write lock', () => {
  it('a write waits BILLING_BUSY_MS, exits 1 "store busy, try again" naming file and holder', async () => {
    const { dbPath } = await storeWithAccount();
    const holder = await holdWriteLock(dbPath);
    const env = { BILLING_BUSY_MS: '500' };
    const create = [
      'customers',
      'create',
      '--first-name',
      'Jan',
      '--last-name',
      'Jansen',
      '--email',
      'jan@example.com',
    ];
    const created = await runCli(['--db', dbPath, ...create], { env });
    expect(created.code).toBe(1);
    expect(created.stdout).toBe('');
    expect(created.stderr).toBe(
      `error: store busy, try again: another process, pid ${holder.pid} (node), kept ${dbPath} locked for writing ` +
        'longer than the 0.5 s wait (BILLING_BUSY_MS); nothing was changed\n',
    );
    // A write outside the API's routes (the clock), the same.
    const advanced = await runCli(['--db', dbPath, 'clock', 'advance', 'P1D'], { env });
    expect(advanced.code).toBe(1);
    expect(advanced.stderr).toMatch(
      /^error: store busy, try again: .* kept .* locked for writing longer than the 0\.5 s wait/,
    );
    const listed = await runCli(['--db', dbPath, 'customers', 'list'], { env });
    expect(listed.code).toBe(0);
    await holder.release();
    expect(await customers(dbPath)).toEqual([]);
    // Once the lock is free, the same command writes.
    expect((await runCli(['--db', dbPath, ...create], { env })).code).toBe(0);
    expect(await customers(dbPath)).toEqual([{ email: 'jan@example.com' }]);
  }, 120_000);

  it('BILLING_BUSY_MS that is not a whole number of milliseconds is a usage error (exit 2) naming it', async () => {
    const { dbPath } = await storeWithAccount();
    for (const value of ['soon', '-1', '1.5', '3600001']) {
      const result = await runCli(['--db', dbPath, 'customers', 'list'], { env: { BILLING_BUSY_MS: value } });
      expect(result.code, value).toBe(2);
      expect(result.stderr).toBe(
        `error: BILLING_BUSY_MS must be a whole number of milliseconds from 0 to 3600000, not "${value}"\n`,
      );
    }
  }, 60_000);
});
