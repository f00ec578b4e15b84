import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { deviceHeartbeatSignal, deviceLivenessQuery, deviceWorkflowId } from '../../workflows/definitions';
import { startTestApp, type TestApp } from '../support/app';
import { createLocalEnv, createTestWorker } from '../support/temporal';
import { accountWithKey, pairPhone } from './helpers';

// The Temporal CLI dev server rather than the time-skipping test server: this test needs no timers,
// and the test server mishandles signals that race a continue-as-new (it refuses them as sent to a
// completed workflow, or leaves queries unanswered), which a real server hands to the next run.
describe('device liveness workflow under a year of heartbeats', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let worker: Worker;
  let running: Promise<void>;

  beforeAll(async () => {
    env = await createLocalEnv();
    app = await startTestApp({ temporal: env.client, env: { TEMPORAL_TASK_QUEUE: 'devices-history-test' } });
    worker = await createTestWorker(env, { config: app.config, orm: app.orm, services: app.services });
    running = worker.run();
  });
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await app?.close();
    await env?.teardown();
  });

  it('keeps its history small over 10,000 heartbeats by continuing as new', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    await app.services.background.idle();
    const handle = env.client.workflow.getHandle(deviceWorkflowId(phone.id));
    const firstRunId = (await handle.describe()).runId;
    const total = async () => (await handle.query(deviceLivenessQuery)).totalSignals;

    // Parallel batches, each absorbed before the next (a phone's heartbeats are spaced in time).
    const batch = 250;
    for (let sent = batch; sent <= 10_000; sent += batch) {
      await Promise.all(Array.from({ length: batch }, () => handle.signal(deviceHeartbeatSignal)));
      await vi.waitFor(async () => expect(await total()).toBe(sent + 1), { timeout: 20_000, interval: 20 });
    }

    const current = await handle.describe();
    expect(current.status.name).toBe('RUNNING');
    expect(current.runId).not.toBe(firstRunId);
    expect(current.historyLength).toBeLessThan(2000);
    const first = env.client.workflow.getHandle(deviceWorkflowId(phone.id), firstRunId);
    expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
    expect((await first.fetchHistory()).events!.length).toBeLessThan(2000);
    // The state carried across runs: still online, still counting.
    expect(await handle.query(deviceLivenessQuery)).toMatchObject({ online: true, heartbeatIntervalMinutes: 15 });
  }, 120_000);
});
