// The bundle's V8 code cache (dist/billing.cjs.cache), which the build warms with the commands
// people run most: a run under other V8 flags (a command run in a process of its own with heap
// limits, a profiler) leaves it as it is, since V8 would reject what such a run wrote in every plain
// run after it; a plain run that finds it rejected (another Node version) writes one that is taken.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBundle, TEST_CONFIG_DIR } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the code cache', () => {
  // A copy of the install (bin, dist, node_modules linked), so the cache of the tree stays as built.
  let install: string;
  let cache: string;
  beforeAll(() => {
    ensureBundle();
    install = mkdtempSync(join(tmpdir(), 'billing-cache-'));
    cpSync(join(ROOT, 'bin'), join(install, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist'), join(install, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(install, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(install, 'node_modules'), 'dir');
    cache = join(install, 'dist', 'billing.cjs.cache');
  });
  afterAll(() => rmSync(install, { recursive: true, force: true }));

  const billing = (nodeFlags: string[], args: string[], env: Record<string, string> = {}) => {
    const result = spawnSync(process.execPath, [...nodeFlags, join(install, 'bin', 'billing.js'), ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BILLING_CONFIG_DIR: TEST_CONFIG_DIR, ...env },
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    return result.stdout;
  };

  it('a run under other V8 flags uses it or not, and leaves it as the build warmed it', () => {
    const built = readFileSync(cache);
    // The heap limits bin/heap.js gives imports and collection files, and NODE_OPTIONS.
    expect(billing(['--max-semi-space-size=4'], ['--version'])).toMatch(/^\d+\.\d+\.\d+/);
    expect(billing([], ['--version'], { NODE_OPTIONS: '--max-old-space-size=1024' })).toMatch(/^\d+\.\d+\.\d+/);
    expect(readFileSync(cache).equals(built)).toBe(true);
    // A plain run takes it as it is.
    billing([], ['--version']);
    expect(readFileSync(cache).equals(built)).toBe(true);
  });

  it('a plain run that finds it rejected writes one the next run takes', () => {
    writeFileSync(cache, Buffer.alloc(4096, 1));
    billing([], ['--version']);
    const written = readFileSync(cache);
    expect(written.equals(Buffer.alloc(4096, 1))).toBe(false);
    expect(written.length).toBeGreaterThan(100_000);
    billing([], ['--version']);
    expect(readFileSync(cache).equals(written)).toBe(true);
  });

  // The launcher reads the cache into the buffer the bundle was read into, sized for the larger:
  // a cache cut short there would be unreadable, and written again.
  it('a plain run without one writes one, and one longer than the bundle is taken whole', () => {
    const built = readFileSync(cache);
    rmSync(cache);
    expect(billing([], ['customers', 'list', '--help'])).toMatch(/^Usage: billing customers list/);
    const written = readFileSync(cache);
    expect(written.length).toBeGreaterThan(100_000);
    billing([], ['--version']);
    expect(readFileSync(cache).equals(written)).toBe(true);
    // V8 reads its own length from the cache: bytes after it are ignored.
    const longer = Buffer.concat([built, Buffer.alloc(statSync(join(install, 'dist', 'billing.cjs')).size, 7)]);
    writeFileSync(cache, longer);
    expect(billing([], ['customers', 'list', '--help'])).toMatch(/^Usage: billing customers list/);
    expect(readFileSync(cache).equals(longer)).toBe(true);
    writeFileSync(cache, built);
  });

  it('a cache it cannot write leaves no part of one behind', () => {
    const built = readFileSync(cache);
    rmSync(cache);
    mkdirSync(cache); // read as no cache, and renamed onto in vain
    try {
      expect(billing([], ['--version'])).toMatch(/^\d+\.\d+\.\d+/);
      expect(readdirSync(join(install, 'dist')).filter((name) => name.startsWith('billing.cjs.cache.'))).toEqual([]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
      writeFileSync(cache, built);
    }
  });

  it('a missing bundle is exit 2, saying how to build it', () => {
    const bundle = join(install, 'dist', 'billing.cjs');
    renameSync(bundle, `${bundle}.away`);
    try {
      const result = spawnSync(process.execPath, [join(install, 'bin', 'billing.js'), '--version'], {
        encoding: 'utf8',
      });
      expect(result.status).toBe(2);
      expect(result.stderr).toBe('billing: the build is missing; run `npm install` (or `npm run build`) first\n');
    } finally {
      renameSync(`${bundle}.away`, bundle);
    }
  });
});
