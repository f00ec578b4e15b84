// An api process that dies (SIGKILL) right after an idempotent request commits, before it answers:
// the crash the stored answer must survive. Configured by the environment the test passes
// (DATABASE_URL); Temporal is never reached (its starts are what the reconciler repairs).
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
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const services = buildServices({
    config,
    logger,
    orm,
    temporal,
    clock: systemClock,
    sweeps: [],
    afterIdempotentCommit: () => process.kill(process.pid, 'SIGKILL'),
  });
  const api = await listen({ config, logger, orm, temporal, services }, 0, '127.0.0.1');
  process.stdout.write(`api ready ${api.url}\n`);
}

main().catch((error) => {
  process.stderr.write(`api child failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
