#!/usr/bin/env node
// Runs the bundle built by `npm install` (scripts/build.mjs); never the TypeScript sources.
import('../dist/cli.js').then(
  async ({ main }) => {
    process.exitCode = await main(process.argv.slice(2));
  },
  (error) => {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist')) {
      process.stderr.write('billing: the build is missing; run `npm install` (or `npm run build`) first\n');
      process.exitCode = 2;
      return;
    }
    throw error;
  },
);
