import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One Postgres, one migration run and one workflow bundle for the whole run.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two cores: two files at a time. Each file uses its own accounts, so files never collide.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
