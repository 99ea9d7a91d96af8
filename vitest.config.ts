import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // starts one redis-server on a free port for all Redis tests (never the system Redis on 6379)
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000, // 20 seconds
    hookTimeout: 30_000, // 30 seconds
    // expect.poll waits for an outcome (a page that renders, a status that arrives): 1 s, vitest's
    // default, is short on 2 loaded cores (a console test failed at it in CI); a real failure still fails
    expect: { poll: { timeout: 10_000 } },
    // files run in parallel; the machine has 2 cores and tests also start servers and redis-servers
    maxWorkers: 2,
  },
});
