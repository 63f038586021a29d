#!/usr/bin/env node
// Runs the bundle dist/billing.cjs (built by `npm install` through scripts/build.mjs), compiled
// with V8's code cache so that start-up skips parsing. Never runs the TypeScript sources.
// CommonJS (bin/package.json) because the ES module loader alone costs a few ms per start.
'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

// Commands that stream many rows (bin/heap.js) run in a process of their own with heap limits,
// which only flags on node's command line can set: the launcher starts node again with them (about
// 40 ms, only for those commands). The child inherits stdin, stdout and stderr (stdin for `-`, the
// terminal for the progress bar); its exit code and a signal that ended it are this process's; a
// signal sent to this process is passed on. If this process dies without passing anything on
// (SIGKILL), the child stops too (its IPC channel closes): never an import that goes on unseen
// beside a rerun (which would import its rows twice).
if (process.env.BILLING_IMPORT_LAUNCHER) {
  // The command's own process (BILLING_IMPORT_LAUNCHER: the launcher's pid, which an import also
  // checks before every batch it commits: the event loop may not turn for a while).
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  }
} else if (
  !process.env.BILLING_WARM_COMMANDS &&
  !process.execArgv.some((flag) => flag.startsWith('--max-semi-space-size')) &&
  // Loading heap.js is a module resolved, read and compiled (0.4 ms): only for the nouns it names.
  process.argv.some((word) => word === 'import' || word === 'collections')
) {
  const flags = require('./heap.js').heapFlagsFor(process.argv.slice(2));
  if (flags) {
    runInOwnProcess(flags);
    return;
  }
}

function runInOwnProcess(flags) {
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, [...process.execArgv, ...flags, __filename, ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BILLING_IMPORT_LAUNCHER: String(process.pid) },
  });
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
    process.stderr.write(`billing: cannot start the command's own process: ${error.message}\n`);
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

// The bundle is already the module's wrapper function (scripts/build.mjs).
const script = new Script(source, { filename: bundle, cachedData });
const bundled = { exports: {} };
script.runInThisContext()(bundled.exports, Module.createRequire(bundle), bundled, bundle, dist);

// A rejected cache (another Node version) is rewritten once this run has warmed it, but only by a run
// with node's own flags: V8 rejects a cache made under other flags (the heap limits of a command run
// in its own process, --cpu-prof, NODE_OPTIONS), so one written there would be rejected by the next
// plain run, which would rewrite it with its one command's functions.
const plainNode = process.execArgv.length === 0 && !process.env.NODE_OPTIONS;
if (process.env.BILLING_WRITE_CODE_CACHE || (plainNode && cachedData && script.cachedDataRejected)) {
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
