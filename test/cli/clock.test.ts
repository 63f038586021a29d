// clock: embedded only, its arguments checked before the store is opened, and `clock show` (and any
// --dry-run) only reading: a store that does not exist is not made. What moving the clock does on
// the embedded core is in subscriptions-e2e.test.ts.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clock } from '../../src/commands/clock/index.js';
import { tempDbPath } from '../helpers/store.js';
import { overlong, runDouble } from './service-double.js';

const REMOTE = ['--base-url', 'http://127.0.0.1:9', '--api-key', 'bk_x'];

describe('clock is embedded only', () => {
  it.each([
    ['show', []],
    ['set', ['2027-01-31']],
    ['advance', ['P1M']],
    ['reset', []],
  ])('clock %s in remote mode: exit 2, nothing sent', async (verb, args) => {
    expect(await runDouble([...REMOTE, 'clock', verb, ...args])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: clock ${verb} works only on the embedded store; it cannot run against http://127.0.0.1:9 (drop --base-url / BILLING_BASE_URL)\n`,
      requests: [],
    });
  });

  it('remote mode is named before a bad argument', async () => {
    expect((await runDouble([...REMOTE, 'clock', 'advance', 'a month'])).stderr).toContain(
      'works only on the embedded store',
    );
  });
});

describe('arguments are checked before the store is opened (exit 2)', () => {
  it.each(['31-01-2027', '2027-02-30', 'tomorrow', '2027-01-31T09:00'])('clock set %s', async (text) => {
    const db = tempDbPath();
    const result = await runDouble(['--db', db, 'clock', 'set', text]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: DATETIME must be a date (2026-12-01, 00:00 in the account's time zone) or a datetime with an offset (2026-12-01T09:00:00+01:00), not "${text}"\n`,
      requests: [],
    });
    expect(existsSync(db)).toBe(false);
  });

  it.each(['1M', 'P', 'P0D', 'a month', 'P1.5M', 'P-1D'])('clock advance %s', async (text) => {
    const db = tempDbPath();
    const result = await runDouble(['--db', db, 'clock', 'advance', text]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: DURATION must be an ISO 8601 duration that moves the clock on, such as P1M, P10D, PT6H or P1Y2M3DT4H, not "${text}"\n`,
      requests: [],
    });
    expect(existsSync(db)).toBe(false);
  });

  it('a missing argument is exit 2', async () => {
    expect((await runDouble(['clock', 'set'])).code).toBe(2);
    expect((await runDouble(['clock', 'advance'])).code).toBe(2);
  });
});

describe('reading commands make no store', () => {
  it.each(
    [
      ['clock', 'show'],
      ['--dry-run', 'clock', 'advance', 'P1M'],
      ['--dry-run', 'clock', 'set', '2027-01-31'],
      ['--dry-run', 'clock', 'reset'],
    ].map((argv) => [argv.join(' '), argv] as const),
  )('%s on a store that does not exist: exit 2, nothing made', async (_name, argv) => {
    const db = tempDbPath();
    const result = await runDouble(['--db', db, ...argv]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(existsSync(db)).toBe(false);
  });
});

describe('help', () => {
  it('the group shows every verb and its examples; each verb has examples and reads at 80 columns', async () => {
    const result = await runDouble(['clock', '--help']);
    expect(result.code).toBe(0);
    for (const verb of Object.keys(clock.verbs)) expect(result.stdout).toMatch(new RegExp(`\\n  ${verb}\\b`));
    for (const example of clock.examples ?? []) expect(result.stdout).toContain(`  $ ${example}`);
    for (const verb of Object.keys(clock.verbs)) {
      const help = await runDouble(['clock', verb, '--help']);
      expect(help.stdout).toContain(`\nExamples:\n  $ billing clock ${verb}`);
      expect(overlong(help.stdout)).toEqual([]);
    }
  });

  it('clock get suggests clock show', async () => {
    expect((await runDouble(['clock', 'get'])).stderr).toContain("did you mean 'billing clock show'?");
  });
});
