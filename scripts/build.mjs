// Bundles the CLI into dist/ so start-up loads one file instead of hundreds of modules.
// Code splitting keeps lazily imported parts (prompts, HTTP client, server) out of the first chunk.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  // Native addon: must be loaded from node_modules at run time.
  external: ['better-sqlite3'],
  // Some CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  define: { BILLING_VERSION: JSON.stringify(version) },
  logLevel: 'warning',
});
