// Runs the built CLI (bin/billing.js, the bundle) as a user would, with a clean environment.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const BIN = fileURLToPath(new URL('../../bin/billing.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A config folder of the test run's own: a person's saved profiles and defaults never take part. */
export const TEST_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'billing-config-'));
// One a test file (each file loads this module afresh), removed when the file ends: a run leaves no folders behind.
afterAll(() => rmSync(TEST_CONFIG_DIR, { recursive: true, force: true }));

export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      BILLING_CONFIG_DIR: TEST_CONFIG_DIR,
      ...options.env,
    };
    const child = spawn(process.execPath, [BIN, ...args], {
      env: env,
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: options.cwd,
    });
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

/** A running `billing serve` child: the port its "listening on" line names, its exit, what it wrote. */
export interface ServeChild {
  child: ChildProcess;
  port: Promise<number>;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
}

/** Watches a spawned `billing serve` (stderr piped; stdout too if piped) for its port, within 10 s. */
export function watchServe(child: ChildProcess): ServeChild {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 10 s; stderr: ${stderr}`)), 10_000);
    const check = () => {
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (!match) return;
      clearTimeout(timer);
      child.stderr!.off('data', check);
      resolve(Number(match[1]));
    };
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening; stderr: ${stderr}`));
    });
  });
  return { child, port, exited, output: () => ({ stdout, stderr }) };
}
