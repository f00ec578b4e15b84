import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../src/db/transaction';
import type { EventName } from '../../src/events/event.entity';
import { webhookQueueWorkflowId, type WebhookQueueInput } from '../../workflows/definitions';
import { DeliveryStatus, queueSearchAttributes } from '../../workflows/search-attributes';
import { startTestApp, type TestApp } from '../support/app';
import { seedAttempts } from '../support/factories';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import {
  createTenant,
  createWebhook,
  deliveriesOf,
  deliveryRow,
  emitEvent,
  queueOf,
  queueUnstarted,
  resultOf,
  rows,
  webhookRow,
} from './helpers';
import { startReceiver, type Answer, type Receiver } from './receiver';
import { webhooksRepository } from '../../src/webhooks/webhooks.repository';

const MIN = 60_000;
const HOUR = 60 * MIN;

// What the queue workflow adds to a delivery's guarantees (delivery.workflow.test.ts has those):
// one workflow per webhook whatever the number of deliveries, endpoints that do not hold each other
// up, deliveries an api process could not announce, and its end.
describe('webhook queue workflow (time-skipping)', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  // An api process that cannot reach Temporal: what it commits, no queue hears of.
  let offline: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    stack = await startWorkflowStack({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'webhook-queue-test' },
    });
    ({ env, app } = stack);
    offline = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(async () => {
    await offline?.close();
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.close();
  });

  async function receiver(answer: (index: number) => Answer | Promise<Answer> = () => ({ status: 200 })) {
    const r = await startReceiver((_request, index) => answer(index));
    receivers.push(r);
    return r;
  }

  /** `count` events in one transaction, as a batch of a phone's reports makes them. */
  async function emitBurst(userId: string, count: number, name: EventName = 'message.received') {
    const events = await transaction(app.orm.em.fork(), (tx) =>
      app.services.events.emitMany(
        tx,
        Array.from({ length: count }, () => {
          const id = randomUUID();
          return { userId, name, data: { id, direction: 'inbound', body: 'hi' }, messageId: id };
        }),
      ),
    );
    await app.services.background.idle();
    return events;
  }

  /** The webhook's deliveries of message.received events (not the ping that seedAttempts leaves). */
  const deliveryIdsOf = async (webhookId: string) =>
    (
      await rows(
        app,
        "select id from webhook_deliveries where webhook_id = ? and event = 'message.received' order by created_at",
        [webhookId],
      )
    ).map((r) => r.id as string);

  it('delivers a burst to one endpoint once each, over kept-alive connections, with a history far shorter than its deliveries', async () => {
    const tenant = await createTenant(app);
    const endpoint = await receiver();
    const webhook = await createWebhook(tenant, endpoint.url);
    for (let i = 0; i < 4; i++) await emitBurst(tenant.userId, 50);
    const ids = await deliveryIdsOf(webhook.id);
    expect(ids).toHaveLength(200);
    for (const id of ids) expect(await resultOf(env, app, id)).toBe('delivered');

    // Each once, with its own delivery id; each recorded as attempt 1; the webhook counted them all.
    expect(endpoint.requests.map((r) => r.deliveryId).sort()).toEqual([...ids].sort());
    expect(endpoint.connections).toBeLessThan(ids.length / 2);
    const attempts = await rows(
      app,
      'select attempt_number, count(*)::int as n from webhook_attempts where webhook_id = ? group by attempt_number',
      [webhook.id],
    );
    expect(attempts).toEqual([{ attempt_number: 1, n: 200 }]);
    expect(await webhookRow(app, webhook.id)).toMatchObject({ success_count: '200', failure_count: '0' });

    const queue = await queueOf(env, webhook.id);
    // Set when the pass that recorded the last of them returns.
    await expect.poll(async () => (await queue.describe()).typedSearchAttributes.get(DeliveryStatus)).toBe('delivered');
    expect((await queue.describe()).historyLength).toBeLessThan(ids.length / 2);
  });

  it("keeps one endpoint's slow answers from holding up another's deliveries", async () => {
    const tenant = await createTenant(app);
    // The slow endpoint answers only once the fast one's delivery is done: were the two deliveries
    // in one line, the fast one would wait for it forever.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = await receiver(async () => {
      await released;
      return { status: 200 };
    });
    const fast = await receiver();
    const slowHook = await createWebhook(tenant, slow.url);
    const fastHook = await createWebhook(tenant, fast.url);
    const event = await emitEvent(app, tenant.userId);
    const deliveries = await deliveriesOf(app, event.id);
    const of = (webhookId: string) => deliveries.find((d) => d.webhook_id === webhookId)!.id;

    expect(await resultOf(env, app, of(fastHook.id))).toBe('delivered');
    expect(slow.requests.filter((request) => request.answered !== undefined)).toEqual([]);
    release();
    expect(await resultOf(env, app, of(slowHook.id))).toBe('delivered');
    expect(slow.requests).toHaveLength(1);
  });

  it('attempts what an api process committed without telling the queue: at its next pass, or when the reconciler tells it', async () => {
    const tenant = await createTenant(app);
    const endpoint = await receiver();
    const webhook = await createWebhook(tenant, endpoint.url);
    const untold = async () =>
      (await queueUnstarted(offline, { userId: tenant.userId, name: 'message.received', data: { id: randomUUID() } }))
        .deliveries[0];

    // Another delivery's signal: the pass takes both.
    const first = await untold();
    const [told] = await deliveriesOf(app, (await emitEvent(app, tenant.userId)).id);
    expect(await resultOf(env, app, told.id)).toBe('delivered');
    expect(await resultOf(env, app, first.id)).toBe('delivered');

    // Nothing else for the webhook: once the row is due longer than the grace period, the reconciler
    // finds it and tells its queue. Only this webhook's rows are told here: the sweep itself would
    // reach the other test files' rows too.
    const orphan = await untold();
    const found = async (before: Date) =>
      (await webhooksRepository.lateDeliveries(app.orm.em.fork(), before, 10_000)).filter(
        (row) => row.webhookId === webhook.id,
      );
    expect(await found(new Date(Date.now() - MIN))).toEqual([]);
    const late = await found(new Date(Date.now() + MIN));
    expect(late.map((row) => row.id)).toEqual([orphan.id]);
    const starts = late.map((row) => ({ id: row.id, userId: row.userId, webhookId: row.webhookId }));
    expect(await app.services.starter.startAll(app.services.starts.webhookDeliveries, starts)).toBe(1);
    expect(await resultOf(env, app, orphan.id)).toBe('delivered');
    expect(await found(new Date(Date.now() + MIN))).toEqual([]);

    expect(endpoint.requests.map((r) => r.deliveryId).sort()).toEqual([told.id, first.id, orphan.id].sort());
  });

  it('ends after ten idle minutes and starts again with the next delivery; ends for good with its webhook deleted', async () => {
    const tenant = await createTenant(app);
    const endpoint = await receiver((index) => ({ status: index < 1 ? 200 : 500 }));
    const webhook = await createWebhook(tenant, endpoint.url);
    const first = (await deliveriesOf(app, (await emitEvent(app, tenant.userId)).id))[0];
    expect(await resultOf(env, app, first.id)).toBe('delivered');
    const queue = await queueOf(env, webhook.id);
    const firstRun = (await queue.describe()).runId;
    // Waiting on its result lets the server skip the idle wait.
    await queue.result();

    // Fails, waits for its retry; the webhook is deleted meanwhile: the pass at the retry ends it.
    const second = (await deliveriesOf(app, (await emitEvent(app, tenant.userId)).id))[0];
    await expect.poll(async () => (await deliveryRow(app, second.id)).status).toBe('retrying');
    const secondRun = await queueOf(env, webhook.id);
    expect((await secondRun.describe()).runId).not.toBe(firstRun);
    expect((await tenant.call('DELETE', `/v1/webhooks/${webhook.id}`)).status).toBe(204);
    await secondRun.result();
    const ended = await secondRun.describe();
    expect(ended.status.name).toBe('COMPLETED');
    expect(ended.typedSearchAttributes.get(DeliveryStatus)).toBe('abandoned');
    expect(await deliveryRow(app, second.id)).toMatchObject({ status: 'failed', error: 'the webhook was deleted' });
    expect(endpoint.requests).toHaveLength(2);
  });

  it('continues as new when its history fills, and delivers across the runs', async () => {
    const tenant = await createTenant(app);
    const endpoint = await receiver();
    const webhook = await createWebhook(tenant, endpoint.url);
    // Started here with a small budget, so that the deliveries' signals reach this run.
    const input: WebhookQueueInput = { webhookId: webhook.id, eventsPerRun: 4 };
    const handle = await env.client.workflow.start('webhookQueueWorkflow', {
      workflowId: webhookQueueWorkflowId(webhook.id),
      taskQueue: app.config.temporal.taskQueue,
      args: [input],
      typedSearchAttributes: queueSearchAttributes({ userId: tenant.userId, webhookId: webhook.id }),
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const [delivery] = await deliveriesOf(app, (await emitEvent(app, tenant.userId)).id);
      expect(await resultOf(env, app, delivery.id)).toBe('delivered');
      ids.push(delivery.id);
    }
    await expect.poll(async () => (await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
    const [last] = await deliveriesOf(app, (await emitEvent(app, tenant.userId)).id);
    expect(await resultOf(env, app, last.id)).toBe('delivered');
    expect(endpoint.requests.map((r) => r.deliveryId)).toEqual([...ids, last.id]);
  });

  it('ends every delivery of a batch that crosses the auto-pause rule, and retries none', async () => {
    const tenant = await createTenant(app);
    const endpoint = await receiver(() => ({ status: 500 }));
    const webhook = await createWebhook(tenant, endpoint.url);
    // 18 failures within 7 days, 20 successes older than a day: three more make 21 of 41.
    await seedAttempts(app.orm, {
      userId: tenant.userId,
      webhookId: webhook.id,
      now: await env.currentTimeMs(),
      failed: Array.from({ length: 18 }, () => 2 * HOUR),
      succeeded: Array.from({ length: 20 }, () => 30 * HOUR),
    });
    await emitBurst(tenant.userId, 3);
    const ids = await deliveryIdsOf(webhook.id);
    for (const id of ids) expect(await resultOf(env, app, id)).toBe('failed');
    expect((await webhookRow(app, webhook.id)).enabled).toBe(false);
    const ended = await rows(
      app,
      "select attempt_count, error from webhook_deliveries where webhook_id = ? and event = 'message.received'",
      [webhook.id],
    );
    expect(ended).toEqual(
      Array.from({ length: 3 }, () => ({ attempt_count: 1, error: 'the webhook was paused automatically' })),
    );
    await env.sleep(2 * MIN);
    expect(endpoint.requests).toHaveLength(3);
  });
});
