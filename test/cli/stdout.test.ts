// The built CLI's standard output when it is no terminal: a document is written whole with write(2),
// and nothing is lost when the descriptor would block (a pipe another program made non-blocking)
// or when the reader has gone.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, ensureBundle, TEST_CONFIG_DIR } from '../helpers/cli.js';
import { bigStore } from '../helpers/big-store.js';

const env = () => ({ PATH: process.env.PATH, HOME: process.env.HOME, BILLING_CONFIG_DIR: TEST_CONFIG_DIR });

describe('standard output that is no terminal', () => {
  it('a pipe another program made non-blocking (EAGAIN): the whole document arrives, exit 0', async () => {
    ensureBundle();
    const db = bigStore(150);
    // perl (Debian's essential perl-base) sets O_NONBLOCK on the pipe and runs billing on it; the
    // reader waits before reading, so billing finds the pipe (64 KB) full part way through.
    const nonBlocking = 'my $f = fcntl(STDOUT, F_GETFL, 0); fcntl(STDOUT, F_SETFL, $f | O_NONBLOCK) or die; exec @ARGV';
    const billing = [process.execPath, BIN, '--db', db, 'customers', 'list', '--page-size', '100', '--json'];
    const child = spawn(
      'sh',
      ['-c', '{ perl -MFcntl -e "$0" "$@"; echo "billing exit $?" >&2; } | (sleep 0.5; cat)', nonBlocking, ...billing],
      {
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code, stderr).toBe(0);
    expect(stderr).toBe('billing exit 0\n');
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.length).toBeGreaterThan(64 * 1024);
    const document = JSON.parse(text) as { data: { id: string }[] };
    expect(document.data.map((c) => Number(c.id))).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('the reader gone before a document is written: exit 0, nothing on stderr', async () => {
    ensureBundle();
    const db = bigStore(150);
    const child = spawn(process.execPath, [BIN, '--db', db, 'customers', 'list', '--page-size', '100', '--json'], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code, stderr).toBe(0);
    expect(stderr).toBe('');
  });
});
