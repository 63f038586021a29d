// Shared by the remote-mode suites: main() in process against nock (or a real local socket),
// a temporary config directory per test, and the hosted service's recorded fixtures.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { main } from '../../src/cli.js';
import type { DepsOverrides } from '../../src/lib/command/deps.js';
import { memoryIO } from '../../src/lib/cli/io.js';

export const BASE = 'https://api.test';
export const KEY = 'k_secret_123';
export const JSONAPI = 'application/vnd.api+json';
/** Real responses of the hosted service, recorded (test/fixtures/ecurring/README.md says where from). */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/ecurring/', import.meta.url));

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, removed after the test file. */
export function tempDir(prefix = 'billing-remote-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/**
 * The environment of a remote-mode run: the base URL and key, a config directory of its own (so
 * the user's real config never leaks in), no colour. `undefined` values remove a variable.
 */
export function remoteEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const dir = tempDir();
  const env: Record<string, string | undefined> = {
    BILLING_BASE_URL: BASE,
    BILLING_API_KEY: KEY,
    BILLING_CONFIG_DIR: join(dir, 'config'),
    // Never the user's store, should anything open one by mistake.
    BILLING_DB: join(dir, 'billing.db'),
    NO_COLOR: '1',
    ...extra,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall-clock milliseconds of the run. */
  ms: number;
}

export async function run(argv: string[], env: NodeJS.ProcessEnv, overrides: DepsOverrides = {}): Promise<RunResult> {
  const io = memoryIO();
  const started = performance.now();
  const code = await main(argv, io, env, overrides);
  return { code, stdout: io.stdout, stderr: io.stderr, ms: performance.now() - started };
}

export interface Fixture {
  file: string;
  request: { method: string; path: string; body?: unknown };
  response: { status: number; body?: unknown };
}

/** Every recorded request/response of the hosted service, read from the directory at test time. */
export function loadFixtures(): Fixture[] {
  return readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      ...(JSON.parse(readFileSync(join(FIXTURES_DIR, file), 'utf8')) as Omit<Fixture, 'file'>),
    }));
}

export function fixture(file: string): Fixture {
  const found = loadFixtures().find((f) => f.file === file);
  if (!found) throw new Error(`no fixture ${file} in ${FIXTURES_DIR}`);
  return structuredClone(found);
}

/** Resource ids of a document's data (one or many). */
export function idsOf(document: unknown): string[] {
  const data = (document as { data?: { id: string } | { id: string }[] | null } | undefined)?.data;
  if (!data) return [];
  return (Array.isArray(data) ? data : [data]).map((r) => r.id);
}

/** Replaces the hosted service's origin in every link with another (e.g. the nock host). */
export function rebase<T>(document: T, origin = BASE): T {
  return JSON.parse(JSON.stringify(document).replaceAll('https://api.ecurring.com', origin)) as T;
}
