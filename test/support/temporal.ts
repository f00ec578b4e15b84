import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  DefaultLogger,
  Runtime,
  Worker,
  makeTelemetryFilterString,
  type ActivityInterceptorsFactory,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import type { Client, ConnectionPlugin } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { inject } from 'vitest';
import { Context } from '@temporalio/activity';
import type { Clock } from '../../src/lib/clock';
import { startTestApp, type TestApp } from './app';
import { accepts, freePort } from './net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createActivities } from '../../activities';
import { buildServices, type ServiceDeps, type Services } from '../../src/services';
import type { Config } from '../../src/config';
import { createLogger } from '../../src/lib/logger';
import { temporalCliPath, testServerPath } from '../../temporal/paths';
import { workerTracing } from '../../temporal/worker';
import type { Tracing } from '../../src/traces/tracing';
import { ensureSearchAttributes } from '../../temporal/search-attributes';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

let runtimeInstalled = false;
// The SDK logs every worker state change at INFO; tests only want its errors.
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
  });
}

/**
 * The Java test server allows a client ping only every 5 minutes and closes the connection on the
 * third early one ("rejected by server because of excess pings"). The SDK's client pings every 30 s,
 * so a file that kept its server past ~90 s (a loaded machine) lost the connection mid `env.sleep`,
 * and the server then skipped time while an activity was scheduled (the large batch's messages
 * marked `unknown` hours late) or failed with "Unbalanced lock and unlock calls". Loopback needs no
 * keepalive.
 */
const noKeepAlive: ConnectionPlugin = {
  name: 'no-keepalive',
  configureConnection: (options) => ({
    ...options,
    channelArgs: {
      ...options.channelArgs,
      'grpc.keepalive_time_ms': undefined,
      'grpc.keepalive_timeout_ms': undefined,
      'grpc.keepalive_permit_without_calls': undefined,
    },
  }),
};

/**
 * The real time-skipping test server: the Java one that temporal/install.sh fetched, or the SDK's
 * download where Java and Maven are missing. With the custom search attributes registered, as the
 * worker does on a real cluster (every workflow start sets them).
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const path = testServerPath();
  const env = path
    ? await timeSkippingOn(await startTestServer(path))
    : await TestWorkflowEnvironment.createTimeSkipping({ plugins: [noKeepAlive] });
  try {
    await ensureSearchAttributes(env.connection, env.namespace ?? 'default');
  } catch (error) {
    await env.teardown();
    throw error;
  }
  return env;
}

/** The Java test server on a free port, answering: its own process, stopped by `stop`. */
interface TestServer {
  address: string;
  stop(): Promise<void>;
}

/**
 * The SDK gives the server it launches 5 s to open its port, and a JVM starting beside a loaded
 * suite can take longer ("did not start within 5s"): this launches it the same way (the port as its
 * one argument, time skipping locked until a client unlocks it) and waits for the port itself.
 */
async function startTestServer(executable: string, timeoutMs = 60_000): Promise<TestServer> {
  const port = await freePort();
  const child = spawn(executable, [String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the time-skipping test server exited before it listened: ${stderr}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the time-skipping test server did not listen on ${port} within ${timeoutMs} ms: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { address: `127.0.0.1:${port}`, stop };
}

/**
 * A time-skipping environment on a test server started above. The SDK's public constructors either
 * launch the server themselves or treat an existing one as a plain server; its own `create` takes
 * an existing address with time skipping, and the server is stopped after the environment.
 */
async function timeSkippingOn(server: TestServer): Promise<TestWorkflowEnvironment> {
  const create = (
    TestWorkflowEnvironment as unknown as {
      create(options: {
        server: { type: 'existing' };
        address: string;
        plugins: ConnectionPlugin[];
        supportsTimeSkipping: boolean;
      }): Promise<TestWorkflowEnvironment>;
    }
  ).create.bind(TestWorkflowEnvironment);
  let env: TestWorkflowEnvironment;
  try {
    env = await create({
      server: { type: 'existing' },
      address: server.address,
      plugins: [noKeepAlive],
      supportsTimeSkipping: true,
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  const teardown = env.teardown.bind(env);
  env.teardown = async () => {
    try {
      await teardown();
    } finally {
      await server.stop();
    }
  };
  return env;
}

/**
 * The Temporal CLI dev server (temporal/install.sh builds it; else the SDK's download): a real server,
 * with visibility (`client.workflow.list({ query })`) and the custom search attributes registered.
 */
export function createLocalEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const cli = temporalCliPath();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
      searchAttributes: [...SEARCH_ATTRIBUTES],
    },
  });
}

/**
 * A worker on the shared workflow bundle with the real activities, on services of its own (as a
 * worker process has) unless given the app's. With `tracing`, the worker traces as a traced worker
 * process does; it then needs a bundle built with `traces` and a client with the tracing interceptors.
 */
export async function createTestWorker(
  env: TestWorkflowEnvironment,
  deps: {
    config: Config;
    orm: MikroORM;
    services?: Services;
    temporal?: Client;
    tracing?: Tracing;
    workflowBundle?: WorkflowBundleOption;
  } & Partial<Pick<ServiceDeps, 'clock' | 'sweeps'>>,
): Promise<Worker> {
  const services =
    deps.services ??
    buildServices({
      config: deps.config,
      orm: deps.orm,
      logger: createLogger('silent'),
      temporal: deps.temporal ?? env.client,
      clock: deps.clock ?? serverClock,
      sweeps: deps.sweeps,
      tracing: deps.tracing,
    });
  const tracing = await workerTracing(deps.tracing);
  return Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: deps.config.temporal.taskQueue,
    workflowBundle: deps.workflowBundle ?? { codePath: inject('workflowBundlePath') },
    activities: createActivities(services, deps.orm),
    ...tracing,
    interceptors: {
      ...tracing.interceptors,
      activity: [...(tracing.interceptors?.activity ?? []), serverTimeOfLocalActivities(env)],
    },
  });
}

/** The server's time a local activity started at (serverClock reads it), per activity. */
const localActivityTime = new AsyncLocalStorage<number>();

/**
 * A local activity runs in the worker, not scheduled by the server: its info carries the worker's
 * wall time. Under time skipping the server's time is elsewhere, so each one asks the server first.
 */
function serverTimeOfLocalActivities(env: TestWorkflowEnvironment): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        if (!ctx.info.isLocal) return next(input);
        return localActivityTime.run(await env.currentTimeMs(), () => next(input));
      },
    },
  });
}

/**
 * Inside an activity, the time of the Temporal server that scheduled it (under time skipping, the
 * skipped-to time; a local activity's is asked for as it starts), so records line up with the
 * workflow's timeline; elsewhere the wall clock.
 */
export const serverClock: Clock = {
  now() {
    const local = localActivityTime.getStore();
    if (local !== undefined) return new Date(local);
    try {
      return new Date(Context.current().info.currentAttemptScheduledTimestampMs);
    } catch {
      return new Date();
    }
  },
};

export interface WorkflowStack {
  env: TestWorkflowEnvironment;
  app: TestApp;
  close(): Promise<void>;
}

/**
 * The time-skipping server, the app on it, and a running worker with the real activities on the
 * server's clock (no reconciler sweeps: they would reach other test files' rows).
 */
export async function startWorkflowStack(options: Parameters<typeof startTestApp>[0] = {}): Promise<WorkflowStack> {
  const env = await createTimeSkippingEnv();
  const app = await startTestApp({ ...options, temporal: env.client });
  const worker = await createTestWorker(env, { config: app.config, orm: app.orm, clock: serverClock, sweeps: [] });
  const running = worker.run();
  // A batch workflow's start delay is counted from the app's clock when the start is made, after the
  // request, in the background; the app's clock stands still while the server skips, so a skip waits
  // for the starts a request left (else it would move the workflow's first task later by the skip).
  const skip = env.sleep.bind(env);
  env.sleep = async (duration) => {
    await app.services.background.idle();
    return skip(duration);
  };
  return {
    env,
    app,
    async close() {
      worker.shutdown();
      await running;
      await app.close();
      await env.teardown();
    },
  };
}

/**
 * The activities a workflow history ran, in order: those scheduled as activity tasks and the local
 * ones (recorded as `core_local_activity` markers).
 */
export function activityNames(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (scheduled) return [scheduled];
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details?.data?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string }).activity_type] : [];
  });
}
