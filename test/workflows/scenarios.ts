// Real runs of every workflow through its branches, on the time-skipping server with the app, the real
// activities and real phones and receivers. The recorder (record-histories.ts, `npm run
// histories:record`) saves their histories for the replay test; search-attributes.test.ts checks the
// search attributes they leave at each step.
import { randomUUID } from 'node:crypto';
import { WorkflowContinuedAsNewError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { expect, vi } from 'vitest';
import {
  batchWorkflowId,
  deviceHeartbeatSignal,
  deviceLivenessQuery,
  deviceWorkflowId,
  webhookQueueWorkflowId,
  type WebhookQueueInput,
} from '../../workflows/definitions';
import type { reconcilerWorkflow, webhookQueueWorkflow } from '../../workflows';
import { queueSearchAttributes } from '../../workflows/search-attributes';
import { accountWithKey, bearer, pairPhone } from '../devices/helpers';
import { sendingTenant } from '../messages/helpers';
import { json } from '../support/accounts';
import type { TestApp } from '../support/app';
import { deviceRow, seedAttempts } from '../support/factories';
import { readJson } from '../support/http';
import { createTenant, createWebhook, deliveriesOf, emitEvent, resultOf } from '../webhooks/helpers';
import { startReceiver, type Answer, type Receiver } from '../webhooks/receiver';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface ScenarioContext {
  env: TestWorkflowEnvironment;
  app: TestApp;
  /** Receivers a scenario started; the caller closes them. */
  receivers: Receiver[];
  /** Called at each named step with the workflow's handle (the search attributes test looks there). */
  checkpoint?: (step: string, handle: WorkflowHandle) => Promise<void>;
}

export interface ScenarioRun {
  workflowId: string;
  userId: string;
  deviceId?: string;
  webhookId?: string;
}

type Scenario = (ctx: ScenarioContext) => Promise<ScenarioRun>;

/** The API's clock follows the test server's, which time skipping moves. */
async function syncClock({ app, env }: ScenarioContext) {
  app.clock.set(new Date(await env.currentTimeMs()));
}

async function checkpoint(ctx: ScenarioContext, step: string, handle: WorkflowHandle) {
  await ctx.checkpoint?.(step, handle);
}

/** The phone fetches the batch's one text and reports it delivered: the batch settles and its workflow ends. */
async function deliverAll(
  ctx: ScenarioContext,
  phone: { token: string },
  messageIds: string[],
  handle: WorkflowHandle,
) {
  const { app } = ctx;
  const outbox = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }));
  expect(outbox.data.map((m: { id: string }) => m.id)).toEqual(messageIds);
  const report = json('POST', { status: 'delivered' }, bearer(phone.token));
  expect((await app.fetch(`/v1/device/messages/${messageIds[0]}/status`, report)).status).toBe(200);
  await app.services.background.idle();
  await handle.result();
  await checkpoint(ctx, 'settled', handle);
}

/** Started after the commit, in the background: waits until it exists. */
async function started(ctx: ScenarioContext, workflowId: string): Promise<WorkflowHandle> {
  await ctx.app.services.background.idle();
  const handle = ctx.env.client.workflow.getHandle(workflowId);
  await expect
    .poll(() =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    )
    .toBe(true);
  return handle;
}

async function receiver(ctx: ScenarioContext, answers: Answer[]) {
  const r = await startReceiver((_request, index) => answers[Math.min(index, answers.length - 1)]);
  ctx.receivers.push(r);
  return r;
}

/** The timers the workflow has started: a queue starts one after each pass (a retry, or its idle wait). */
async function timersOf(handle: WorkflowHandle): Promise<number> {
  return (await handle.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes).length;
}

/**
 * One webhook answering from `answers`, one event: its queue workflow attempts it until it ends,
 * then waits idle and ends. With `deleteWhileRetrying`, the webhook is deleted after the first
 * failure: the pass at the retry ends the workflow.
 */
async function queue(
  ctx: ScenarioContext,
  answers: Answer[],
  options: { seed?: { failed: number[]; succeeded: number[] }; deleteWhileRetrying?: boolean } = {},
) {
  const { app, env } = ctx;
  const tenant = await createTenant(app);
  const endpoint = await receiver(ctx, answers);
  const webhook = await createWebhook(tenant, endpoint.url);
  if (options.seed)
    await seedAttempts(app.orm, {
      userId: tenant.userId,
      webhookId: webhook.id,
      now: await env.currentTimeMs(),
      ...options.seed,
    });
  const event = await emitEvent(app, tenant.userId);
  const [row] = await deliveriesOf(app, event.id);
  const handle = await started(ctx, webhookQueueWorkflowId(webhook.id));
  if (answers[0].status >= 300) {
    // The first attempt failed and the workflow waits for the retry (time stands still until asked).
    await expect.poll(() => timersOf(handle)).toBe(1);
    await checkpoint(ctx, 'retrying', handle);
  }
  if (options.deleteWhileRetrying) {
    expect((await tenant.call('DELETE', `/v1/webhooks/${webhook.id}`)).status).toBe(204);
  } else {
    await resultOf(env, app, row.id);
    // One pass per attempt here, each followed by a timer: the last pass has returned.
    await expect.poll(() => timersOf(handle)).toBe(endpoint.requests.length);
    await checkpoint(ctx, 'settled', handle);
  }
  // Waiting on its result lets the server skip the idle wait (or the wait for the retry).
  await handle.result();
  await checkpoint(ctx, 'ended', handle);
  return { workflowId: handle.workflowId, userId: tenant.userId, webhookId: webhook.id };
}

const times = (count: number, ago: number) => Array.from({ length: count }, () => ago);

export const scenarios: Record<string, Scenario> = {
  /**
   * Scheduled an hour ahead and cancelled before its time: the settled signal ends the wait, nothing
   * is released. First, while the test server's time is still near the real time that the API's
   * 7-day horizon for scheduled_at is checked against.
   */
  async 'batch-scheduled-cancelled'(ctx) {
    const { app } = ctx;
    const { call, phone, account } = await sendingTenant(app);
    await syncClock(ctx);
    const at = new Date(app.clock.now().getTime() + HOUR);
    const accepted = await call('POST', '/v1/messages', { body: 'Later', to: ['+14155550105'], scheduled_at: at });
    expect(accepted.status).toBe(202);
    const { batch } = await readJson(accepted);
    const handle = await started(ctx, batchWorkflowId(batch.id));
    await checkpoint(ctx, 'scheduled', handle);

    expect((await call('POST', `/v1/batches/${batch.id}/cancel`)).status).toBe(200);
    await app.services.background.idle();
    await handle.result();
    await checkpoint(ctx, 'settled', handle);
    return { workflowId: handle.workflowId, userId: account.userId, deviceId: phone.id };
  },

  /**
   * The common send: one text, fetched and reported delivered long before its stale deadline. Its
   * workflow was started with a delay to that deadline; the settled signal (signal-with-start) ends
   * the delay, and the workflow ends in its one task.
   */
  async 'batch-settled'(ctx) {
    const { app } = ctx;
    await syncClock(ctx);
    const { call, phone, account } = await sendingTenant(app);
    const accepted = await call('POST', '/v1/messages', { body: 'Now', to: ['+14155550106'] });
    const { batch, message_ids } = await readJson(accepted);
    const handle = await started(ctx, batchWorkflowId(batch.id));
    await checkpoint(ctx, 'sending', handle);

    await deliverAll(ctx, phone, message_ids, handle);
    return { workflowId: handle.workflowId, userId: account.userId, deviceId: phone.id };
  },

  /** Scheduled an hour ahead, released, sent, reported delivered: the settled signal ends it. */
  async 'batch-scheduled-settled'(ctx) {
    const { app, env } = ctx;
    await syncClock(ctx);
    const { call, phone, account } = await sendingTenant(app);
    const at = new Date((await env.currentTimeMs()) + HOUR);
    const accepted = await call('POST', '/v1/messages', { body: 'Later', to: ['+14155550104'], scheduled_at: at });
    const { batch, message_ids } = await readJson(accepted);
    const handle = await started(ctx, batchWorkflowId(batch.id));
    await checkpoint(ctx, 'scheduled', handle);

    await env.sleep(HOUR + MINUTE);
    const status = async () => (await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch.status;
    await expect.poll(status).toBe('queued');
    await checkpoint(ctx, 'released', handle);

    await syncClock(ctx);
    await deliverAll(ctx, phone, message_ids, handle);
    return { workflowId: handle.workflowId, userId: account.userId, deviceId: phone.id };
  },

  /**
   * 52 messages whose stale deadlines are a minute apart and that nobody reports: a wake per
   * deadline, continue-as-new after 50, the last ones lapse in the second run, which ends settled.
   */
  async 'batch-continue-as-new'(ctx) {
    const { app } = ctx;
    await syncClock(ctx);
    const { call, phone, account } = await sendingTenant(app);
    expect((await call('PATCH', `/v1/devices/${phone.id}`, { send_delay_seconds: 55 })).status).toBe(200);
    const to = Array.from({ length: 52 }, (_, i) => `+1415555${String(1000 + i)}`);
    const { batch } = await readJson(await call('POST', '/v1/messages', { body: 'Lapsing', to }));
    const handle = await started(ctx, batchWorkflowId(batch.id));
    await handle.result();
    await checkpoint(ctx, 'settled', handle);
    return { workflowId: handle.workflowId, userId: account.userId, deviceId: phone.id };
  },

  // Webhook queues.

  /** A 2xx at the first attempt, then the idle end. */
  'queue-delivered': (ctx) => queue(ctx, [{ status: 204 }]),

  /** A 500, then a 200 a minute later. */
  'queue-retried': (ctx) => queue(ctx, [{ status: 500 }, { status: 200 }]),

  /** 404 three times: the endpoint refuses it, the delivery stops before its schedule runs out. */
  'queue-rejected': (ctx) => queue(ctx, [{ status: 404 }]),

  /** Failing, with 18 failures and no recent success before it: its second failure pauses the webhook. */
  'queue-abandoned': (ctx) =>
    queue(ctx, [{ status: 500 }], { seed: { failed: times(18, 2 * HOUR), succeeded: times(20, 30 * HOUR) } }),

  /** A 500, then the webhook deleted: the pass at the retry ends the workflow for good. */
  'queue-deleted': (ctx) => queue(ctx, [{ status: 500 }], { deleteWhileRetrying: true }),

  /**
   * Started with a budget of three events: a pass, then a delivery's signal and its pass fill a run,
   * which continues as new (twice: run1 and run2, each with one delivery); the third run ends idle.
   */
  async 'queue-continue-as-new'(ctx) {
    const { app, env } = ctx;
    const tenant = await createTenant(app);
    const endpoint = await receiver(ctx, [{ status: 200 }]);
    const webhook = await createWebhook(tenant, endpoint.url);
    const input: WebhookQueueInput = { webhookId: webhook.id, eventsPerRun: 3 };
    const handle = await env.client.workflow.start<typeof webhookQueueWorkflow>('webhookQueueWorkflow', {
      workflowId: webhookQueueWorkflowId(webhook.id),
      taskQueue: app.config.temporal.taskQueue,
      args: [input],
      typedSearchAttributes: queueSearchAttributes({ userId: tenant.userId, webhookId: webhook.id }),
    });
    await expect.poll(() => timersOf(handle)).toBe(1);
    for (let i = 0; i < 2; i++) {
      const [row] = await deliveriesOf(app, (await emitEvent(app, tenant.userId)).id);
      expect(await resultOf(env, app, row.id)).toBe('delivered');
      if (i === 0) await expect.poll(async () => (await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
    }
    await handle.result();
    return { workflowId: handle.workflowId, userId: tenant.userId, webhookId: webhook.id };
  },

  /** Paired (online), silent past the threshold (offline), a heartbeat (online), unpaired (ends). */
  async 'liveness-offline-online'(ctx) {
    const { app, env } = ctx;
    await syncClock(ctx);
    const { key, account } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const handle = await started(ctx, deviceWorkflowId(phone.id));
    await checkpoint(ctx, 'paired', handle);

    await env.sleep(31 * MINUTE);
    await expect.poll(async () => (await deviceRow(app.orm, phone.id)).online).toBe(false);
    await checkpoint(ctx, 'offline', handle);

    await syncClock(ctx);
    expect((await app.fetch('/v1/device/heartbeat', json('POST', {}, bearer(phone.token)))).status).toBe(200);
    await app.services.background.idle();
    await expect.poll(async () => (await handle.query(deviceLivenessQuery)).online).toBe(true);
    await checkpoint(ctx, 'online', handle);

    const unpair = await app.fetch(`/v1/devices/${phone.id}`, json('DELETE', undefined, { 'x-api-key': key }));
    expect(unpair.status).toBe(204);
    await app.services.background.idle();
    await handle.result();
    await checkpoint(ctx, 'unpaired', handle);
    return { workflowId: handle.workflowId, userId: account.userId, deviceId: phone.id };
  },

  /** 200 signals (the pairing's and 199 heartbeats, absorbed before the last): continue-as-new. */
  async 'liveness-continue-as-new'(ctx) {
    const { app } = ctx;
    await syncClock(ctx);
    const { key, account } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const handle = await started(ctx, deviceWorkflowId(phone.id));
    const firstRunId = (await handle.describe()).runId;
    const absorbed = (total: number) =>
      vi.waitFor(async () => expect((await handle.query(deviceLivenessQuery)).totalSignals).toBe(total), {
        timeout: 30_000,
        interval: 10,
      });
    // In batches, then the 200th alone: the test server mishandles signals that race a continue-as-new.
    for (let total = 1; total < 199; total += 66) {
      await Promise.all(Array.from({ length: 66 }, () => handle.signal(deviceHeartbeatSignal)));
      await absorbed(total + 66);
    }
    await handle.signal(deviceHeartbeatSignal);
    await expect.poll(async () => (await handle.describe()).runId).not.toBe(firstRunId);
    const unpair = await app.fetch(`/v1/devices/${phone.id}`, json('DELETE', undefined, { 'x-api-key': key }));
    expect(unpair.status).toBe(204);
    await app.services.background.idle();
    await handle.result();
    return { workflowId: handle.workflowId, userId: account.userId, deviceId: phone.id };
  },

  /** Two passes a minute apart, then continue-as-new; the next run is ended by hand (not recorded). */
  async reconciler(ctx) {
    const { app, env } = ctx;
    const handle = await env.client.workflow.start<typeof reconcilerWorkflow>('reconcilerWorkflow', {
      workflowId: `reconciler-${randomUUID()}`,
      taskQueue: app.config.temporal.taskQueue,
      args: [{ intervalMs: MINUTE, passesPerRun: 2 }],
    });
    // Waiting on the first run's result lets the server skip its timers.
    const first = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId, {
      followRuns: false,
    });
    await expect(first.result()).rejects.toBeInstanceOf(WorkflowContinuedAsNewError);
    await env.client.workflow.getHandle(handle.workflowId).terminate('recorded');
    return { workflowId: handle.workflowId, userId: '' };
  },
};

export type ScenarioName = keyof typeof scenarios;
