// Child processes a test starts (concurrent writers, catch-ups): each says "ready" on stdout when
// it has opened the store, then waits for the test's go. None outlives the test that started it.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';

export interface Child {
  process: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves when the child printed `ready`; rejects when it exits first. */
  ready: Promise<void>;
  exit: Promise<number | null>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  // Whatever happened, no child outlives its test.
  for (const child of running.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** `node` with these arguments, in `cwd`. */
export function startChild(nodeArgs: string[], cwd: string): Child {
  const proc = spawn(process.execPath, nodeArgs, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(proc);
  const child = { process: proc, stdout: '', stderr: '' } as Child;
  child.ready = new Promise((resolve, reject) => {
    proc.stdout.on('data', (d: Buffer) => {
      child.stdout += d.toString();
      if (child.stdout.includes('ready\n')) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`child exited (${code}) before it was ready: ${child.stderr}`)));
  });
  child.ready.catch(() => {}); // the test awaits it, with the others
  proc.stderr.on('data', (d: Buffer) => (child.stderr += d.toString()));
  child.exit = new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('close', (code) => resolve(code));
  });
  return child;
}

/** The promise, or a failure naming what was awaited after ms. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
