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
  deliveryWorkflowId,
  deviceHeartbeatSignal,
  deviceLivenessQuery,
  deviceWorkflowId,
} from '../../workflows/definitions';
import type { reconcilerWorkflow } from '../../workflows';
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
  accountId: string;
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

/** One webhook answering from `answers`, one event: its delivery's workflow runs to its end. */
async function delivery(ctx: ScenarioContext, answers: Answer[], seed?: { failed: number[]; succeeded: number[] }) {
  const { app, env } = ctx;
  const tenant = await createTenant(app);
  const webhook = await createWebhook(tenant, (await receiver(ctx, answers)).url);
  if (seed)
    await seedAttempts(app.orm, {
      userId: tenant.userId,
      webhookId: webhook.id,
      now: await env.currentTimeMs(),
      ...seed,
    });
  const event = await emitEvent(app, tenant.userId);
  const [row] = await deliveriesOf(app, event.id);
  const handle = await started(ctx, deliveryWorkflowId(row.id));
  if (answers[0].status >= 300) {
    // The first attempt failed and the workflow waits for the next (time stands still until asked).
    const timers = async () =>
      (await handle.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes).length;
    await expect.poll(timers).toBe(1);
    await checkpoint(ctx, 'retrying', handle);
  }
  await resultOf(env, row.id);
  await checkpoint(ctx, 'ended', handle);
  return { workflowId: handle.workflowId, accountId: tenant.userId, webhookId: webhook.id };
}

const times = (count: number, ago: number) => Array.from({ length: count }, () => ago);

export const scenarios: Record<string, Scenario> = {
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
    const outbox = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }));
    expect(outbox.data.map((m: { id: string }) => m.id)).toEqual(message_ids);
    const report = json('POST', { status: 'delivered' }, bearer(phone.token));
    expect((await app.fetch(`/v1/device/messages/${message_ids[0]}/status`, report)).status).toBe(200);
    await app.services.background.idle();
    await handle.result();
    await checkpoint(ctx, 'settled', handle);
    return { workflowId: handle.workflowId, accountId: account.userId, deviceId: phone.id };
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
    return { workflowId: handle.workflowId, accountId: account.userId, deviceId: phone.id };
  },

  /** A 2xx at the first attempt. */
  'delivery-delivered': (ctx) => delivery(ctx, [{ status: 204 }]),

  /** A 500, then a 200 a minute later. */
  'delivery-retried': (ctx) => delivery(ctx, [{ status: 500 }, { status: 200 }]),

  /** 404 three times: the endpoint refuses it, the delivery stops before its schedule runs out. */
  'delivery-rejected': (ctx) => delivery(ctx, [{ status: 404 }]),

  /** Failing, with 18 failures and no recent success before it: its second failure pauses the webhook. */
  'delivery-abandoned': (ctx) =>
    delivery(ctx, [{ status: 500 }], { failed: times(18, 2 * HOUR), succeeded: times(20, 30 * HOUR) }),

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
    return { workflowId: handle.workflowId, accountId: account.userId, deviceId: phone.id };
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
    return { workflowId: handle.workflowId, accountId: account.userId, deviceId: phone.id };
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
    return { workflowId: handle.workflowId, accountId: '' };
  },
};

export type ScenarioName = keyof typeof scenarios;
