'use strict';
// Which commands bin/billing.js runs in a process of their own with V8 heap limits, and which.
//
// A command that streams many rows (an import, a collection batch of 100,000 debits, its file)
// keeps little alive, but by default V8 lets its garbage grow the heap by a hundred MB or more
// before collecting it. A small young generation and a capped old space make it collect sooner.
// Measured on a batch of 100,000 debits (the built CLI, peak RSS): `collections create` 211 MB by
// default, 163 MB with these flags; `collections export` 145 MB, 101 MB; CPU time within noise (a
// 2 MB young generation instead of 4 cost the export 25%). `collections import` is left out: the
// same flags took its peak from 436 to 292 MB but cost it 10% of its speed, which has a target.
// The young generation of the collection commands was then raised from 4 to 8 MB, its garbage
// collected half as often: in bench/collections.ts, four runs each in turn, the PostgreSQL batch took
// 4.20 s on average against 4.97 (0.02 to 1.28 s less a pair), its export 1.90 s against 2.23; the
// process peaked at 170 to 174 MB with SQLite, against 151 to 162 (16 MB reached 199 to 202 MB, at
// the benchmark's limit of 200).
// The old-space cap is a limit, not a target: what these commands keep alive is tens of MB,
// whatever the batch size. These sizes are set when the heap is made: only node's flags set them.

const IMPORT_HEAP_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=1024'];
const COLLECTION_HEAP_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=1024'];

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

/** The first `count` words of the command line that are not options (nor an option's value). */
function commandWords(argv, count) {
  const words = [];
  for (let i = 0; i < argv.length && words.length < count; i++) {
    if (argv[i] === '--') break;
    if (!argv[i].startsWith('-')) words.push(argv[i]);
    else if (VALUE_OPTIONS.has(argv[i])) i++;
  }
  return words;
}

/** The heap flags the command on this command line runs with, or undefined to run in this process. */
function heapFlagsFor(argv) {
  const [noun, verb] = commandWords(argv, 2);
  if (noun === 'import') return IMPORT_HEAP_FLAGS;
  if (noun === 'collections' && (verb === 'create' || verb === 'export')) return COLLECTION_HEAP_FLAGS;
  return undefined;
}

module.exports = { heapFlagsFor };
