// Runs the built CLI (bin/billing.js, the bundle) as a user would, with a clean environment.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/billing.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A config folder of the test run's own: a person's saved profiles and defaults never take part. */
export const TEST_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'billing-config-'));

export function runCli(args: string[], options: { env?: Record<string, string | undefined>; stdin?: string; timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR, ...options.env };
    const child = spawn(process.execPath, [BIN, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'], cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = join(ROOT, 'dist', 'billing.cjs');

/**
 * Builds the bundle the spawned CLI runs when it is missing, or when it lacks `marker` (text only
 * code newer than the last build has): `npm test` builds first, a single test file run may not.
 */
export function ensureBundle(marker?: string): void {
  if (existsSync(BUNDLE) && (marker === undefined || readFileSync(BUNDLE, 'utf8').includes(marker))) return;
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build failed:\n${built.stderr}`);
}
