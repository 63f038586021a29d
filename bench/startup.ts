// Start-up: `billing customers get 1 --json` against `node -e 0`, measured side by side; a table
// list as a person sees it, in a terminal (a pty made by script(1), for both sides of the ratio);
// and `billing invoices finalise ID`, a write, each run finalising a draft of its own.
// Run: npm run bench:startup   (after npm install, which builds the bundle)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, compare, memoryTouch, report, timeOnce } from './lib.js';

const runs = Number(process.env.RUNS ?? 30);

/** n drafts with one line each on the demo's first subscription, through the router as a client would make them. */
async function makeDrafts(db: string, n: number): Promise<number[]> {
  const { openRuntime } = await import('../src/lib/runtime/runtime.js');
  const core = await openRuntime({ location: db });
  try {
    const account = await core.account();
    const send = async (method: string, path: string, body: unknown) => {
      const answer = await core.router.handle({ method, path, body: JSON.stringify(body) }, account);
      if (answer.status !== 201)
        throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return Number((answer.body as { data: { id: string } }).data.id);
    };
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const id = await send('POST', '/invoices', { data: { type: 'invoice', attributes: { subscription_id: 1 } } });
      await send('POST', '/invoice-lines', {
        data: {
          type: 'invoice-line',
          attributes: { invoice_id: id, description: 'Session', amount: '45.00', tax_rate: 21 },
        },
      });
      ids.push(id);
    }
    return ids;
  } finally {
    await core.store.close();
  }
}
const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
try {
  const env = { ...process.env, BILLING_DB: join(dir, 'bench.db'), NO_COLOR: '1' };
  timeOnce([process.execPath, BIN, 'demo', '-q'], env);
  console.log(`\nthis hour of the machine: ${memoryTouch()}`);
  const medians = compare(
    {
      'node -e 0': [process.execPath, '-e', '0'],
      'billing customers get 1 --json': [process.execPath, BIN, 'customers', 'get', '1', '--json'],
      'billing --version': [process.execPath, BIN, '--version'],
    },
    runs,
    env,
  );
  const ok = report(`start-up (${runs} runs each, interleaved)`, medians, {
    of: 'billing customers get 1 --json',
    to: 'node -e 0',
    target: 1.4,
  });

  // One draft with a line per run (and the warm-up), made through the API before timing.
  const drafts = await makeDrafts(env.BILLING_DB, runs + 1);
  const finalising = compare(
    {
      'node -e 0': [process.execPath, '-e', '0'],
      'billing invoices finalise ID': (run) => [
        process.execPath,
        BIN,
        'invoices',
        'finalise',
        String(drafts[run]),
        '-q',
      ],
    },
    runs,
    env,
  );
  const finaliseOk = report(`finalising (${runs} runs each, interleaved; each a draft of its own)`, finalising, {
    of: 'billing invoices finalise ID',
    to: 'node -e 0',
    target: 1.4,
  });

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
  const tableOk = report(`a table list in a terminal (${runs} runs each, interleaved)`, table, {
    of: 'billing customers list (in a terminal)',
    to: 'node -e 0 (in a terminal)',
    target: 1.8,
  });
  console.log(`\nthis hour of the machine, at the end: ${memoryTouch()}`);
  process.exitCode = (ok && tableOk && finaliseOk) || process.env.BENCH_STRICT !== '1' ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
