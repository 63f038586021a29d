#!/usr/bin/env node
// Runs the bundle dist/billing.cjs (built by `npm install` through scripts/build.mjs), compiled
// with V8's code cache so that start-up skips parsing. Never runs the TypeScript sources.
// CommonJS (bin/package.json) because the ES module loader alone costs a few ms per start.
'use strict';
const { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } = require('node:fs');
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

// The bundle and its cache are read through one buffer: the cache lands in the pages the bundle's
// text was read into, already touched. Memory touched for the first time is most of reading here
// (a fresh buffer for the cache cost about 3 ms of every start on a slow hour of this machine).
let source;
let cachedData;
{
  const missing = () => {
    process.stderr.write('billing: the build is missing; run `npm install` (or `npm run build`) first\n');
    process.exit(2);
  };
  const sourceFile = openOrNull(bundle) ?? missing();
  const cache = openOrNull(cacheFile); // none yet: compile from source
  const buffer = Buffer.allocUnsafe(Math.max(sourceFile.size, cache?.size ?? 0));
  try {
    // latin1: the build makes the bundle ASCII, and decoding it as UTF-8 takes twice as long.
    source = buffer.toString('latin1', 0, readWhole(sourceFile, buffer));
  } catch {
    missing();
  }
  try {
    if (cache !== null) cachedData = buffer.subarray(0, readWhole(cache, buffer));
  } catch {
    // unreadable: compile from source
  }
}

/** The file open, with its size, or null when it cannot be opened. */
function openOrNull(path) {
  try {
    const fd = openSync(path, 'r');
    return { fd, size: fstatSync(fd).size };
  } catch {
    return null;
  }
}

/** Reads the whole file into the start of `buffer` and closes it; its length. */
function readWhole(file, buffer) {
  let length = 0;
  try {
    while (length < file.size) {
      const read = readSync(file.fd, buffer, length, file.size - length, length);
      if (read === 0) break; // shorter than it was: what there is
      length += read;
    }
  } finally {
    closeSync(file.fd);
  }
  return length;
}

// The bundle is already the module's wrapper function (scripts/build.mjs).
const script = new Script(source, { filename: bundle, cachedData });
const bundled = { exports: {} };
script.runInThisContext()(bundled.exports, Module.createRequire(bundle), bundled, bundle, dist);

// A missing or rejected cache (another Node version) is written once this run has warmed it, but
// only by a run with node's own flags: V8 rejects a cache made under other flags (the heap limits of
// a command run in its own process, --cpu-prof, NODE_OPTIONS), so one written there would be
// rejected by the next plain run, which would rewrite it with its one command's functions.
const plainNode = process.execArgv.length === 0 && !process.env.NODE_OPTIONS;
if (process.env.BILLING_WRITE_CODE_CACHE || (plainNode && (cachedData === undefined || script.cachedDataRejected))) {
  process.once('exit', () => {
    // The file first: on a read-only install every run would otherwise serialise a cache (several
    // ms) only to fail to write it.
    const temporary = `${cacheFile}.${process.pid}`;
    let fd;
    try {
      fd = openSync(temporary, 'w');
    } catch {
      return; // read-only install: run without a cache
    }
    try {
      writeFileSync(fd, script.createCachedData());
      closeSync(fd);
      fd = undefined;
      renameSync(temporary, cacheFile);
    } catch {
      if (fd !== undefined) closeSync(fd);
      rmSync(temporary, { force: true }); // a disk full half-way leaves no part file behind
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

// Once nothing is left to do (every write, send and close has finished), the process ends through
// process.exit, which still runs the 'exit' listeners but skips Node's teardown of the environment
// and the heap, object by object: the kernel frees the memory at once. That teardown was 3 to 4 ms
// of a command on a slow hour of this machine.
process.once('beforeExit', () => process.exit());
