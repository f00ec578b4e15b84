// The api process alone, against configured servers (DATABASE_URL, TEMPORAL_ADDRESS): the production shape.
// While Postgres or Temporal cannot be reached it says so and keeps trying, rather than exiting.
import { loadConfigOrExit } from './config';
import { createContainer, type Container } from './container';
import { listen, type RunningApi } from './server';
import { retryWithBackoff, serversInWords } from './lib/backoff';
import { createLogger } from './lib/logger';
import { onShutdown } from './lib/shutdown';
import { serveConfiguredMetrics, type MetricsServer } from './metrics/metrics.server';
import { temporalAddress } from '../temporal/client';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const stopping = new AbortController();
  let container: Container | undefined;
  let api: RunningApi | undefined;
  let metrics: MetricsServer | undefined;
  onShutdown(logger, async () => {
    stopping.abort();
    await metrics?.stop();
    await api?.stop();
    await container?.close();
  });
  container = await retryWithBackoff(
    `api cannot start yet (it needs ${serversInWords(config.databaseUrl, temporalAddress(config))})`,
    logger,
    () => createContainer(config, logger, { migrate: true, serviceName: 'phone-gateway-api' }),
    stopping.signal,
  );
  if (!container) return;
  api = await listen(container);
  logger.info({ url: api.url }, 'api listening');
  metrics = await serveConfiguredMetrics(container.services.metrics, config, logger);
}

main().catch((error) => {
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
