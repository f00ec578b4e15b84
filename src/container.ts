import type { MikroORM } from '@mikro-orm/postgresql';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Client } from '@temporalio/client';
import type { Config } from './config';
import type { Logger } from './lib/logger';
import { systemClock, type Clock } from './lib/clock';
import { buildServices, type ServiceDeps, type Services } from './services';
import { migrate, openOrm } from './db/orm';
import { installTracing, type Tracing } from './traces/tracing';
import { connectTemporal } from '../temporal/client';

/** What every part of a process shares, and its services are built over. */
export interface ContainerParts {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  temporal: Client;
  clock: Clock;
  /** Set only when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT). */
  tracing?: Tracing;
}

export interface Container extends ContainerParts {
  services: Services;
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

/**
 * A process's services over its parts, as the container builds them: the one place that says what
 * they are built from, so the test app (test/support/app.ts), which opens its parts its own way,
 * builds the same services, with what it swaps in `overrides`.
 */
export function containerServices(
  parts: ContainerParts,
  overrides: Omit<Partial<ServiceDeps>, keyof ContainerParts> = {},
): Services {
  return buildServices({ ...parts, processMetrics: true, ...overrides });
}

/** Composition root: the ORM and the Temporal client every process part shares, and tracing when on. */
export async function createContainer(
  config: Config,
  logger: Logger,
  options: ContainerOptions = {},
): Promise<Container> {
  const databaseUrl = options.databaseUrl ?? config.databaseUrl;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set (npm start runs an embedded Postgres when it is unset)');
  const tracing = await installTracing({
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
    const parts = { config, logger, orm, temporal, clock: systemClock, tracing };
    const services = containerServices(parts, { eagerStart: Boolean(options.connectWorkerClient) });
    const opened = orm;
    return {
      ...parts,
      services,
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
