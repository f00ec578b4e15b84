// The worker process alone, against configured servers (DATABASE_URL, TEMPORAL_ADDRESS): the production shape.
import { loadConfigOrExit } from './config';
import { createContainer } from './container';
import { createLogger } from './lib/logger';
import { onShutdown } from './lib/shutdown';
import { runWorker } from '../temporal/worker';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const container = await createContainer(config, logger, { migrate: true });
  const worker = await runWorker(container);
  onShutdown(logger, async () => {
    await worker.stop();
    await container.close();
  });
  await worker.done;
}

main().catch((error) => {
  process.stderr.write(`worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
