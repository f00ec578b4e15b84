import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKey, json, registerAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { pauseWebhookAutomatically } from '../support/factories';
import { readJson } from '../support/http';
import { createTestWorker, createTimeSkippingEnv } from '../support/temporal';
import {
  createTenant,
  createWebhook,
  deliveriesOf,
  deliveryRow,
  emitEvent,
  expectSigned,
  resultOf,
  rows,
  serverClock,
  verifyByHand,
  type Tenant,
} from './helpers';
import { startReceiver, type Receiver } from './receiver';

describe('POST /v1/webhooks/deliveries/{id}/redeliver', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let worker: Worker;
  let running: Promise<void>;
  let receiver: Receiver;
  /** The receiver's answer by delivery id (200 unless set here or by failFirstTry). */
  const answers = new Map<string, number>();
  /** While set, a delivery's first request is answered 503 (it retries). */
  let failFirstTry = false;
  /** While set, every request is answered 503. */
  let down = false;
  const tried = new Set<string>();

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    app = await startTestApp({
      temporal: env.client,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'webhooks-redeliver-test' },
    });
    worker = await createTestWorker(env, { config: app.config, orm: app.orm, clock: serverClock, sweeps: [] });
    running = worker.run();
    receiver = await startReceiver((request) => {
      const first = !tried.has(request.deliveryId);
      tried.add(request.deliveryId);
      if (down) return { status: 503, body: 'down' };
      return { status: answers.get(request.deliveryId) ?? (failFirstTry && first ? 503 : 200), body: 'ok' };
    });
  });
  afterEach(() => {
    failFirstTry = false;
    down = false;
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await receiver?.close();
    await app?.close();
    await env?.teardown();
  });

  /** An event delivered once to the tenant's webhook; returns its delivery. */
  async function deliveredOnce(tenant: Tenant, webhookId: string) {
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);
    expect(delivery.webhook_id).toBe(webhookId);
    expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    return { event, delivery };
  }

  const redeliver = (tenant: Tenant, id: string) => tenant.call('POST', `/v1/webhooks/deliveries/${id}/redeliver`);

  it('sends the same event again as a new delivery, signed with the current secret', async () => {
    const tenant = await createTenant(app);
    const webhook = await createWebhook(tenant, receiver.url);
    const { event, delivery } = await deliveredOnce(tenant, webhook.id);
    const first = receiver.requests.find((r) => r.deliveryId === delivery.id)!;
    expectSigned(first, webhook.secret);

    const rotated = await readJson(await tenant.call('POST', `/v1/webhooks/${webhook.id}/rotate-secret`));
    app.clock.advance(1000);
    const res = await redeliver(tenant, delivery.id);
    expect(res.status).toBe(202);
    const again = (await readJson(res)).delivery;
    expect(again.id).not.toBe(delivery.id);
    expect(again).toMatchObject({
      webhook_id: webhook.id,
      url: receiver.url,
      event: 'message.received',
      status: 'pending',
      attempt_count: 0,
      message_id: delivery.message_id,
      payload: JSON.parse(delivery.body),
    });

    expect(await resultOf(env, app, again.id)).toBe('delivered');
    const second = receiver.requests.find((r) => r.deliveryId === again.id)!;
    // The same event, byte for byte: the same event id for the receiver to de-duplicate on.
    expect(second.raw).toBe(first.raw);
    expect(JSON.parse(second.raw).id).toBe(event.id);
    expect(second.event).toBe('message.received');
    expect(second.deliveryId).toBe(again.id);
    expectSigned(second, rotated.secret);
    expect(verifyByHand(second.raw, second.signature, webhook.secret)).toBe(false);

    // Both in the log; the original untouched.
    const log = await readJson(await tenant.call('GET', `/v1/webhooks/deliveries?webhook_id=${webhook.id}`));
    expect(log.data.map((d: { id: string }) => d.id)).toEqual([again.id, delivery.id]);
    expect(log.data[0]).toMatchObject({ status: 'delivered', attempt_count: 1, http_status: 200 });
    expect(log.data[1]).toMatchObject({ status: 'delivered', attempt_count: 1 });
  });

  it('redelivers a failed delivery through the normal retry path', async () => {
    const tenant = await createTenant(app);
    const webhook = await createWebhook(tenant, receiver.url);
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);
    // A rejection (4xx) three times ends the delivery failed.
    answers.set(delivery.id, 410);
    expect(await resultOf(env, app, delivery.id)).toBe('failed');
    expect(await deliveryRow(app, delivery.id)).toMatchObject({ status: 'failed', attempt_count: 3 });

    // The new delivery retries on its own schedule: a 503 first, then delivered.
    failFirstTry = true;
    const res = await redeliver(tenant, delivery.id);
    expect(res.status).toBe(202);
    const again = (await readJson(res)).delivery;
    expect(await resultOf(env, app, again.id)).toBe('delivered');
    failFirstTry = false;
    expect(await deliveryRow(app, again.id)).toMatchObject({ status: 'delivered', attempt_count: 2 });
    expect(receiver.requests.filter((r) => r.deliveryId === again.id)).toHaveLength(2);
    expect(await deliveryRow(app, delivery.id)).toMatchObject({ status: 'failed', attempt_count: 3 });
    expect(webhook.id).toBe(again.webhook_id);
  });

  /** An event whose delivery failed its first attempt and waits for its retry. */
  async function retrying(tenant: Tenant) {
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);
    await expect.poll(async () => (await deliveryRow(app, delivery.id)).status).toBe('retrying');
    return { event, delivery };
  }

  const requestsFor = (eventId: string) => receiver.requests.filter((r) => JSON.parse(r.raw).id === eventId);

  it('ends the retries of a retrying delivery once its redelivery reaches the receiver', async () => {
    const tenant = await createTenant(app);
    const webhook = await createWebhook(tenant, receiver.url);
    failFirstTry = true;
    const { event, delivery } = await retrying(tenant);
    // The original keeps failing on its own: only the redelivery can reach the receiver.
    answers.set(delivery.id, 503);
    failFirstTry = false;
    expect(requestsFor(event.id)).toHaveLength(1);

    const res = await redeliver(tenant, delivery.id);
    expect(res.status).toBe(202);
    const again = (await readJson(res)).delivery;
    expect(again).toMatchObject({ redelivery_of: delivery.id, redeliveries: [], superseded_by: null });
    expect(await resultOf(env, app, again.id)).toBe('delivered');

    // The original is delivered through it: no next attempt, no longer open.
    expect(await deliveryRow(app, delivery.id)).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      next_attempt_at: null,
      superseded_by: again.id,
    });
    // Past every retry the original had left, and past a later event the same queue delivers:
    // the receiver got this event twice (the first try and the redelivery), never a third time.
    const schedule = app.config.webhooks.retryScheduleMs.reduce((sum, ms) => sum + ms, 0);
    await env.sleep(schedule + 60_000);
    const later = await emitEvent(app, tenant.userId);
    const [next] = await deliveriesOf(app, later.id);
    expect(await resultOf(env, app, next.id)).toBe('delivered');
    expect(requestsFor(event.id).map((r) => r.deliveryId)).toEqual([delivery.id, again.id]);
    expect(await rows(app, 'select * from webhook_attempts where delivery_id = ?', [delivery.id])).toHaveLength(1);

    // The log links both ways.
    const original = (await readJson(await tenant.call('GET', `/v1/webhooks/deliveries/${delivery.id}`))).delivery;
    expect(original).toMatchObject({
      status: 'delivered',
      next_attempt_at: null,
      redelivery_of: null,
      redeliveries: [again.id],
      superseded_by: again.id,
    });
    expect(original.delivered_at).not.toBeNull();
    const log = await readJson(await tenant.call('GET', `/v1/webhooks/deliveries?webhook_id=${webhook.id}`));
    expect(log.data.find((d: { id: string }) => d.id === again.id)).toMatchObject({
      redelivery_of: delivery.id,
      redeliveries: [],
      status: 'delivered',
    });
    expect(log.data.find((d: { id: string }) => d.id === delivery.id).redeliveries).toEqual([again.id]);
  });

  it('keeps the original retrying when its redelivery fails, and tries the redelivery once', async () => {
    const tenant = await createTenant(app);
    await createWebhook(tenant, receiver.url);
    down = true;
    const { event, delivery } = await retrying(tenant);

    const again = (await readJson(await redeliver(tenant, delivery.id))).delivery;
    await expect.poll(async () => (await deliveryRow(app, again.id)).status).toBe('failed');
    expect(await deliveryRow(app, again.id)).toMatchObject({
      attempt_count: 1,
      next_attempt_at: null,
      http_status: 503,
    });
    // Held while the redelivery waited, the original made no attempt meanwhile and still retries.
    expect(await deliveryRow(app, delivery.id)).toMatchObject({
      status: 'retrying',
      attempt_count: 1,
      superseded_by: null,
    });

    down = false;
    expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    expect(await deliveryRow(app, delivery.id)).toMatchObject({ attempt_count: 2, superseded_by: null });
    expect(requestsFor(event.id).map((r) => r.deliveryId)).toEqual([delivery.id, again.id, delivery.id]);
  });

  it('redelivers what was abandoned while the webhook was paused, once it is enabled again', async () => {
    const tenant = await createTenant(app);
    const webhook = await createWebhook(tenant, receiver.url);
    // Its first attempt fails; the webhook is paused before the retry, which abandons it.
    failFirstTry = true;
    const queued = await emitEvent(app, tenant.userId);
    const [missed] = await deliveriesOf(app, queued.id);
    await expect.poll(async () => (await deliveryRow(app, missed.id)).status).toBe('retrying');
    failFirstTry = false;
    await pauseWebhookAutomatically(app.orm, webhook.id, 'Paused automatically (test)');
    expect(await resultOf(env, app, missed.id)).toBe('failed');
    expect(await deliveryRow(app, missed.id)).toMatchObject({
      status: 'failed',
      attempt_count: 1,
      error: 'the webhook was disabled',
    });
    expect((await deliveryRow(app, missed.id)).abandoned_at).not.toBeNull();

    const whilePaused = await redeliver(tenant, missed.id);
    expect(whilePaused.status).toBe(409);
    expect(await readJson(whilePaused)).toEqual({
      code: 'webhook_disabled',
      message: expect.any(String),
      status: 409,
    });

    expect((await tenant.call('PATCH', `/v1/webhooks/${webhook.id}`, { enabled: true })).status).toBe(200);
    const res = await redeliver(tenant, missed.id);
    expect(res.status).toBe(202);
    const again = (await readJson(res)).delivery;
    expect(await resultOf(env, app, again.id)).toBe('delivered');
    const request = receiver.requests.find((r) => r.deliveryId === again.id)!;
    expect(JSON.parse(request.raw).id).toBe(queued.id);
    expectSigned(request, webhook.secret);
  });

  it('answers 409 webhook_deleted for a deleted webhook, and 404 for another account or no such delivery', async () => {
    const tenant = await createTenant(app);
    const webhook = await createWebhook(tenant, receiver.url);
    const { delivery } = await deliveredOnce(tenant, webhook.id);

    const stranger = await createTenant(app);
    for (const id of [delivery.id, randomUUID()]) {
      const res = await redeliver(stranger, id);
      expect(res.status).toBe(404);
      expect((await readJson(res)).code).toBe('not_found');
    }
    expect((await redeliver(tenant, 'not-a-uuid')).status).toBe(404);

    expect((await tenant.call('DELETE', `/v1/webhooks/${webhook.id}`)).status).toBe(204);
    const res = await redeliver(tenant, delivery.id);
    expect(res.status).toBe(409);
    expect(await readJson(res)).toEqual({ code: 'webhook_deleted', message: expect.any(String), status: 409 });
    // Nothing new was queued.
    expect(await deliveriesOf(app, JSON.parse(delivery.body).id)).toHaveLength(1);
  });

  it('needs the webhooks scope or a dashboard session', async () => {
    const account = await registerAccount(app, { verified: true, plan: 'pro' });
    const key = await createKey(app, account, ['webhooks']);
    const tenant: Tenant = {
      userId: account.userId,
      key,
      call: (method, path, body) => app.fetch(path, json(method, body, { 'x-api-key': key })),
    };
    const webhook = await createWebhook(tenant, receiver.url);
    const { delivery } = await deliveredOnce(tenant, webhook.id);
    const readOnly = await createKey(app, account, ['read']);
    const refused = await app.fetch(
      `/v1/webhooks/deliveries/${delivery.id}/redeliver`,
      json('POST', undefined, { 'x-api-key': readOnly }),
    );
    expect(refused.status).toBe(403);
    expect((await readJson(refused)).code).toBe('insufficient_scope');
    expect((await app.fetch(`/v1/webhooks/deliveries/${delivery.id}/redeliver`, json('POST'))).status).toBe(401);

    const bySession = await app.fetch(
      `/v1/webhooks/deliveries/${delivery.id}/redeliver`,
      json('POST', undefined, { cookie: account.cookie }),
    );
    expect(bySession.status).toBe(202);
    const again = (await readJson(bySession)).delivery;
    expect(await resultOf(env, app, again.id)).toBe('delivered');
  });
});
