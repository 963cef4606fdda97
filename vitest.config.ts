import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on servers, sockets and Chromium: two at once on a 2-core machine (vitest's
    // default here is one, cores − 1) took vitest from 975 s (fewer tests) to 728 s, 1,169 tests.
    maxWorkers: 2,
    // At the end: no process the tests started is left running (test/helpers/leftovers.ts).
    globalSetup: ['test/helpers/leftovers.ts'],
  },
});
