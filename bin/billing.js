#!/usr/bin/env node
// Runs the bundle dist/billing.cjs (built by `npm install` through scripts/build.mjs), compiled
// with V8's code cache so that start-up skips parsing. Never runs the TypeScript sources.
// CommonJS (bin/package.json) because the ES module loader alone costs a few ms per start.
'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

// `billing import` runs in a process of its own with a small V8 young generation (and old space
// kept near what it uses), so its memory stays flat whatever the size of the file: by default V8
// lets the garbage of a long stream of rows grow the heap by a hundred MB before collecting it.
// These sizes are set when the heap is made, so only by flags on node's command line: the import
// starts node again with them (about 40 ms, only for import). The child inherits stdin, stdout and
// stderr (stdin for `-`, the terminal for the progress bar); its exit code and a signal that ended
// it are this process's; a signal sent to this process is passed on. If this process dies without
// passing anything on (SIGKILL), the child stops too (its IPC channel closes): never an import
// that goes on unseen beside a rerun (which would import its rows twice).
const IMPORT_HEAP_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=1024'];
/** Global options that take a value (as src/cli.ts VALUE_OPTIONS; a test holds the two alike). */
const VALUE_OPTIONS = new Set([
  '-o',
  '--output',
  '--db',
  '--base-url',
  '--api-key',
  '--profile',
  '--account',
  '--query',
  '--timeout',
  '--pool-size',
]);
const firstWord = (argv) => {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') return undefined;
    if (!argv[i].startsWith('-')) return argv[i];
    if (VALUE_OPTIONS.has(argv[i])) i++;
  }
  return undefined;
};
if (process.env.BILLING_IMPORT_LAUNCHER) {
  // The import's own process (BILLING_IMPORT_LAUNCHER: the launcher's pid, which the import also
  // checks before every batch it commits: the event loop may not turn for a while).
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  }
} else if (
  firstWord(process.argv.slice(2)) === 'import' &&
  !process.env.BILLING_WARM_COMMANDS &&
  !process.execArgv.some((flag) => flag.startsWith('--max-semi-space-size'))
) {
  runImportProcess();
  return;
}

function runImportProcess() {
  const { spawn } = require('node:child_process');
  const child = spawn(
    process.execPath,
    [...process.execArgv, ...IMPORT_HEAP_FLAGS, __filename, ...process.argv.slice(2)],
    {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, BILLING_IMPORT_LAUNCHER: String(process.pid) },
    },
  );
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  const pass = (signal) => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  };
  for (const signal of signals) process.on(signal, pass);
  child.on('error', (error) => {
    process.stderr.write(`billing: cannot start the import: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const name of signals) process.off(name, pass);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

const dist = join(__dirname, '..', 'dist');
const bundle = join(dist, 'billing.cjs');
const cacheFile = `${bundle}.cache`;

let source;
try {
  // latin1: the build makes the bundle ASCII, and decoding it as UTF-8 takes twice as long.
  source = readFileSync(bundle, 'latin1');
} catch {
  process.stderr.write('billing: the build is missing; run `npm install` (or `npm run build`) first\n');
  process.exit(2);
}
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // no cache yet: compile from source
}

const script = new Script(Module.wrap(source), { filename: bundle, cachedData });
const bundled = { exports: {} };
script.runInThisContext()(bundled.exports, Module.createRequire(bundle), bundled, bundle, dist);

// A missing or rejected cache (another Node version) is rewritten once this run has warmed it.
if (process.env.BILLING_WRITE_CODE_CACHE || (cachedData && script.cachedDataRejected)) {
  process.once('exit', () => {
    try {
      const temporary = `${cacheFile}.${process.pid}`;
      writeFileSync(temporary, script.createCachedData());
      renameSync(temporary, cacheFile);
    } catch {
      // read-only install: run without a cache
    }
  });
}

// The build warms the cache with several commands in one process (BILLING_WARM_COMMANDS, a JSON
// list of argument lists run one after another), so the functions of each are in it: a read, a
// write (finalising an invoice) and the catch-up of the work it leaves due.
const warming = process.env.BILLING_WARM_COMMANDS ? JSON.parse(process.env.BILLING_WARM_COMMANDS) : undefined;
const runs = warming
  ? warming.reduce((done, argv) => done.then(() => bundled.exports.main(argv)), Promise.resolve(0))
  : bundled.exports.main(process.argv.slice(2));
runs.then((code) => {
  process.exitCode = code;
});
