import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The cluster and compose tests run on their own: `npm run test:cluster`, `npm run test:compose`.
    exclude: [...configDefaults.exclude, 'test/cluster/**', 'test/compose/**'],
    // One Postgres, one migration run and one workflow bundle for the whole run.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two cores: two files at a time. Each file uses its own accounts, so files never collide.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    // Polls wait on workers and background work, which two busy cores can slow well past a second.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
