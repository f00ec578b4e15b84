// `npm run migrate` applies pending migrations; `npm run migration:create` writes a new one from the
// difference between the entities and the migrated database (snapshots are off). Without
// DATABASE_URL both use the start command's embedded Postgres (its data folder).
import path from 'node:path';
import { loadConfigOrExit } from '../config';
import { createLogger } from '../lib/logger';
import type { EmbeddedPostgres } from '../dev/embedded';
import { migrate, openOrm } from './orm';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (!url) {
    // Development only, so required here: a migrate with DATABASE_URL (production) never loads src/dev.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only without DATABASE_URL
    const { startEmbeddedPostgres } = require('../dev/embedded') as typeof import('../dev/embedded');
    embedded = await startEmbeddedPostgres({
      dir: path.join(config.dataDir, 'postgres'),
      port: config.embeddedPostgresPort,
      database: 'phone_gateway',
      persistent: true,
      logger,
    });
    url = embedded.url;
  }
  const orm = await openOrm(url, logger);
  try {
    if (process.argv.includes('--create')) {
      const created = await orm.getMigrator().createMigration();
      process.stdout.write(
        created.fileName ? `wrote ${created.fileName}; add it to src/db/migrations/index.ts\n` : 'no changes\n',
      );
    } else {
      const applied = await migrate(orm);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'nothing to apply\n');
    }
  } finally {
    await orm.close();
    await embedded?.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
