import { inject } from 'vitest';
import { loadConfig, type Config, type Env } from '../../src/config';

/** A test config: the shared test database, silent logs, and any override of the environment. */
export function testConfig(overrides: Partial<Record<keyof Env, string>> = {}): Config {
  return loadConfig({}, { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: inject('databaseUrl'), ...overrides });
}
