import type { MikroORM } from '@mikro-orm/postgresql';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Client } from '@temporalio/client';
import type { Config } from './config';
import type { Logger } from './lib/logger';
import { systemClock, type Clock } from './lib/clock';
import { buildServices, type Services } from './services';
import { migrate, openOrm } from './db/orm';
import { installTracing, type Tracing } from './traces/tracing';
import { connectTemporal } from '../temporal/client';

export interface Container {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  temporal: Client;
  clock: Clock;
  services: Services;
  /** Set only when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT). */
  tracing?: Tracing;
  close(): Promise<void>;
}

export interface ContainerOptions {
  databaseUrl?: string;
  temporalAddress?: string;
  migrate?: boolean;
  /** The spans' service.name unless OTEL_SERVICE_NAME says otherwise. */
  serviceName?: string;
  /** Test seam: spans go to this processor (an in-memory exporter) whatever the environment says. */
  spanProcessor?: SpanProcessor;
  /**
   * Set where this process runs the worker too (runWorker with this container): `connectWorkerClient`
   * of temporal/worker.ts, whose client the worker shares, so that starts may be eager. Passed in, not
   * imported: a process without the worker does not load the Temporal core.
   */
  connectWorkerClient?: (config: Config, logger: Logger, address?: string, tracing?: Tracing) => Promise<Client>;
}

/** Composition root: the ORM and the Temporal client every process part shares, and tracing when on. */
export async function createContainer(
  config: Config,
  logger: Logger,
  options: ContainerOptions = {},
): Promise<Container> {
  const databaseUrl = options.databaseUrl ?? config.databaseUrl;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set (npm start runs an embedded Postgres when it is unset)');
  const tracing = installTracing({
    endpoint: config.traces.endpoint,
    serviceName: config.traces.serviceName ?? options.serviceName ?? 'phone-gateway',
    spanProcessor: options.spanProcessor,
  });
  let orm: MikroORM | undefined;
  try {
    orm = await openOrm(databaseUrl, logger, tracing, config.databasePoolMax);
    if (options.migrate) {
      const applied = await migrate(orm);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    }
    const temporal = options.connectWorkerClient
      ? await options.connectWorkerClient(config, logger, options.temporalAddress, tracing)
      : await connectTemporal(config, options.temporalAddress, tracing);
    const clock = systemClock;
    const services = buildServices({
      config,
      logger,
      orm,
      temporal,
      clock,
      processMetrics: true,
      tracing,
      eagerStart: Boolean(options.connectWorkerClient),
    });
    const opened = orm;
    return {
      config,
      logger,
      orm,
      temporal,
      clock,
      services,
      tracing,
      async close() {
        await services.accounts.mailsSent();
        await services.stop();
        await temporal.connection.close();
        await opened.close();
        // Last: exports the spans of everything above.
        await tracing?.shutdown();
      },
    };
  } catch (error) {
    await orm?.close();
    await tracing?.shutdown();
    throw error;
  }
}
