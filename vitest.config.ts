import { defineConfig } from 'vitest/config';

// Suites written against the store's interface only: they run on both engines.
const BOTH_ENGINES = [
  'test/core/**/*.test.ts',
  'test/api/**/*.test.ts',
  'test/conformance/**/*.test.ts',
  'test/store/**/*.test.ts',
  'test/browser/**/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Several suites spawn the built CLI and child processes; two cores are all CI has.
    maxWorkers: 2,
    // A real PostgreSQL server for the run; a run that cannot start one fails, never skips.
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], env: { BILLING_TEST_ENGINE: 'sqlite' } },
      },
      { extends: true, test: { name: 'postgres', include: BOTH_ENGINES, env: { BILLING_TEST_ENGINE: 'postgres' } } },
    ],
  },
});
