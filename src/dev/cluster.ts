// `npm run cluster`: the production shape on one machine. Postgres (embedded, its own data folder
// under DATA_DIR/cluster), a Temporal cluster of two server processes on it behind one address
// (src/dev/temporal-cluster.ts), the Temporal UI, then `npm run migrate` and two api and two worker
// processes of the compiled build (`node dist/...`, as the image runs them). Every process is
// supervised: one that dies is started again, as compose's `restart: unless-stopped` or Kubernetes
// would. Ctrl-C stops everything, the service first, Postgres last. The cluster test
// (test/cluster) starts the same thing through startCluster().
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfigOrExit } from '../config';
import { startEmbeddedPostgres, stopLeftoverPostgres, type EmbeddedPostgres } from './embedded';
import { asError, describeFailure } from '../lib/backoff';
import { createLogger, type Logger } from '../lib/logger';
import { PortInUseError, portIsFree } from './processes';
import { projectRoot } from '../lib/root';
import { onShutdown } from '../lib/shutdown';
import { polling, startCompiled, waitFor, type ServiceProcess } from './compiled-process';
import { supervise, type Supervised } from './supervise';
import {
  MEMBERSHIP_PORTS_PER_NODE,
  PORTS_PER_NODE,
  postgresAccess,
  registerNamespace,
  setupTemporalSchema,
  startBalancer,
  startTemporalNode,
  startTemporalUi,
  temporalServerBinaries,
  type Balancer,
  type TemporalNode,
  type TemporalUi,
} from './temporal-cluster';

/** The compiled entry points (`npm run build`), as package.json's api, worker and migrate run them. */
export const COMPILED = {
  api: path.join(projectRoot, 'dist', 'src', 'main.js'),
  worker: path.join(projectRoot, 'dist', 'src', 'worker.js'),
  migrate: path.join(projectRoot, 'dist', 'src', 'db', 'migrate.js'),
};

export interface ClusterOptions {
  /** Postgres's data folder goes under it. */
  dataDir: string;
  /** A Postgres of the caller's (its user may create databases); undefined: an embedded one on postgresPort. */
  databaseUrl?: string;
  /** Where temporal/install.sh keeps the server (config.temporal.cacheDir). */
  cacheDir: string;
  postgresPort: number;
  /** The one address clients use (the balancer in front of the frontends). */
  temporalPort: number;
  /** One per server process: where its gRPC ports and its membership ports start (temporal/cluster/server.yaml). */
  nodes: Array<{ portBase: number; membershipPortBase: number }>;
  /** The Temporal UI's port; undefined: no UI. */
  uiPort?: number;
  /** One api process per port. */
  apiPorts: number[];
  workers: number;
  namespace: string;
  /** The environment of every api and worker process, besides DATABASE_URL, TEMPORAL_ADDRESS and PORT. */
  env: Record<string, string | undefined>;
  /** Postgres keeps its folder after a stop (npm run cluster) or deletes it (tests). */
  persistent: boolean;
  logger: Logger;
  /** Every line an api or worker process writes. */
  onLine?: (name: string, line: string) => void;
}

export interface Cluster {
  databaseUrl: string;
  temporalAddress: string;
  /** The embedded Postgres, unless the caller gave its own. */
  postgres?: Supervised<EmbeddedPostgres>;
  nodes: Supervised<TemporalNode>[];
  balancer: Balancer;
  ui?: Supervised<TemporalUi>;
  apis: Array<Supervised<ServiceProcess> & { url: string }>;
  workers: Supervised<ServiceProcess>[];
  stop(): Promise<void>;
}

/**
 * The SECRETS_KEY of a cluster whose environment gives none (production refuses to start without
 * one): made once and kept in its data folder, as an operator keeps one in a secret store, so the
 * webhook secrets it sealed open again after a restart.
 */
function clusterSecretsKey(dataDir: string): string {
  const file = path.join(dataDir, 'secrets-key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

/** Starts everything, in order; on a failure, stops what it started and throws. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { logger } = options;
  if (!existsSync(COMPILED.api) || !existsSync(COMPILED.worker)) {
    throw new Error('the compiled build is missing: run `npm run build` first');
  }
  const binaries = temporalServerBinaries(options.cacheDir);
  const stops: Array<{ name: string; stop: () => Promise<void> }> = [];
  const shuttingDown = new AbortController();
  const supervision = { shuttingDown: shuttingDown.signal };
  const stopAll = async () => {
    shuttingDown.abort();
    for (const { name, stop } of stops.reverse()) {
      await stop().catch((error: unknown) => logger.error({ err: asError(error) }, `error while stopping ${name}`));
    }
  };

  try {
    let postgres: Supervised<EmbeddedPostgres> | undefined;
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      const postgresDir = path.join(options.dataDir, 'postgres');
      mkdirSync(options.dataDir, { recursive: true });
      await stopLeftoverPostgres(postgresDir, logger);
      const embedded = await supervise(
        'Postgres',
        logger,
        () =>
          startEmbeddedPostgres({
            dir: postgresDir,
            port: options.postgresPort,
            database: 'phone_gateway',
            persistent: options.persistent,
            logger,
            // Two Temporal processes (4 services x 14 connections each at most) and four of ours.
            settings: ['max_connections=300'],
          }),
        supervision,
      );
      stops.push({ name: 'Postgres', stop: embedded.stop });
      postgres = embedded;
      databaseUrl = embedded.current().url;
    }
    const access = postgresAccess(databaseUrl);
    await setupTemporalSchema(binaries.sqlTool, binaries.schema, access, logger);

    // The first server creates the cluster's metadata; the others join it once it is there.
    const nodes: Supervised<TemporalNode>[] = [];
    // Stopped side by side (one stopping first would leave the other logging its loss on the way out),
    // those started so far if a later one fails.
    stops.push({ name: 'Temporal servers', stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))) });
    for (const [i, ports] of options.nodes.entries()) {
      const name = `temporal-${i + 1}`;
      const node = await supervise(
        name,
        logger,
        () => startTemporalNode({ name, server: binaries.server, ...ports, postgres: access, logger }),
        supervision,
      );
      nodes.push(node);
    }
    const balancer = await startBalancer(options.temporalPort, () => nodes.map((node) => node.current().address));
    stops.push({ name: 'Temporal balancer', stop: balancer.stop });
    const temporalAddress = balancer.address;
    await registerNamespace(temporalAddress, options.namespace, logger);

    let ui: Supervised<TemporalUi> | undefined;
    if (options.uiPort && binaries.ui) {
      const binary = binaries.ui;
      const port = options.uiPort;
      ui = await supervise(
        'Temporal UI',
        logger,
        async () => startTemporalUi(binary, temporalAddress, port, options.namespace, logger),
        supervision,
      );
      stops.push({ name: 'Temporal UI', stop: ui.stop });
    }

    const env = {
      ...options.env,
      SECRETS_KEY: options.env.SECRETS_KEY || clusterSecretsKey(options.dataDir),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
    };
    const taskQueue = options.env.TEMPORAL_TASK_QUEUE ?? 'phone-gateway';
    // `npm run migrate` once, as an operator runs it before rolling out api and worker processes.
    const migrate = startCompiled('migrate', COMPILED.migrate, env, options.onLine);
    const migrated = await migrate.exited;
    if (migrated !== 'exit code 0') throw new Error(`migrate failed (${migrated}):\n${migrate.output()}`);

    const workers: Supervised<ServiceProcess>[] = [];
    const apis: Array<Supervised<ServiceProcess> & { url: string }> = [];
    const service: Array<{ name: string; stop: () => Promise<void> }> = [];
    // Workers first: the namespace's search attributes are registered by a worker's start.
    for (let i = 0; i < options.workers; i++) {
      const name = `worker-${i + 1}`;
      const worker = await supervise(
        name,
        logger,
        async () => {
          const started = startCompiled(name, COMPILED.worker, { ...env, PGAPPNAME: name }, options.onLine);
          try {
            // Running once it polls (the SDK's identity is `<pid>@<host>`), whatever its log level.
            await Promise.race([
              started.exitedEarly,
              polling(temporalAddress, options.namespace, taskQueue, started.pid),
            ]);
          } catch (error) {
            await started.stop();
            throw error;
          }
          return started;
        },
        supervision,
      );
      workers.push(worker);
      service.push({ name, stop: worker.stop });
    }
    for (const [i, port] of options.apiPorts.entries()) {
      const name = `api-${i + 1}`;
      const url = `http://127.0.0.1:${port}`;
      const api = await supervise(
        name,
        logger,
        async () => {
          const started = startCompiled(
            name,
            COMPILED.api,
            { ...env, PORT: String(port), PGAPPNAME: name },
            options.onLine,
          );
          try {
            // Ready when /readyz answers 200 (Postgres and Temporal reachable); an exit before is the failure.
            await Promise.race([
              started.exitedEarly,
              waitFor(`${name} to be ready`, 120_000, async () =>
                (await fetch(`${url}/readyz`)).status === 200 ? true : undefined,
              ),
            ]);
          } catch (error) {
            await started.stop();
            throw error;
          }
          return started;
        },
        supervision,
      );
      apis.push({ ...api, url });
      service.push({ name, stop: api.stop });
    }
    // The service's processes drain side by side, before the servers they need stop.
    stops.push({
      name: 'api and worker processes',
      stop: async () => void (await Promise.all(service.map((s) => s.stop()))),
    });

    return {
      databaseUrl,
      temporalAddress,
      postgres,
      nodes,
      balancer,
      ui,
      apis,
      workers,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

const MEMBERSHIP_PORT = 6940;

/** Consecutive ports from `from`, `count` of them, all free on loopback now, or one clear error. */
async function checkFree(from: number, count: number, variable: string, what: string): Promise<void> {
  for (let port = from; port < from + count; port++) {
    if (!(await portIsFree(port, '127.0.0.1'))) throw new PortInUseError(port, variable, what);
  }
}

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  // The variables of `npm start`, so the two take the same ports unless told otherwise: PORT and PORT+1
  // for the two api processes; the Temporal address on TEMPORAL_DEV_PORT, its servers' ports 10 and 20
  // above it; their membership ports (below 32768, see temporal/cluster/server.yaml) from 6940.
  const temporalPort = config.temporal.devPort;
  const nodes = [1, 2].map((i) => ({
    portBase: temporalPort + i * 10,
    membershipPortBase: MEMBERSHIP_PORT + (i - 1) * 10,
  }));
  const apiPorts = [config.port, config.port + 1];
  try {
    await checkFree(temporalPort, 1, 'TEMPORAL_DEV_PORT', 'Temporal');
    for (const node of nodes) {
      await checkFree(node.portBase, PORTS_PER_NODE, 'TEMPORAL_DEV_PORT', 'Temporal servers');
      await checkFree(node.membershipPortBase, MEMBERSHIP_PORTS_PER_NODE, 'TEMPORAL_DEV_PORT', 'Temporal membership');
    }
    await checkFree(config.temporal.uiPort, 1, 'TEMPORAL_UI_PORT', 'Temporal UI');
    for (const port of apiPorts) await checkFree(port, 1, 'PORT', 'API');
  } catch (error) {
    logger.error(describeFailure(error));
    process.exit(1);
  }
  let cluster: Cluster | undefined;
  onShutdown(logger, async () => {
    await cluster?.stop();
  });
  // Each process's own log lines, named, on our output.
  const onLine = (name: string, line: string) => process.stdout.write(`${name.padEnd(9)}| ${line}\n`);
  // The process's own environment, minus what the cluster sets per process.
  const { PORT: _port, DATABASE_URL: _database, TEMPORAL_ADDRESS: _temporal, ...env } = process.env;
  try {
    cluster = await startCluster({
      dataDir: path.join(config.dataDir, 'cluster'),
      cacheDir: config.temporal.cacheDir,
      postgresPort: config.embeddedPostgresPort + 1,
      temporalPort,
      nodes,
      uiPort: config.temporal.uiPort,
      apiPorts,
      workers: 2,
      namespace: config.temporal.namespace,
      env: { NODE_ENV: 'production', METRICS_PORT: 'off', ...env },
      persistent: true,
      logger,
      onLine,
    });
  } catch (error) {
    logger.error({ err: asError(error) }, `cluster failed to start: ${describeFailure(error)}`);
    process.exit(1);
  }
  process.stdout.write(
    [
      '',
      ...cluster.apis.map((api, i) => `  API ${i + 1}        ${api.url}  (pid ${api.current().pid})`),
      ...cluster.workers.map((worker, i) => `  Worker ${i + 1}     pid ${worker.current().pid}`),
      `  Temporal     ${cluster.temporalAddress}  (balancer in front of the frontends)`,
      ...cluster.nodes.map(
        (node, i) =>
          `  Temporal ${i + 1}   ${node.current().address}  (membership ${node.current().membershipPortBase}-${node.current().membershipPortBase + MEMBERSHIP_PORTS_PER_NODE - 1}, pid ${node.current().pid})`,
      ),
      ...(cluster.ui ? [`  Temporal UI  ${cluster.ui.current().url}`] : []),
      `  Postgres     ${new URL(cluster.databaseUrl).host}  (data: ${path.resolve(config.dataDir, 'cluster', 'postgres')})`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n') + '\n',
  );
}

if (require.main === module) void main();
