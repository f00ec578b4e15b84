import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from './config';
import type { Logger } from './lib/logger';
import { systemClock, type Clock } from './lib/clock';
import { buildServices, type Services } from './services';
import { migrate, openOrm } from './db/orm';
import { connectTemporal } from '../temporal/client';

export interface Container {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  temporal: Client;
  clock: Clock;
  services: Services;
  close(): Promise<void>;
}

/** Composition root: the ORM and the Temporal client every process part shares. */
export async function createContainer(
  config: Config,
  logger: Logger,
  options: { databaseUrl?: string; temporalAddress?: string; migrate?: boolean } = {},
): Promise<Container> {
  const databaseUrl = options.databaseUrl ?? config.databaseUrl;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set (npm start runs an embedded Postgres when it is unset)');
  const orm = await openOrm(databaseUrl, logger);
  try {
    if (options.migrate) {
      const applied = await migrate(orm);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    }
    const temporal = await connectTemporal(config, options.temporalAddress);
    const clock = systemClock;
    const services = buildServices({ config, logger, orm, temporal, clock, processMetrics: true });
    return {
      config,
      logger,
      orm,
      temporal,
      clock,
      services,
      async close() {
        await services.keyUsage.stop();
        await temporal.connection.close();
        await orm.close();
      },
    };
  } catch (error) {
    await orm.close();
    throw error;
  }
}
