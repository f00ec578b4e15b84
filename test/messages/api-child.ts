// An api process of its own, so a test can kill it outright (SIGKILL) between a commit and what
// follows it. Configured by the environment the test passes: DATABASE_URL, TEMPORAL_TASK_QUEUE and
// TEST_TEMPORAL_ADDRESS (connected lazily: a server that never answers holds every start).
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config';
import { openOrm } from '../../src/db/orm';
import { listen } from '../../src/server';
import { systemClock } from '../../src/lib/clock';
import { createLogger } from '../../src/lib/logger';
import { buildServices } from '../../src/services';

async function main() {
  const config = loadConfig();
  const logger = createLogger('silent');
  const orm = await openOrm(config.databaseUrl!);
  const temporal = new Client({ connection: Connection.lazy({ address: process.env.TEST_TEMPORAL_ADDRESS! }) });
  const services = buildServices({ config, logger, orm, temporal, clock: systemClock, sweeps: [] });
  const api = await listen({ config, logger, orm, temporal, services }, 0, '127.0.0.1');
  process.stdout.write(`api ready ${api.url}\n`);
}

main().catch((error) => {
  process.stderr.write(`api child failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
