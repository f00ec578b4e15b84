import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { inject } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createActivities, type ActivityDeps } from '../../activities';
import type { Config } from '../../src/config';
import { createLogger } from '../../src/lib/logger';
import { testServerPath } from '../../temporal/paths';

let runtimeInstalled = false;
// The SDK logs every worker state change at INFO; tests only want its warnings.
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
  });
}

/**
 * The real time-skipping test server: the Java one that temporal/install.sh fetched, or the SDK's
 * download where Java and Maven are missing.
 */
export function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const path = testServerPath();
  return TestWorkflowEnvironment.createTimeSkipping(
    path ? { server: { executable: { type: 'existing-path', path } } } : {},
  );
}

/** A worker on the shared workflow bundle with the real activities. */
export function createTestWorker(
  env: TestWorkflowEnvironment,
  deps: { config: Config; orm: MikroORM } & Partial<ActivityDeps>,
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: deps.config.temporal.taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: createActivities({ logger: createLogger('silent'), temporal: env.client, ...deps }),
  });
}
