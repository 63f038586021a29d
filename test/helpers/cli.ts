// Runs the built CLI (bin/billing.js, the bundle) as a user would, with a clean environment.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
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
