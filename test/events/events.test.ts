import { transaction } from '../../src/db/transaction';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookQueueWorkflowId } from '../../workflows/definitions';
import { startTestApp, type TestApp } from '../support/app';
import { createTimeSkippingEnv } from '../support/temporal';
import { createTenant, createWebhook, deliveriesOf, rows } from '../webhooks/helpers';

describe('event service with webhook fan-out', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  const url = 'https://127.0.0.1:9/hook';

  beforeAll(async () => {
    // No worker: these tests look at rows and at which workflows exist, not at deliveries.
    env = await createTimeSkippingEnv();
    app = await startTestApp({
      temporal: env.client,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'events-test' },
    });
  });
  afterAll(async () => {
    await app?.close();
    await env?.teardown();
  });

  const emitIn = (userId: string, name: 'message.sent' | 'device.online', fail = false, on = app) =>
    transaction(on.orm.em.fork(), async (tx) => {
      const event = await on.services.events.emit(tx, {
        userId,
        name,
        data: { id: randomUUID(), status: 'sent' },
        messageId: name === 'message.sent' ? randomUUID() : null,
        deviceId: randomUUID(),
      });
      if (fail) throw new Error('the state change failed');
      return event;
    });

  /** Whether the webhook's queue workflow exists (started by the signal of its first delivery). */
  const queueExists = async (webhookId: string) => {
    try {
      await env.client.workflow.getHandle(webhookQueueWorkflowId(webhookId)).describe();
      return true;
    } catch {
      return false;
    }
  };
  /** The signals the webhook's queue workflow received. */
  const signalsTo = async (webhookId: string) =>
    (await env.client.workflow.getHandle(webhookQueueWorkflowId(webhookId)).fetchHistory()).events!.filter(
      (e) => e.workflowExecutionSignaledEventAttributes,
    ).length;

  it('queues one delivery per subscribed, enabled, undeleted webhook, with one event id', async () => {
    const tenant = await createTenant(app);
    const a = await createWebhook(tenant, url, ['message.sent', 'message.failed']);
    const b = await createWebhook(tenant, `${url}?b`, ['message.sent']);
    await createWebhook(tenant, `${url}?c`, ['device.online']);
    const disabled = await createWebhook(tenant, `${url}?d`, ['message.sent']);
    const deleted = await createWebhook(tenant, `${url}?e`, ['message.sent']);
    await tenant.call('PATCH', `/v1/webhooks/${disabled.id}`, { enabled: false });
    await tenant.call('DELETE', `/v1/webhooks/${deleted.id}`);
    // Another account's webhook on the same event never sees it.
    const other = await createTenant(app);
    await createWebhook(other, url, ['message.sent']);

    const event = await emitIn(tenant.userId, 'message.sent');
    const deliveries = await deliveriesOf(app, event.id);
    expect(deliveries.map((d) => d.webhook_id).sort()).toEqual([a.id, b.id].sort());
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(2);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: 'pending', event: 'message.sent', attempt_count: 0 });
      expect(JSON.parse(delivery.body)).toEqual({
        id: event.id,
        event: 'message.sent',
        created_at: event.createdAt.toISOString(),
        data: event.data,
      });
    }
    const [stored] = await rows(app, 'select * from events where id = ?', [event.id]);
    expect(stored).toMatchObject({ user_id: tenant.userId, name: 'message.sent' });
  });

  it('writes nothing when the state change rolls back', async () => {
    const tenant = await createTenant(app);
    const webhook = await createWebhook(tenant, url, ['device.online']);
    await expect(emitIn(tenant.userId, 'device.online', true)).rejects.toThrow('the state change failed');
    expect(await rows(app, 'select id from events where user_id = ?', [tenant.userId])).toEqual([]);
    expect(await rows(app, 'select id from webhook_deliveries where webhook_id = ?', [webhook.id])).toEqual([]);
  });

  it("tells the webhook's queue after commit, once for the deliveries committed together, and the reconciler sweep tells it what a crash left", async () => {
    const tenant = await createTenant(app);
    const webhook = await createWebhook(tenant, url, ['device.online']);
    const started = await emitIn(tenant.userId, 'device.online');
    await app.services.background.idle();
    const [delivery] = await deliveriesOf(app, started.id);
    expect(await queueExists(webhook.id)).toBe(true);
    expect(await signalsTo(webhook.id)).toBe(1);
    // Told again (the reconciler racing the normal path): one more signal to the same workflow, no error.
    expect(
      await app.services.starter.startAll(app.services.starts.webhookDeliveries, [
        { id: delivery.id, userId: tenant.userId, webhookId: delivery.webhook_id },
      ]),
    ).toBe(1);
    expect(await signalsTo(webhook.id)).toBe(2);
    // Five events in one transaction: five deliveries, one signal.
    await transaction(app.orm.em.fork(), (tx) =>
      app.services.events.emitMany(
        tx,
        Array.from({ length: 5 }, () => ({ userId: tenant.userId, name: 'device.online' as const, data: {} })),
      ),
    );
    await app.services.background.idle();
    expect(await rows(app, 'select id from webhook_deliveries where webhook_id = ?', [webhook.id])).toHaveLength(6);
    expect(await signalsTo(webhook.id)).toBe(3);
    // Ten transactions in a row: their signals are at least half a second apart, so they share a few.
    const began = Date.now();
    for (let i = 0; i < 10; i++) await emitIn(tenant.userId, 'device.online');
    const emitting = Date.now() - began;
    await app.services.background.idle();
    expect(await rows(app, 'select id from webhook_deliveries where webhook_id = ?', [webhook.id])).toHaveLength(16);
    const signals = (await signalsTo(webhook.id)) - 3;
    expect(signals).toBeGreaterThanOrEqual(1);
    expect(signals).toBeLessThanOrEqual(2 + Math.floor(emitting / 500));
    expect(signals).toBeLessThan(10);

    // An api process that cannot reach Temporal commits a delivery for another webhook but never tells its queue.
    const other = await createTenant(app);
    const otherHook = await createWebhook(other, url, ['device.online']);
    const offline = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    let orphan;
    try {
      orphan = await emitIn(other.userId, 'device.online', false, offline);
      await offline.services.background.idle();
    } finally {
      await offline.close();
    }
    expect(await deliveriesOf(app, orphan.id)).toMatchObject([{ status: 'pending' }]);
    expect(await queueExists(otherHook.id)).toBe(false);
    const sweep = app.services.starter.sweep(app.services.starts.webhookDeliveries);
    // Within the grace period the normal path may still tell it: the sweep leaves it.
    await sweep.run();
    expect(await queueExists(otherHook.id)).toBe(false);
    app.clock.advance(60_000);
    expect(await sweep.run()).toBeGreaterThanOrEqual(1);
    expect(await queueExists(otherHook.id)).toBe(true);
    expect(await signalsTo(otherHook.id)).toBe(1);
  });

  it('never fails the caller when Temporal cannot be reached; the row stays for the reconciler', async () => {
    const offline = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    try {
      const tenant = await createTenant(offline);
      await createWebhook(tenant, url, ['device.online']);
      const event = await transaction(offline.orm.em.fork(), (tx) =>
        offline.services.events.emit(tx, { userId: tenant.userId, name: 'device.online', data: {} }),
      );
      await offline.services.background.idle();
      const [delivery] = await deliveriesOf(offline, event.id);
      expect(delivery).toMatchObject({ status: 'pending', attempt_count: 0 });
    } finally {
      await offline.close();
    }
  });
});
