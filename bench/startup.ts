// Start-up: `billing customers get 1 --json` against `node -e 0`, measured side by side; and a table
// list as a person sees it, in a terminal (a pty made by script(1), for both sides of the ratio).
// Run: npm run bench:startup   (after npm install, which builds the bundle)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, compare, report, timeOnce } from './lib.js';

const runs = Number(process.env.RUNS ?? 30);
const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
try {
  const env = { ...process.env, BILLING_DB: join(dir, 'bench.db'), NO_COLOR: '1' };
  timeOnce([process.execPath, BIN, 'demo', '-q'], env);
  const medians = compare(
    {
      'node -e 0': [process.execPath, '-e', '0'],
      'billing customers get 1 --json': [process.execPath, BIN, 'customers', 'get', '1', '--json'],
      'billing --version': [process.execPath, BIN, '--version'],
    },
    runs,
    env,
  );
  const ok = report(`start-up (${runs} runs each, interleaved)`, medians, { of: 'billing customers get 1 --json', to: 'node -e 0', target: 1.6 });

  // In a terminal: the table drawn to fit, coloured. script(1) gives both commands the same pty.
  const inPty = (command: string[]) => ['script', '-qec', command.map((word) => `'${word}'`).join(' '), '/dev/null'];
  const ttyEnv = { ...env, NO_COLOR: undefined, COLUMNS: '80' };
  const table = compare(
    {
      'node -e 0 (in a terminal)': inPty([process.execPath, '-e', '0']),
      'billing customers list (in a terminal)': inPty([process.execPath, BIN, 'customers', 'list']),
    },
    runs,
    ttyEnv,
  );
  const tableOk = report(`a table list in a terminal (${runs} runs each, interleaved)`, table, { of: 'billing customers list (in a terminal)', to: 'node -e 0 (in a terminal)', target: 1.8 });
  process.exitCode = (ok && tableOk) || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
