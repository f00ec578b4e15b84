// `npm run test:cluster` (CI runs it after `npm test`): the cluster test alone, on the compiled build
// (`npm run build` first), with the suite's setup (the test CA the webhook receiver uses).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/cluster/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    testTimeout: 600_000,
    hookTimeout: 300_000,
    expect: { poll: { timeout: 30_000, interval: 200 } },
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
