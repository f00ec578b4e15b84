import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWorkflowId, deviceWorkflowId, webhookQueueWorkflowId } from '../../workflows/definitions';
import { sendingTenant } from '../messages/helpers';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { createLocalEnv, createTestWorker } from '../support/temporal';
import { createWebhook, deliveriesOf, emitEvent, resultOf } from '../webhooks/helpers';
import { startReceiver, type Receiver } from '../webhooks/receiver';

// The "Finding workflows" queries of docs/workflows.md, run as written on the Temporal CLI dev server (the
// time-skipping server answers no visibility queries): one account's batches, one phone's liveness,
// whether one webhook's deliveries are failing.
describe('finding workflows by search attribute (dev server)', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let worker: Worker;
  let running: Promise<void>;
  let receiver: Receiver;

  beforeAll(async () => {
    env = await createLocalEnv();
    app = await startTestApp({
      temporal: env.client,
      env: {
        TEMPORAL_TASK_QUEUE: 'visibility-test',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Three attempts a second apart: a refused delivery fails within seconds of real time.
        WEBHOOK_RETRY_SCHEDULE: '1s,1s',
      },
    });
    worker = await createTestWorker(env, { config: app.config, orm: app.orm, services: app.services });
    running = worker.run();
    receiver = await startReceiver(() => ({ status: 404 }));
  });
  afterAll(async () => {
    await receiver?.close();
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await app?.close();
    await env?.teardown();
  });

  /** The workflow ids a visibility query finds, sorted. */
  async function found(query: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const execution of env.client.workflow.list({ query })) ids.push(execution.workflowId);
    return ids.sort();
  }

  it("finds one account's batches, one phone's liveness and one webhook's failing queue", async () => {
    const tenant = await sendingTenant(app);
    const other = await sendingTenant(app);
    const send = async (t: typeof tenant) =>
      (await readJson(await t.call('POST', '/v1/messages', { body: 'Hi', to: ['+14155550109'] }))).batch.id as string;
    const batches = [await send(tenant), await send(tenant)];
    await send(other);
    const webhook = await createWebhook(
      { userId: tenant.account.userId, key: tenant.key, call: tenant.call },
      receiver.url,
    );
    const event = await emitEvent(app, tenant.account.userId);
    const [delivery] = await deliveriesOf(app, event.id);
    expect(await resultOf(env, app, delivery.id)).toBe('failed');
    await app.services.background.idle();

    const account = tenant.account.userId;
    await expect
      .poll(() => found(`WorkflowType = 'batchWorkflow' AND AccountId = '${account}'`))
      .toEqual(batches.map(batchWorkflowId).sort());
    await expect
      .poll(() => found(`AccountId = '${account}' AND BatchStatus = 'sending' AND ExecutionStatus = 'Running'`))
      .toEqual(batches.map(batchWorkflowId).sort());
    await expect
      .poll(() => found(`WorkflowType = 'deviceLivenessWorkflow' AND DeviceId = '${tenant.phone.id}'`))
      .toEqual([deviceWorkflowId(tenant.phone.id)]);
    await expect
      .poll(() =>
        found(
          `WorkflowType = 'webhookQueueWorkflow' AND WebhookId = '${webhook.id}' AND DeliveryStatus IN ('retrying', 'failed', 'abandoned')`,
        ),
      )
      .toEqual([webhookQueueWorkflowId(webhook.id)]);
    expect(await found(`WebhookId = '${webhook.id}' AND DeliveryStatus = 'delivered'`)).toEqual([]);
  });
});
