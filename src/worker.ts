// The worker process alone, against configured servers (DATABASE_URL, TEMPORAL_ADDRESS): the production shape.
// While Postgres or Temporal cannot be reached it says so and keeps trying, rather than exiting; a
// worker that fails (its server gone too long) is started again the same way.
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfigOrExit } from './config';
import { createContainer, type Container } from './container';
import { describeFailure, retryWithBackoff, serversInWords } from './lib/backoff';
import { createLogger } from './lib/logger';
import { onShutdown } from './lib/shutdown';
import { serveConfiguredMetrics, type MetricsServer } from './metrics/metrics.server';
import { temporalAddress } from '../temporal/client';
import { runWorker, type RunningWorker } from '../temporal/worker';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const stopping = new AbortController();
  let container: Container | undefined;
  let worker: RunningWorker | undefined;
  let metrics: MetricsServer | undefined;
  onShutdown(logger, async () => {
    stopping.abort();
    await metrics?.stop();
    await worker?.stop();
    await container?.close();
  });
  const why = `worker cannot start yet (it needs ${serversInWords(config.databaseUrl, temporalAddress(config))})`;
  container = await retryWithBackoff(
    why,
    logger,
    () => createContainer(config, logger, { migrate: true, serviceName: 'phone-gateway-worker' }),
    stopping.signal,
  );
  if (!container) return;
  // This process's own counters (webhook attempts, stale marks, repairs...); the SDK's are on WORKER_METRICS_ADDRESS.
  metrics = await serveConfiguredMetrics(container.services.metrics, config, logger);
  const deps = container;
  while (!stopping.signal.aborted) {
    worker = await retryWithBackoff(why, logger, () => runWorker(deps), stopping.signal);
    if (!worker) return;
    try {
      await worker.done;
    } catch (error) {
      if (stopping.signal.aborted) return;
      logger.error({ err: error }, `worker failed: ${describeFailure(error)}; starting it again in 1 s`);
      await sleep(1000);
    }
  }
}

main().catch((error) => {
  process.stderr.write(`worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
