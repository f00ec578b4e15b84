import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWorkflowId } from '../../workflows/definitions';
import { sendingTenant } from '../messages/helpers';
import { parseExposition, valueOf } from '../metrics/scrape';
import { startTestApp, type TestApp } from '../support/app';
import { activityNames, createLocalEnv, createTestWorker } from '../support/temporal';

// Eager workflow start on the dev server: where the app's client shares the connection of a worker of
// its task queue (`npm start`, the worker process: temporal/worker.ts connectWorkerClient), the server
// hands a batch workflow's first task back in the start's answer; elsewhere a start is an ordinary one.
// Only a start whose first task is due at once has one to hand back (a batch is started with a delay
// until its first deadline): here, a batch accepted longer than its stale window ago, as the
// reconciler starts one that a crash left without its workflow.
describe('eager start of batch workflows (dev server)', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const apps: TestApp[] = [];
  const taskQueue = 'eager-start-test';

  beforeAll(async () => {
    env = await createLocalEnv();
  });
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    for (const app of apps) await app.close();
    await env?.teardown();
  });

  async function appOn(temporal: Client, eagerStart: boolean) {
    const app = await startTestApp({ temporal, eagerStart, env: { TEMPORAL_TASK_QUEUE: taskQueue } });
    apps.push(app);
    if (!worker) {
      worker = await createTestWorker(env, { config: app.config, orm: app.orm, services: app.services });
      running = worker.run();
    }
    return app;
  }

  /**
   * Starts a batch's workflow as the reconciler does for one accepted longer ago than its stale window
   * (its first task due at once), and waits until it has swept; the eager starts counted.
   */
  async function startDue(app: TestApp) {
    const tenant = await sendingTenant(app);
    const batch = {
      id: randomUUID(),
      userId: tenant.account.userId,
      deviceId: tenant.phone.id,
      scheduledAt: null,
      createdAt: new Date(app.clock.now().getTime() - 2 * app.config.staleWindowMs),
      ttlSeconds: null,
      settled: false,
    };
    expect(await app.services.starter.startAll(app.services.starts.batches, [batch])).toBe(1);
    const handle = env.client.workflow.getHandle(batchWorkflowId(batch.id));
    await expect
      .poll(async () => activityNames(await handle.fetchHistory()), { timeout: 30_000 })
      .toContain('sweepBatch');
    const samples = parseExposition((await app.services.metrics.render()).body);
    return {
      started: valueOf(samples, 'phone_gateway_workflow_starts_total', {
        workflow_type: 'batchWorkflow',
        result: 'started',
      }),
      eager: valueOf(samples, 'phone_gateway_workflow_eager_starts_total', { workflow_type: 'batchWorkflow' }),
    };
  }

  it("hands the first workflow task to the worker on the client's own connection", async () => {
    const app = await appOn(new Client({ connection: env.nativeConnection }), true);
    expect(await startDue(app)).toEqual({ started: 1, eager: 1 });
  });

  it('starts as before where no worker of the task queue shares the connection', async () => {
    // The layout of the api process: a core connection of its own, or the client's plain one.
    const connection = await NativeConnection.connect({ address: env.address });
    try {
      const alone = await appOn(new Client({ connection }), true);
      expect(await startDue(alone)).toEqual({ started: 1, eager: 0 });
    } finally {
      await Promise.all(apps.splice(1).map((app) => app.close()));
      await connection.close();
    }
    const plain = await appOn(env.client, false);
    expect(await startDue(plain)).toEqual({ started: 1, eager: 0 });
  });
});
