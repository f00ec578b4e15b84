import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { envSchema, loadConfig } from '../src/config';

const root = path.resolve(__dirname, '..');
// No Docker engine runs here: the file is checked as data against the config it feeds.
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      build?: string;
      command?: string[];
      environment?: Record<string, string>;
      depends_on?: unknown;
      restart?: string;
      healthcheck?: { test: string[] };
    }
  >;
};

describe('docker-compose.yml', () => {
  it('has the production shape: Postgres, Temporal on it, its UI, api and worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'postgres', 'temporal', 'temporal-ui', 'worker']);
    expect(compose.services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(compose.services['temporal-ui'].environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(compose.services.api.command).toEqual(['npm', 'run', 'api']);
    expect(compose.services.worker.command).toEqual(['npm', 'run', 'worker']);
    expect(existsSync(path.join(root, compose.services.api.build ?? '', 'Dockerfile'))).toBe(true);
  });

  it.each(['api', 'worker'])('gives %s only variables the config knows, and a valid config', (name) => {
    const environment = compose.services[name].environment ?? {};
    const known = new Set(Object.keys(envSchema.fields));
    expect(Object.keys(environment).filter((key) => !known.has(key))).toEqual([]);
    expect(environment.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    // Interpolate ${VAR:-default} as compose would with nothing set, then parse it as the process would.
    const resolved = Object.fromEntries(
      Object.entries(environment).map(([key, value]) => [key, String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]),
    );
    const config = loadConfig(resolved);
    expect(config.databaseUrl).toContain('phone_gateway');
    expect(config.webhooks.allowPrivateNetworks).toBe(false);
  });

  it('restarts api and worker when they exit, and marks the api healthy when it is ready', () => {
    expect(compose.services.api.restart).toBe('unless-stopped');
    expect(compose.services.worker.restart).toBe('unless-stopped');
    expect(compose.services.api.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:3000/readyz');
  });

  it('gives api and worker the same environment', () => {
    expect(compose.services.api.environment).toEqual(compose.services.worker.environment);
  });
});
