// `npm run histories:record`: the recorder (record-histories.ts) with the test suite's setup (one
// Postgres, one workflow bundle), scenarios one after another.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/workflows/record-histories.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    testTimeout: 180_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000, interval: 100 } },
  },
});
