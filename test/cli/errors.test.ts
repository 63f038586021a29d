// Mistakes a user can make before anything is sent: one clear line, exit 2, nothing written.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/store.js';
import { cli } from './harness.js';

describe('errors before anything is sent', () => {
  it('when --query is not a JMESPath expression, exits 2 before creating anything', async () => {
    const c = cli();
    const result = await c.run(['customers', 'create', '--first-name', 'A', '--last-name', 'B', '--email', 'a@b.co', '--query', 'data[?']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --query is not a JMESPath expression: /);
    expect(result.stdout).toBe('');
    expect(await c.customerCount()).toBe(0);
  });

  it('when the store file is not a SQLite database, exits 2 naming the file', async () => {
    const path = join(tempDir(), 'not-a-store.db');
    writeFileSync(path, 'this is not a database, just text long enough to have a header of sorts');
    const result = await cli().run(['--db', path, 'customers', 'list'], { real: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: cannot open the store ${path}: file is not a database\n`);
  });

  it("when the store's folder cannot be made, exits 2 at once with the folder named", async () => {
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, '');
    const path = join(blocker, 'sub', 'billing.db');
    const result = await cli().run(['--db', path, 'customers', 'list'], { real: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^error: cannot (make the store's folder ${blocker}/sub|open the store)`));
  });

  it.runIf(process.platform === 'linux')('a folder that can never exist (under /proc) fails at once instead of spinning', async () => {
    const started = Date.now();
    const result = await cli().run(['--db', '/proc/billing-nope/x.db', 'customers', 'list'], { real: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: cannot make the store's folder /proc/billing-nope: ENOENT\n");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
