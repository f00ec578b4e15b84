// `npm start`: the whole service on embedded defaults in one process tree. Postgres (embedded when
// DATABASE_URL is unset) and the Temporal dev server with its UI (when TEMPORAL_ADDRESS is unset)
// keep their state under DATA_DIR, so a restart resumes every pending timer and retry. Both are
// supervised (restarted when they die), and whatever an earlier run killed with kill -9 left
// running is stopped first.
import path from 'node:path';
import { loadConfigOrExit, type Config } from '../config';
import { createContainer, type Container } from '../container';
import { startEmbeddedPostgres, stopLeftoverPostgres } from './embedded';
import { listen } from '../server';
import { asError, describeFailure, serversInWords } from '../lib/backoff';
import { createLogger, type Logger } from '../lib/logger';
import { startBanner } from './banner';
import { InUseError, PortInUseError, portIsFree } from './processes';
import { onShutdown } from '../lib/shutdown';
import { serveConfiguredMetrics } from '../metrics/metrics.server';
import { connectWorkerClient, runWorker } from '../../temporal/worker';
import { supervise } from './supervise';
import { startTemporalDevServer, stopLeftoverDevServer } from './temporal-dev-server';

/** Every port we are about to listen on, free now that our own leftovers are gone, or one clear line. */
async function checkPorts(config: Config): Promise<void> {
  const wanted: Array<[number, string, string, string | undefined]> = [];
  if (config.port !== 0) wanted.push([config.port, 'PORT', 'API', undefined]);
  const metricsPort = config.metrics.startCommandPort;
  if (metricsPort) wanted.push([metricsPort, 'METRICS_PORT', 'metrics', config.metrics.host]);
  if (!config.databaseUrl)
    wanted.push([config.embeddedPostgresPort, 'EMBEDDED_POSTGRES_PORT', 'embedded Postgres', '127.0.0.1']);
  if (!config.temporal.address) {
    wanted.push([config.temporal.devPort, 'TEMPORAL_DEV_PORT', 'Temporal dev server', '127.0.0.1']);
    wanted.push([config.temporal.uiPort, 'TEMPORAL_UI_PORT', 'Temporal UI', '127.0.0.1']);
  }
  for (const [port, variable, what, host] of wanted) {
    if (!(await portIsFree(port, host))) throw new PortInUseError(port, variable, what);
  }
}

function logStartFailure(logger: Logger, error: unknown): void {
  if (error instanceof PortInUseError) {
    logger.error({ port: error.port, variable: error.variable }, error.message);
    return;
  }
  if (error instanceof InUseError) {
    logger.error(error.message);
    return;
  }
  logger.error({ err: asError(error) }, `start failed: ${describeFailure(error)}`);
}

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const stops: Array<{ name: string; stop: () => Promise<void> }> = [];
  const stopAll = async () => {
    // Reverse order of start: API and worker (side by side), ORM and client, Temporal, Postgres.
    for (const { name, stop } of stops.reverse()) {
      const started = Date.now();
      try {
        await stop();
      } catch (error) {
        logger.error({ err: asError(error) }, `error while stopping ${name}`);
      }
      logger.debug({ ms: Date.now() - started }, `${name} stopped`);
    }
  };
  const shuttingDown = new AbortController();
  onShutdown(logger, async () => {
    shuttingDown.abort();
    await stopAll();
  });
  const supervision = { shuttingDown: shuttingDown.signal };

  try {
    const postgresDir = path.join(config.dataDir, 'postgres');
    if (!config.databaseUrl) await stopLeftoverPostgres(postgresDir, logger);
    if (!config.temporal.address) await stopLeftoverDevServer(config, logger);
    await checkPorts(config);

    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const postgres = await supervise(
        'embedded Postgres',
        logger,
        () =>
          startEmbeddedPostgres({
            dir: postgresDir,
            port: config.embeddedPostgresPort,
            database: 'phone_gateway',
            persistent: true,
            logger,
          }),
        supervision,
      );
      stops.push({ name: 'Postgres', stop: postgres.stop });
      databaseUrl = postgres.current().url;
      logger.info({ port: config.embeddedPostgresPort, dir: path.resolve(postgresDir) }, 'embedded Postgres running');
    }

    let temporalAddress = config.temporal.address;
    let uiUrl: string | undefined;
    if (!temporalAddress) {
      const devServer = await supervise(
        'Temporal dev server',
        logger,
        () => startTemporalDevServer(config, logger),
        supervision,
      );
      stops.push({ name: 'Temporal dev server', stop: devServer.stop });
      temporalAddress = devServer.current().address;
      uiUrl = devServer.current().uiUrl;
    }

    const container: Container = await createContainer(config, logger, {
      databaseUrl,
      temporalAddress,
      migrate: true,
      connectWorkerClient,
    }).catch((error: unknown) => {
      throw new Error(`${describeFailure(error)} (${serversInWords(databaseUrl, temporalAddress!)})`, { cause: error });
    });
    stops.push({ name: 'ORM and Temporal client', stop: container.close });
    const workerDeps = {
      ...container,
      config: { ...config, temporal: { ...config.temporal, address: temporalAddress } },
    };
    // A worker whose server went away for too long fails; it is started again like the servers.
    const worker = await supervise(
      'worker',
      logger,
      async () => {
        const running = await runWorker(workerDeps);
        return {
          stop: running.stop,
          exited: running.done.then(
            () => 'stopped',
            (error: unknown) => `failed: ${describeFailure(error)}`,
          ),
        };
      },
      supervision,
    );
    stops.push({ name: 'worker', stop: worker.stop });
    const api = await listen(container).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EADDRINUSE' ? new PortInUseError(config.port, 'PORT', 'API') : error;
    });
    // The API and the worker drain side by side: neither needs the other to stop.
    stops.pop();
    stops.push({ name: 'API and worker', stop: async () => void (await Promise.all([api.stop(), worker.stop()])) });
    // One registry for the API and the worker of this process; METRICS_PORT=off turns it off.
    const metrics = await serveConfiguredMetrics(
      container.services.metrics,
      config,
      logger,
      config.metrics.startCommandPort,
    ).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EADDRINUSE'
        ? new PortInUseError(config.metrics.startCommandPort!, 'METRICS_PORT', 'metrics')
        : error;
    });
    if (metrics) stops.push({ name: 'metrics', stop: metrics.stop });

    process.stdout.write(
      startBanner({
        publicUrl: config.publicUrl,
        listenUrl: api.url,
        temporalAddress: temporalAddress!,
        temporalUiUrl: uiUrl,
        metricsUrl: metrics?.url,
        dataDir: path.resolve(config.dataDir),
      }),
    );
  } catch (error) {
    logStartFailure(logger, error);
    await stopAll();
    process.exit(1);
  }
}

void main();
