// `npm start`: the whole service on embedded defaults in one process tree. Postgres (embedded when
// DATABASE_URL is unset) and the Temporal dev server with its UI (when TEMPORAL_ADDRESS is unset)
// keep their state under DATA_DIR, so a restart resumes every pending timer and retry.
import path from 'node:path';
import { loadConfigOrExit } from '../config';
import { createContainer, type Container } from '../container';
import { startEmbeddedPostgres } from '../db/embedded';
import { listen } from '../http/server';
import { createLogger } from '../lib/logger';
import { onShutdown } from '../lib/shutdown';
import { runWorker } from '../../temporal/worker';
import { startTemporalDevServer } from './temporal-dev-server';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    // Reverse order of start: api, worker, ORM and client, Temporal, Postgres.
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (error) {
        logger.error({ err: error }, 'error while stopping');
      }
    }
  };
  onShutdown(logger, stopAll);

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const postgres = await startEmbeddedPostgres({
        dir: path.join(config.dataDir, 'postgres'),
        port: config.embeddedPostgresPort,
        database: 'phone_gateway',
        persistent: true,
        logger,
      });
      stops.push(postgres.stop);
      databaseUrl = postgres.url;
      logger.info(
        { port: config.embeddedPostgresPort, dir: path.resolve(config.dataDir, 'postgres') },
        'embedded Postgres running',
      );
    }

    let temporalAddress = config.temporal.address;
    let uiUrl: string | undefined;
    if (!temporalAddress) {
      const devServer = await startTemporalDevServer(config, logger);
      stops.push(devServer.stop);
      temporalAddress = devServer.address;
      uiUrl = devServer.uiUrl;
    }

    const container: Container = await createContainer(config, logger, { databaseUrl, temporalAddress, migrate: true });
    stops.push(container.close);
    const worker = await runWorker({
      ...container,
      config: { ...config, temporal: { ...config.temporal, address: temporalAddress } },
    });
    stops.push(worker.stop);
    const api = await listen(container);
    stops.push(api.stop);

    process.stdout.write(
      [
        '',
        `  API          ${api.url}  (readiness: ${api.url}/readyz)`,
        `  Temporal     ${temporalAddress}${uiUrl ? `\n  Temporal UI  ${uiUrl}` : ''}`,
        `  Data         ${path.resolve(config.dataDir)}`,
        '  Ctrl-C stops everything.',
        '',
      ].join('\n') + '\n',
    );
  } catch (error) {
    logger.error({ err: error }, 'start failed');
    await stopAll();
    process.exit(1);
  }
}

void main();
