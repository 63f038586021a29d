import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Several suites spawn the built CLI and child processes; two cores are all CI has.
    maxWorkers: 2,
  },
});
