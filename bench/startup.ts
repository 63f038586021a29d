// Start-up: `billing customers get 1 --json` against `node -e 0`, measured side by side.
// Run: npm run bench:startup   (after npm install, which builds the bundle)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, compare, report, timeOnce } from './lib.js';

const runs = Number(process.env.RUNS ?? 30);
const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
try {
  const env = { ...process.env, BILLING_DB: join(dir, 'bench.db'), NO_COLOR: '1' };
  timeOnce([process.execPath, BIN, 'customers', 'create', '--first-name', 'Jan', '--last-name', 'Jansen', '--email', 'jan@example.com', '-q'], env);
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
  process.exitCode = ok || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
