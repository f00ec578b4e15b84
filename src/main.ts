// The api process alone, against configured servers (DATABASE_URL, TEMPORAL_ADDRESS): the production shape.
import { loadConfigOrExit } from './config';
import { createContainer } from './container';
import { listen } from './http/server';
import { createLogger } from './lib/logger';
import { onShutdown } from './lib/shutdown';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const container = await createContainer(config, logger, { migrate: true });
  const api = await listen(container);
  logger.info({ url: api.url }, 'api listening');
  onShutdown(logger, async () => {
    await api.stop();
    await container.close();
  });
}

main().catch((error) => {
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
