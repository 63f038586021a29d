#!/usr/bin/env node
// Runs the bundle dist/billing.cjs (built by `npm install` through scripts/build.mjs), compiled
// with V8's code cache so that start-up skips parsing. Never runs the TypeScript sources.
// CommonJS (bin/package.json) because the ES module loader alone costs a few ms per start.
'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const dist = join(__dirname, '..', 'dist');
const bundle = join(dist, 'billing.cjs');
const cacheFile = `${bundle}.cache`;

let source;
try {
  source = readFileSync(bundle, 'utf8');
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
const runs = warming ? warming.reduce((done, argv) => done.then(() => bundled.exports.main(argv)), Promise.resolve(0)) : bundled.exports.main(process.argv.slice(2));
runs.then((code) => {
  process.exitCode = code;
});
