import {
  NativeConnection,
  Runtime,
  Worker,
  makeTelemetryFilterString,
  type InjectedSinks,
  type WorkerInterceptors,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { LogLevel, LogMetadata } from '@temporalio/common';
import { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createActivities } from '../activities';
import type { Services } from '../src/services';
import type { Config } from '../src/config';
import type { Logger } from '../src/lib/logger';
import type { Tracing } from '../src/traces/tracing';
import { RECONCILER_WORKFLOW_ID } from '../workflows/definitions';
import type { reconcilerWorkflow } from '../workflows';
import { clientInterceptors, idempotentStart, temporalAddress, temporalConnectionOptions, withTlsSettings } from './client';
import { defaultBundleCacheDir, prebuiltWorkflowBundle } from './bundle-cache';
import { ensureSearchAttributes } from './search-attributes';

let runtimeInstalled = false;

/**
 * Sends the SDK's own logs (worker, workflows, activities) to our pino logger and, when
 * WORKER_METRICS_ADDRESS is set, serves the SDK's metrics (temporal_*) there for Prometheus.
 * Once per process: the SDK allows one Runtime.install, before any connection is made.
 */
export function installTemporalRuntime(logger: Logger, config?: Config): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const forward = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const pinoLevel = ({ TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const)[level];
    logger[pinoLevel]({ temporal: meta }, message);
  };
  Runtime.install({
    logger: {
      log: forward,
      trace: (m, meta) => forward('TRACE', m, meta),
      debug: (m, meta) => forward('DEBUG', m, meta),
      info: (m, meta) => forward('INFO', m, meta),
      warn: (m, meta) => forward('WARN', m, meta),
      error: (m, meta) => forward('ERROR', m, meta),
    },
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
      ...(config?.metrics.workerAddress
        ? { metrics: { prometheus: { bindAddress: config.metrics.workerAddress } } }
        : {}),
    },
    // Our shutdown (src/lib/shutdown.ts) owns the signals and stops the worker after the API; the
    // SDK would otherwise stop it on its own at the first signal.
    shutdownSignals: [],
  });
}

export interface WorkerDeps {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  temporal: Client;
  services: Services;
  connection: NativeConnection;
  /** A prebuilt bundle (tests share one); otherwise the cached one, or one built at start (bundle-cache.ts). */
  workflowBundle?: WorkflowBundleOption;
  /** Set only when tracing is on: the bundle then must have been built with `traces` (bundle.ts). */
  tracing?: Tracing;
}

/**
 * What tracing adds to a worker: a RunActivity span per activity (child of the workflow's
 * StartActivity span, its context in the activity's headers; SQL and workflow starts inside are its
 * children), and the sink through which the workflow sandbox hands out its spans. Nothing when off,
 * and nothing loaded (clientInterceptors).
 */
export async function workerTracing(tracing: Tracing | undefined): Promise<{
  interceptors?: WorkerInterceptors;
  sinks?: InjectedSinks<OpenTelemetrySinks>;
}> {
  if (!tracing) return {};
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } =
    await import('@temporalio/interceptors-opentelemetry');
  const options = { tracer: tracing.tracer };
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, options),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  const workflowBundle =
    deps.workflowBundle ??
    (await prebuiltWorkflowBundle({ traces: Boolean(deps.tracing), cacheDir: defaultBundleCacheDir }, deps.logger))
      .workflowBundle;
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: deps.config.temporal.taskQueue,
    // Never bundled by Worker.create: webpack would stay resident in the worker's process.
    workflowBundle,
    activities: createActivities(deps.services, deps.orm),
    maxCachedWorkflows: deps.config.temporal.maxCachedWorkflows,
    ...(await workerTracing(deps.tracing)),
    // A stop (Ctrl-C, SIGTERM) cancels running activities at once; one that ignores the
    // cancellation is abandoned after a few seconds (its retry runs after the next start).
    shutdownForceTime: '4s',
  });
}

/** The one reconciler per namespace; starting it again is a no-op. */
export async function ensureReconciler(client: Client, config: Config, intervalMs = 60_000): Promise<void> {
  await client.workflow.start<typeof reconcilerWorkflow>('reconcilerWorkflow', {
    workflowId: RECONCILER_WORKFLOW_ID,
    taskQueue: config.temporal.taskQueue,
    args: [{ intervalMs }],
    ...idempotentStart,
    // A reconciler that was terminated by an operator may be started again.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
}

export interface RunningWorker {
  worker: Worker;
  done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The client of a process whose api also runs the worker (`npm start`): on the kind of connection the
 * worker polls on (the Temporal core's), which runWorker then shares. A start on the worker's task
 * queue through it may then ask for eager start: the server hands the workflow's first task back in
 * its answer and the client gives it to this worker, with no trip through the server's task queue
 * (the worker process alone starts batches only for the reconciler: it keeps its plain client).
 * Where no worker of that queue runs on the connection, the start is an ordinary one.
 */
export async function connectWorkerClient(
  config: Config,
  logger: Logger,
  address = temporalAddress(config),
  tracing?: Tracing,
): Promise<Client> {
  installTemporalRuntime(logger, config);
  const connection = await withTlsSettings(config, address, () =>
    NativeConnection.connect(temporalConnectionOptions(config, address)),
  );
  return new Client({ connection, namespace: config.temporal.namespace, interceptors: await clientInterceptors(tracing) });
}

/** Creates and runs a worker; stop() drains it and waits until it has shut down. */
export async function runWorker(deps: Omit<WorkerDeps, 'connection'> & { orm: MikroORM }): Promise<RunningWorker> {
  installTemporalRuntime(deps.logger, deps.config);
  // Every start sets them: a namespace without them would refuse every workflow start.
  await ensureSearchAttributes(deps.temporal.connection, deps.config.temporal.namespace, deps.logger);
  // The client's own connection when it is a core one (connectWorkerClient), which its owner closes.
  const shared = deps.temporal.connection instanceof NativeConnection ? deps.temporal.connection : undefined;
  const address = temporalAddress(deps.config);
  const connection =
    shared ??
    (await withTlsSettings(deps.config, address, () =>
      NativeConnection.connect(temporalConnectionOptions(deps.config, address)),
    ));
  const worker = await createWorker({ ...deps, connection });
  const done = worker.run().finally(() => (shared ? undefined : connection.close()));
  await ensureReconciler(deps.temporal, deps.config);
  deps.logger.info(
    { taskQueue: deps.config.temporal.taskQueue, namespace: deps.config.temporal.namespace },
    'worker running',
  );
  return {
    worker,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
