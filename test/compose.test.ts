import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { envSchema, loadConfig } from '../src/config';

// No Docker engine runs here: the file is loaded by the Compose project's own loader (compose-go,
// tools/compose-check: what `docker compose config` runs), which validates it against the Compose
// schema, interpolates it with nothing set and checks its consistency; its output, the project as
// Compose sees it, is then checked against the production shape and the config it feeds.

const root = path.resolve(__dirname, '..');
const composeFile = path.join(root, 'docker-compose.yml');

interface Service {
  image?: string;
  build?: { context: string };
  command?: string[] | null;
  entrypoint?: string[] | null;
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  healthcheck?: { test: string[] };
  ports?: Array<{ host_ip?: string; target: number; published?: string }>;
  volumes?: Array<{ type: string; source: string; target: string; read_only?: boolean }>;
  networks?: Record<string, { aliases?: string[] } | null>;
}

let checker = '';

/** The two values the file requires (docker-compose.yml's header), as an operator's `.env` gives them. */
const REQUIRED = { POSTGRES_PASSWORD: 'a-long-random-password', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };

/** The loader's output for `file`, or its error. */
function load(
  file: string,
  env: Record<string, string> = REQUIRED,
): { project?: { services: Record<string, Service> }; error?: string } {
  // Only PATH and the required values: the file's own defaults are what is checked.
  const run = spawnSync(checker, [file], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  if (run.status !== 0) return { error: run.stderr.trim() || `exit ${run.status}` };
  return { project: JSON.parse(run.stdout) as { services: Record<string, Service> } };
}

const pinned = (name: string) =>
  new RegExp(`^${name}=v?(.+)$`, 'm').exec(readFileSync(path.join(root, 'temporal', 'versions.env'), 'utf8'))![1];

describe('docker-compose.yml', () => {
  let services: Record<string, Service>;

  beforeAll(() => {
    // Built once into the cache (Go, from the module proxy), like the Temporal servers.
    checker = execFileSync('bash', [path.join(root, 'tools', 'compose-check', 'install.sh')], {
      encoding: 'utf8',
    }).trim();
    const loaded = load(composeFile);
    expect(loaded.error).toBeUndefined();
    services = loaded.project!.services;
  }, 300_000);

  it('is refused by the loader when it is not consistent, as `docker compose config` refuses it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-'));
    try {
      const broken = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as { services: Record<string, unknown> };
      delete broken.services['temporal-schema'];
      writeFileSync(path.join(dir, 'docker-compose.yml'), stringify(broken));
      expect(load(path.join(dir, 'docker-compose.yml')).error).toMatch(/temporal-schema/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start without a database password or a secrets key, naming each', () => {
    expect(load(composeFile, { SECRETS_KEY: REQUIRED.SECRETS_KEY }).error).toMatch(/POSTGRES_PASSWORD/);
    expect(load(composeFile, { POSTGRES_PASSWORD: REQUIRED.POSTGRES_PASSWORD }).error).toMatch(/SECRETS_KEY/);
  });

  it('has the production shape: Postgres, a schema job, two Temporal servers, a setup job, the UI, migrate, api and worker', () => {
    expect(Object.keys(services).sort()).toEqual([
      'api',
      'migrate',
      'postgres',
      'temporal-1',
      'temporal-2',
      'temporal-schema',
      'temporal-setup',
      'temporal-ui',
      'worker',
    ]);
    expect(services.api.command).toEqual(['node', 'dist/src/main.js']);
    expect(services.worker.command).toEqual(['node', 'dist/src/worker.js']);
    expect(services.migrate.command).toEqual(['node', 'dist/src/db/migrate.js']);
    expect(services['temporal-setup'].command).toEqual(['node', 'dist/temporal/setup-cli.js']);
    for (const name of ['api', 'worker', 'migrate', 'temporal-setup']) {
      expect(services[name].build?.context).toBe(root);
      expect(services[name].image).toBe('phone-gateway:local');
    }
  });

  it('pins every image to what tools/images builds: the server the repo builds, its tools, the UI the CLI embeds', () => {
    const server = pinned('TEMPORAL_SERVER_VERSION');
    const images = readFileSync(path.join(root, 'tools', 'images', 'versions.env'), 'utf8');
    const image = (name: string) => new RegExp(`^${name}=(.+)$`, 'm').exec(images)![1];
    expect(services['temporal-1'].image).toBe(`temporalio/server:${server}`);
    expect(services['temporal-2'].image).toBe(image('TEMPORAL_SERVER_IMAGE'));
    expect(services['temporal-schema'].image).toBe(image('TEMPORAL_ADMIN_TOOLS_IMAGE'));
    expect(services['temporal-schema'].image).toMatch(new RegExp(`^temporalio/admin-tools:${server.replace(/\./g, '\\.')}-`));
    expect(services['temporal-ui'].image).toBe(`temporalio/ui:${pinned('TEMPORAL_UI_VERSION')}`);
    expect(services['temporal-ui'].image).toBe(image('TEMPORAL_UI_IMAGE'));
    // The major version: its minor releases are the security fixes.
    expect(services.postgres.image).toBe(image('POSTGRES_IMAGE'));
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1])).toEqual([image('NODE_IMAGE'), image('NODE_IMAGE')]);
  });

  it('runs the production dynamic config, without development-only keys, and sizes Postgres connections for it', () => {
    for (const name of ['temporal-1', 'temporal-2']) {
      expect(services[name].environment?.TEMPORAL_DYNAMIC_CONFIG).toBe('/etc/temporal/dynamicconfig/production-sql.yaml');
      // Every process records the same frontend address in the cluster metadata.
      expect(services[name].environment?.TEMPORAL_CLUSTER_RPC_ADDRESS).toBe('temporal:7233');
    }
    const dynamic = readFileSync(path.join(root, 'temporal', 'dynamicconfig', 'production-sql.yaml'), 'utf8');
    expect(dynamic).not.toMatch(/forceSearchAttributesCacheRefreshOnRead/);
    const maxConnections = Number(/max_connections=(\d+)/.exec(services.postgres.command!.join(' '))![1]);
    const perServer = 4 * Number(services['temporal-1'].environment!.TEMPORAL_POSTGRES_MAX_CONNS) + 4 * 4;
    const perApp = Number(services.api.environment!.DATABASE_POOL_MAX);
    // Two servers, two api, two workers and a one-shot job, and the superuser's reserve.
    expect(maxConnections).toBeGreaterThanOrEqual(2 * perServer + 5 * perApp + 3);
  });

  it('runs the Temporal servers and the schema job on the repository files `npm run cluster` runs', () => {
    for (const name of ['temporal-1', 'temporal-2', 'temporal-schema']) {
      expect(services[name].volumes).toContainEqual(
        expect.objectContaining({ source: path.join(root, 'temporal', 'cluster'), target: '/etc/temporal/cluster' }),
      );
    }
    for (const name of ['temporal-1', 'temporal-2']) {
      expect(services[name].entrypoint?.join(' ')).toContain(
        'temporal-server --root /etc/temporal --config cluster --env server',
      );
      // Both answer to the name clients use.
      expect(services[name].networks?.default?.aliases).toEqual(['temporal']);
    }
    expect(services['temporal-schema'].entrypoint).toEqual(['sh', '/etc/temporal/cluster/schema.sh']);
    expect(services['temporal-schema'].restart).toBe('no');
    // One server at a time writes the cluster metadata: the second after the first is healthy and
    // the namespace and search attributes exist.
    expect(services['temporal-1'].depends_on).toEqual({
      'temporal-schema': expect.objectContaining({ condition: 'service_completed_successfully' }),
    });
    expect(services['temporal-setup'].depends_on).toEqual({
      'temporal-1': expect.objectContaining({ condition: 'service_healthy' }),
    });
    expect(services['temporal-2'].depends_on).toEqual({
      'temporal-setup': expect.objectContaining({ condition: 'service_completed_successfully' }),
    });
  });

  it('checks the health of every long-running service, and starts api and worker once their servers are healthy', () => {
    const longRunning = Object.entries(services).filter(([, service]) => service.restart !== 'no');
    expect(longRunning.map(([name]) => name).sort()).toEqual([
      'api',
      'postgres',
      'temporal-1',
      'temporal-2',
      'temporal-ui',
      'worker',
    ]);
    for (const [name, service] of longRunning) {
      expect(service.healthcheck?.test[0], name).toBe('CMD-SHELL');
      expect(service.restart, name).toBe('unless-stopped');
    }
    for (const name of ['api', 'worker']) {
      expect(services[name].depends_on).toEqual({
        migrate: expect.objectContaining({ condition: 'service_completed_successfully' }),
        'temporal-setup': expect.objectContaining({ condition: 'service_completed_successfully' }),
        'temporal-1': expect.objectContaining({ condition: 'service_healthy' }),
        'temporal-2': expect.objectContaining({ condition: 'service_healthy' }),
      });
    }
    expect(services.migrate.depends_on).toEqual({
      postgres: expect.objectContaining({ condition: 'service_healthy' }),
    });
    expect(services.api.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:3000/readyz');
  });

  it('publishes ports on 127.0.0.1 only', () => {
    const published = Object.entries(services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => ({ name, host_ip: port.host_ip, target: port.target })),
    );
    expect(published.map((port) => port.name).sort()).toEqual(['api', 'temporal-1', 'temporal-ui']);
    for (const port of published) expect(port.host_ip, port.name).toBe('127.0.0.1');
  });

  it.each(['api', 'worker', 'migrate', 'temporal-setup'])('gives %s only variables the config knows, and a valid config', (name) => {
    const environment = services[name].environment ?? {};
    const known = new Set(Object.keys(envSchema.fields));
    expect(Object.keys(environment).filter((key) => !known.has(key))).toEqual([]);
    expect(environment.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    // As Compose interpolated it with nothing set, parsed as the process would.
    const config = loadConfig(Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, v ?? undefined])));
    expect(config.databaseUrl).toContain('phone_gateway');
    expect(config.webhooks.allowPrivateNetworks).toBe(false);
  });

  it('gives api, worker, migrate and temporal-setup the same environment', () => {
    expect(services.api.environment).toEqual(services.worker.environment);
    expect(services.migrate.environment).toEqual(services.worker.environment);
    expect(services['temporal-setup'].environment).toEqual(services.worker.environment);
  });
});
