// Runs the CLI's sources in child processes (see fixtures/billing-source.ts): as this user, or, when
// the tests run as root (whom file modes do not stop), as root without the capabilities that
// override file modes (setpriv drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), so that a file
// without write permission really cannot be written. Root stays the owner of everything it made,
// so the repository and the temporary files stay readable wherever the checkout is.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const TSX = createRequire(import.meta.url).resolve('tsx');
const ENTRY = fileURLToPath(new URL('./fixtures/billing-source.ts', import.meta.url));
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const isRoot = (): boolean => process.getuid?.() === 0;

export interface SourceResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SourceOptions {
  env?: Record<string, string | undefined>;
  /** When root, run without the capabilities that override file modes. */
  unprivileged?: boolean;
  timeoutMs?: number;
}

export function runSource(args: string[], options: SourceOptions = {}): Promise<SourceResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, NO_COLOR: '1', ...options.env };
    const node = [process.execPath, '--import', TSX, ENTRY, ...args];
    const dropped = [
      'setpriv',
      '--bounding-set=-dac_override,-dac_read_search',
      '--inh-caps=-dac_override,-dac_read_search',
      '--',
    ];
    const [command, ...rest] = options.unprivileged && isRoot() ? [...dropped, ...node] : node;
    const child = spawn(command, rest, { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
