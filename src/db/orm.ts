import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import type { Logger } from '../lib/logger';
import { traceStatements, underAdvisoryLock } from './connection';
import type { Tracing } from '../traces/tracing';
import { entities } from '../entities';
import { postgresSsl } from './postgres-tls';
import { migrations } from './migrations';

export function ormConfig(databaseUrl: string, logger?: Logger, poolMax = 10): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    // DATABASE_URL's sslmode and sslrootcert (postgres-tls.ts), which MikroORM itself does not read.
    driverOptions: { connection: { ssl: postgresSsl(databaseUrl) } },
    entities,
    extensions: [Migrator],
    // Entities are listed explicitly (src/entities.ts): no folder scanning, same under tsx,
    // vitest and compiled output.
    discovery: { warnWhenNoEntities: false },
    migrations: {
      tableName: 'mikro_orm_migrations',
      // Listed, not globbed, for the same reason; `npm run migration:create` writes new files here.
      migrationsList: migrations,
      path: path.join(__dirname, 'migrations'),
      pathTs: path.join(__dirname, 'migrations'),
      transactional: true,
      allOrNothing: true,
      // Migrations are hand-written SQL; new ones are diffed against the live schema.
      snapshot: false,
      emit: 'ts',
    },
    // Connections close when idle; more than a few per core only queue inside Postgres.
    pool: { min: 0, max: poolMax },
    // A request or activity forks its own EntityManager; the global one must never hold state.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug: false,
    logger: (message) => logger?.debug({ orm: message }, 'orm'),
  });
}

/** Opens the ORM; with tracing on, every SQL statement it runs is a span. */
export async function openOrm(
  databaseUrl: string,
  logger?: Logger,
  tracing?: Tracing,
  poolMax?: number,
): Promise<MikroORM> {
  const orm = await MikroORM.init(ormConfig(databaseUrl, logger, poolMax));
  if (tracing) traceStatements(orm, tracing.tracer);
  return orm;
}

// Any constant shared by every process of this service: the api and the worker both migrate at start.
const MIGRATION_LOCK = 7_401_226_001;

/** Applies every pending migration under an advisory lock, so concurrent starts apply them once. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  return underAdvisoryLock(orm, MIGRATION_LOCK, async () => {
    const applied = await orm.getMigrator().up();
    return applied.map((migration) => migration.name);
  });
}
