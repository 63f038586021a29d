// Mistakes a user can make before anything is sent: one clear line, exit 2, nothing written.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/store.js';
import { cli, JAN } from './harness.js';

const JAN_FLAGS = ['--first-name', 'A', '--last-name', 'B', '--email', 'a@b.co'];

describe('errors before anything is sent', () => {
  it('when --query is not a JMESPath expression, exits 2 before creating anything', async () => {
    const c = cli();
    const result = await c.run([
      'customers',
      'create',
      '--first-name',
      'A',
      '--last-name',
      'B',
      '--email',
      'a@b.co',
      '--query',
      'data[?',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --query is not a JMESPath expression: /);
    expect(result.stdout).toBe('');
    expect(await c.customerCount()).toBe(0);
  });

  it('when --query is combined with -o csv (or ndjson, or table), exits 2 before creating anything', async () => {
    const c = cli();
    for (const format of ['csv', 'ndjson', 'table']) {
      const result = await c.run(['customers', 'create', ...JAN_FLAGS, '-o', format, '--query', 'data.id']);
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: --query prints its result as JSON and cannot be combined with -o ${format}: drop one of them\n`,
      });
    }
    expect(await c.customerCount()).toBe(0);
    // -o json is what --query prints anyway.
    expect((await c.run(['customers', 'create', ...JAN_FLAGS, '-o', 'json', '--query', 'data.id'])).stdout).toBe('1\n');
  });

  it('when the store file is not a SQLite database, exits 2 naming the file', async () => {
    const path = join(tempDir(), 'not-a-store.db');
    writeFileSync(path, 'this is not a database, just text long enough to have a header of sorts');
    const result = await cli().run(['--db', path, 'customers', 'list'], { real: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: cannot open the store ${path}: file is not a database\n`);
  });

  // Only the default location gets its folders made (an explicit --db in a missing folder: test/cli/store-existence.test.ts).
  it("when the default store's folder cannot be made, a write exits 2 at once with the folder named", async () => {
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, '');
    const result = await cli().run(['customers', 'create', ...JAN], { real: true, env: { XDG_DATA_HOME: blocker } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: cannot make the store's folder ${blocker}/billing: ENOTDIR\n`);
  });

  it.runIf(process.platform === 'linux')(
    'a folder that can never exist (under /proc) fails at once instead of spinning',
    async () => {
      const started = Date.now();
      const result = await cli().run(['customers', 'create', ...JAN], {
        real: true,
        env: { XDG_DATA_HOME: '/proc/billing-nope' },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe("error: cannot make the store's folder /proc/billing-nope: ENOENT\n");
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );
});
