// `npm run test:compose` (CI runs it after the cluster test): `docker compose up` of the repository's
// files on a Docker engine, with the load of the cluster test. Builds the engine, Compose and the
// images on its first run (cached after).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/compose/**/*.test.ts'],
    globalSetup: ['test/compose/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    testTimeout: 1_200_000,
    hookTimeout: 1_500_000,
    expect: { poll: { timeout: 30_000, interval: 200 } },
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
