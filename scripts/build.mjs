// Builds dist/billing.cjs, the one file the CLI runs, and its V8 code cache.
//
// Why one CommonJS file with a code cache: start-up is dominated by loading and compiling code, not
// by work. A single bundle avoids resolving and reading hundreds of modules; CommonJS can be
// compiled through vm.Script with V8's cached data (Node 20 has no compile cache for ES modules),
// which skips parsing on every later run. Lazily needed parts stay lazy: esbuild keeps each
// dynamically imported module's top-level code unevaluated until the import runs.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** @type {unknown} */
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { version } = /** @type {{ version: string }} */ (manifest);

// Libraries needed only by some commands are bundled apart, one file each, and required on first
// use: the main bundle (what every command loads) stays small.
// The value is what the vendor file exports: ES-module-only packages export their default, since
// the main bundle imports CommonJS the way Node does (default import = module.exports).
const VENDOR_EXPORTS = {
  zod: "require('zod')",
  ibantools: "require('ibantools')",
  jmespath: "require('jmespath')",
  pg: "require('pg')",
  'pg-connection-string': "require('pg-connection-string')",
  '@inquirer/prompts': "require('@inquirer/prompts')",
  'csv-parse': "require('csv-parse')",
  'cli-progress': "require('cli-progress')",
  nodemailer: "require('nodemailer')",
  // The SEPA files: written, read and transliterated only by the commands that handle them.
  'any-ascii': "require('any-ascii').default",
  xmlbuilder: "require('xmlbuilder')",
  saxes: "require('saxes')",
  // Charts of `billing reports --html` only: both are ES modules (their named exports, as an object).
  vega: "require('vega')",
  'vega-lite': "require('vega-lite')",
};
const VENDOR = Object.keys(VENDOR_EXPORTS);
/** @type {import('esbuild').Plugin} */
const vendorPlugin = {
  name: 'vendor',
  setup(b) {
    const filter = new RegExp(`^(${VENDOR.join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: `./vendor/${args.path}.cjs`, external: true }));
    // pg's optional native binding, never installed: pg loads it only when asked for pg.native.
    b.onResolve({ filter: /^pg-native$/ }, () => ({ path: 'pg-native', external: true }));
  },
};

// commander requires node:child_process at load (and with it net, dgram and streams: about 3 ms of
// every start) for executable subcommands, which billing has none of: it is required on first use.
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
/** @type {import('esbuild').Plugin} */
const lazyChildProcessPlugin = {
  name: 'lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes(COMMANDER_CHILD_PROCESS))
        throw new Error(`${args.path} no longer starts with ${COMMANDER_CHILD_PROCESS} (see scripts/build.mjs)`);
      const lazy = "const childProcess = { get spawn() { return require('node:child_process').spawn; } };";
      return { contents: text.replace(COMMANDER_CHILD_PROCESS, lazy), loader: 'js' };
    });
  },
};

// better-sqlite3's JavaScript is bundled (a dozen small modules resolved, read and compiled on every
// start otherwise), and its native addon is required from where its install builds it: the
// package's own loader (the bindings package) tries other folders first, each a failed require.
// Elsewhere (a debug build) the package's loader still finds it.
const SQLITE_ADDON_LOAD = "require('bindings')('better_sqlite3.node')";
/** @type {import('esbuild').Plugin} */
const sqliteAddonPlugin = {
  name: 'sqlite-addon',
  setup(b) {
    b.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]database\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes(SQLITE_ADDON_LOAD))
        throw new Error(`${args.path} no longer loads its addon with ${SQLITE_ADDON_LOAD} (see scripts/build.mjs)`);
      const direct = `(() => {
        const root = require('node:path').dirname(require.resolve('better-sqlite3/package.json'));
        try {
          return require(require('node:path').join(root, 'build', 'Release', 'better_sqlite3.node'));
        } catch (error) {
          if (error.code !== 'MODULE_NOT_FOUND') throw error;
          return require(require.resolve('bindings', { paths: [root] }))({ bindings: 'better_sqlite3.node', module_root: root });
        }
      })()`;
      return { contents: text.replace(SQLITE_ADDON_LOAD, direct), loader: 'js' };
    });
  },
};

// Node's built-in modules that only some commands use (node:crypto alone loads twenty internal
// modules and the streams, about 4 ms of every start): each is required on first use. Each name the
// module exports becomes a getter, which the bundle's imports read at the call, not at load.
const LAZY_BUILTINS = [
  'node:crypto',
  'node:tty',
  'node:net',
  'node:http',
  'node:https',
  'node:dns',
  'node:dns/promises',
  'node:stream',
];
/** @type {import('esbuild').Plugin} */
const lazyBuiltinsPlugin = {
  name: 'lazy-builtins',
  setup(b) {
    const filter = new RegExp(`^(${LAZY_BUILTINS.join('|')})$`);
    b.onResolve({ filter }, (args) =>
      args.namespace === 'lazy-builtin'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'lazy-builtin' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      /** @type {unknown} */
      const builtin = await import(args.path);
      const names = Object.keys(/** @type {object} */ (builtin)).filter((name) => name !== 'default');
      const getters = names.map((name) => `get ${name}() { return load().${name}; }`).join(',\n');
      return {
        contents: `let real;\nconst load = () => (real ??= require(${JSON.stringify(args.path)}));\nmodule.exports = {\n${getters}\n};\n`,
        loader: 'js',
        resolveDir: root,
      };
    });
  },
};

// vega-canvas's Node build tries `await import('canvas')` (node-canvas, not installed) at its top
// level, which a CommonJS bundle cannot hold; its browser build is the same without that try, and
// SVG needs no canvas (text is measured by estimate either way).
/** @type {import('esbuild').Plugin} */
const withoutNodeCanvas = {
  name: 'without-node-canvas',
  setup(b) {
    const browserBuild = join(root, 'node_modules/vega-canvas/build/vega-canvas.browser.js');
    b.onResolve({ filter: /^vega-canvas$/ }, () => ({ path: browserBuild }));
  },
};

rmSync(join(root, 'dist'), { recursive: true, force: true });
await Promise.all(
  VENDOR.map((name) =>
    build({
      absWorkingDir: root,
      stdin: { contents: `module.exports = ${VENDOR_EXPORTS[name]};`, resolveDir: root, loader: 'js' },
      outfile: `dist/vendor/${name}.cjs`,
      external: ['pg-native'],
      plugins: [withoutNodeCanvas],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      minify: true,
      logLevel: 'warning',
    }),
  ),
);
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/billing.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // NO_MINIFY=1 keeps function names readable in CPU profiles.
  minify: !process.env.NO_MINIFY,
  sourcemap: 'linked',
  // better-sqlite3's native addon is loaded from node_modules at run time (sqliteAddonPlugin); the
  // require and resolve calls written for that stay calls of the bundle's require.
  external: ['bindings', 'better-sqlite3/package.json'],
  plugins: [vendorPlugin, lazyChildProcessPlugin, lazyBuiltinsPlugin, sqliteAddonPlugin],
  // import() of a vendor bundle becomes require(): the bundle runs in vm.Script, which has no
  // module loader for real dynamic imports.
  supported: { 'dynamic-import': false },
  define: { BILLING_VERSION: JSON.stringify(version) },
  // The bundle is written as the function CommonJS wraps a module in, so bin/billing.js compiles the
  // file's text as it was read: wrapping it at run time (Module.wrap) made V8 copy 870 KB into one
  // flat string before compiling (1.3 ms of every start). The source map counts the banner.
  banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
  footer: { js: '})' },
  logLevel: 'warning',
});

// bin/billing.js reads the bundle as latin1 (half the time of UTF-8 decoding): it must be ASCII.
// esbuild escapes non-ASCII text in strings, not in regular expression literals.
const nonAscii = readFileSync(join(root, 'dist/billing.cjs')).findIndex((byte) => byte > 0x7f);
if (nonAscii !== -1)
  throw new Error(`dist/billing.cjs has a non-ASCII byte at ${nonAscii}: escape it in the source (\\u...)`);

// Warm the code cache with the commands people run most, so their functions are in it.
const scratch = mkdtempSync(join(tmpdir(), 'billing-build-'));
try {
  /** @type {(args: string[], env?: Record<string, string>) => import('node:child_process').SpawnSyncReturns<Buffer>} */
  const run = (args, env = {}) =>
    spawnSync(process.execPath, [join(root, 'bin/billing.js'), '--db', join(scratch, 'warm.db'), ...args], {
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: 'ignore',
    });
  run(['demo', '-q']);
  run(['customers', 'list']);
  // Those runs, finding no cache, each wrote one: the warming starts from none, so that the cache
  // holds what the commands below compile, not the demo's functions too.
  rmSync(join(root, 'dist/billing.cjs.cache'), { force: true });
  // The demo leaves invoice 6 a draft: finalising it leaves its collection due, which the next command catches up.
  const commands = [
    ['customers', 'get', '1', '--json'],
    ['invoices', 'finalise', '6', '-q'],
    ['invoices', 'get', '6', '--json'],
  ];
  const warm = run([], {
    BILLING_WRITE_CODE_CACHE: '1',
    BILLING_WARM_COMMANDS: JSON.stringify(commands.map((argv) => ['--db', join(scratch, 'warm.db'), ...argv])),
  });
  if (warm.status !== 0)
    console.warn('billing build: warming the code cache failed; the CLI still works, only slower to start');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
