import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger';
import type { TestApp } from '../support/app';
import { readJson } from '../support/http';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import {
  createTenant,
  createWebhook,
  deliveriesOf,
  deliveryRow,
  emitEvent,
  expectSigned,
  resultOf,
  rows,
  verifyByHand,
  webhookRow,
} from './helpers';
import { startReceiver, type Answer, type Receiver } from './receiver';

const MIN = 60_000;
// The default schedule's pauses, summed: when each of the nine attempts is due.
const OFFSETS = [0, 1, 6, 21, 81, 261, 621, 1341, 2781].map((m) => m * MIN);

describe('webhook deliveries through their queue workflow (time-skipping)', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    stack = await startWorkflowStack({
      logger: createLogger('error'),
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'webhook-delivery-test' },
    });
    ({ env, app } = stack);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.close();
  });

  /** A receiver answering from a list (the last answer repeats), noting the server time of each request. */
  async function scripted(answers: Answer[]) {
    const times: number[] = [];
    const receiver = await startReceiver(async (_request, index) => {
      times.push(await env.currentTimeMs());
      return answers[Math.min(index, answers.length - 1)];
    });
    receivers.push(receiver);
    return { receiver, times };
  }

  const offsets = (times: number[]) => times.map((t) => t - times[0]);
  const expectOffsets = (times: number[], expected: number[]) => {
    expect(times).toHaveLength(expected.length);
    offsets(times).forEach((offset, i) => expect(Math.abs(offset - expected[i])).toBeLessThan(5000));
  };

  it('delivers at the first attempt: exact signed body, headers, and every record updated', async () => {
    const tenant = await createTenant(app);
    const { receiver, times } = await scripted([{ status: 204 }]);
    const webhook = await createWebhook(tenant, receiver.url);
    const data = { id: randomUUID(), direction: 'inbound', status: 'received', sender: '+15550001', body: 'héllo ✓' };
    const event = await emitEvent(app, tenant.userId, 'message.received', data);
    const [delivery] = await deliveriesOf(app, event.id);
    expect(delivery).toMatchObject({ status: 'pending', webhook_id: webhook.id, attempt_count: 0 });

    expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    expect(times).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.event).toBe('message.received');
    expect(request.deliveryId).toBe(delivery.id);
    expect(JSON.parse(request.raw)).toEqual({
      id: event.id,
      event: 'message.received',
      created_at: event.createdAt.toISOString(),
      data,
    });
    expect(request.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expectSigned(request, webhook.secret);
    expect(verifyByHand(request.raw, request.signature, 'whsec_wrong')).toBe(false);
    expect(verifyByHand(request.raw.replace('héllo', 'hello'), request.signature, webhook.secret)).toBe(false);

    const row = await deliveryRow(app, delivery.id);
    expect(row).toMatchObject({ status: 'delivered', attempt_count: 1, http_status: 204, error: null });
    expect(row.delivered_at).toBeInstanceOf(Date);
    expect(row.abandoned_at).toBeNull();
    expect(row.next_attempt_at).toBeNull();
    const hook = await webhookRow(app, webhook.id);
    expect(hook).toMatchObject({ success_count: '1', failure_count: '0' });
    expect(hook.last_success_at).toEqual(hook.last_attempt_at);
    const attempts = await rows(app, 'select * from webhook_attempts where delivery_id = ?', [delivery.id]);
    expect(attempts).toMatchObject([{ attempt_number: 1, ok: true, http_status: 204 }]);
  });

  it('retries a failure one minute later with the same delivery id, then delivers', async () => {
    const tenant = await createTenant(app);
    const states: Array<Record<string, unknown>> = [];
    const { receiver, times } = await scripted([{ status: 500, body: 'boom' }, { status: 200 }]);
    const respond = receiver.respond;
    receiver.respond = async (request, index) => {
      if (index === 1) states.push(await deliveryRow(app, request.deliveryId));
      return respond(request, index);
    };
    const webhook = await createWebhook(tenant, receiver.url);
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);

    expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    expectOffsets(times, [0, MIN]);
    expect(receiver.requests.map((r) => r.deliveryId)).toEqual([delivery.id, delivery.id]);
    expect(receiver.requests[0].raw).toBe(receiver.requests[1].raw);
    receiver.requests.forEach((request) => expectSigned(request, webhook.secret));
    // Between the attempts: retrying, with the next one due a minute after the first.
    const between = states[0] as { last_attempt_at: Date; next_attempt_at: Date };
    expect(between).toMatchObject({ status: 'retrying', attempt_count: 1, http_status: 500, response_excerpt: 'boom' });
    expect(Math.abs(between.next_attempt_at.getTime() - between.last_attempt_at.getTime() - MIN)).toBeLessThan(5000);
    expect(await deliveryRow(app, delivery.id)).toMatchObject({
      status: 'delivered',
      attempt_count: 2,
      http_status: 200,
    });
    expect(await webhookRow(app, webhook.id)).toMatchObject({ success_count: '1', failure_count: '1' });
  });

  it('makes nine attempts at the exact schedule offsets, then fails for good', async () => {
    const tenant = await createTenant(app);
    const { receiver, times } = await scripted([{ status: 503 }]);
    await createWebhook(tenant, receiver.url);
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);

    expect(await resultOf(env, app, delivery.id)).toBe('failed');
    expectOffsets(times, OFFSETS);
    expect(new Set(receiver.requests.map((r) => r.deliveryId))).toEqual(new Set([delivery.id]));
    const row = await deliveryRow(app, delivery.id);
    expect(row).toMatchObject({ status: 'failed', attempt_count: 9, http_status: 503, next_attempt_at: null });
    expect(row.abandoned_at).toBeInstanceOf(Date);
    const attempts = await rows(
      app,
      'select started_at from webhook_attempts where delivery_id = ? order by attempt_number',
      [delivery.id],
    );
    expectOffsets(
      attempts.map((a) => a.started_at.getTime()),
      OFFSETS,
    );
  });

  it('stops after three attempts on a 4xx other than 408, 425, 429', async () => {
    const tenant = await createTenant(app);
    const { receiver, times } = await scripted([{ status: 404, body: 'no such hook' }]);
    await createWebhook(tenant, receiver.url);
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);

    expect(await resultOf(env, app, delivery.id)).toBe('failed');
    expectOffsets(times, OFFSETS.slice(0, 3));
    const row = await deliveryRow(app, delivery.id);
    expect(row).toMatchObject({
      status: 'failed',
      attempt_count: 3,
      http_status: 404,
      response_excerpt: 'no such hook',
    });
    expect(row.abandoned_at).toBeInstanceOf(Date);
  });

  it('keeps retrying on 408, 425 and 429', async () => {
    const tenant = await createTenant(app);
    const { times } = await scripted([
      { status: 408 },
      { status: 429 },
      { status: 425 },
      { status: 429 },
      { status: 200 },
    ]);
    const { receiver } = { receiver: receivers[receivers.length - 1] };
    await createWebhook(tenant, receiver.url);
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);

    expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    expectOffsets(times, OFFSETS.slice(0, 5));
    expect(await deliveryRow(app, delivery.id)).toMatchObject({ status: 'delivered', attempt_count: 5 });
  });

  it('signs a delivery queued before rotate-secret with the old secret, later ones with the new', async () => {
    const tenant = await createTenant(app);
    const { receiver } = await scripted([{ status: 500 }, { status: 200 }]);
    const webhook = await createWebhook(tenant, receiver.url);
    const before = await emitEvent(app, tenant.userId);
    const [queuedBefore] = await deliveriesOf(app, before.id);
    // Let the first attempt fail, so the retry happens after the rotation.
    while (receiver.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const rotated = await tenant.call('POST', `/v1/webhooks/${webhook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const { secret: newSecret } = await readJson(rotated);
    expect(newSecret).not.toBe(webhook.secret);
    const after = await emitEvent(app, tenant.userId);
    const [queuedAfter] = await deliveriesOf(app, after.id);

    expect(await resultOf(env, app, queuedBefore.id)).toBe('delivered');
    expect(await resultOf(env, app, queuedAfter.id)).toBe('delivered');
    const of = (id: string) => receiver.requests.filter((r) => r.deliveryId === id);
    expect(of(queuedBefore.id)).toHaveLength(2);
    for (const request of of(queuedBefore.id)) {
      expectSigned(request, webhook.secret);
      expect(verifyByHand(request.raw, request.signature, newSecret)).toBe(false);
    }
    for (const request of of(queuedAfter.id)) {
      expectSigned(request, newSecret);
      expect(verifyByHand(request.raw, request.signature, webhook.secret)).toBe(false);
    }
  });

  it("abandons a deleted webhook's pending retries and keeps them in the log", async () => {
    const tenant = await createTenant(app);
    const { receiver } = await scripted([{ status: 500 }]);
    const webhook = await createWebhook(tenant, receiver.url);
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);
    while ((await deliveryRow(app, delivery.id)).status !== 'retrying') {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await tenant.call('DELETE', `/v1/webhooks/${webhook.id}`)).status).toBe(204);
    const abandoned = await deliveryRow(app, delivery.id);
    expect(abandoned).toMatchObject({ status: 'failed', attempt_count: 1, error: 'the webhook was deleted' });
    expect(abandoned.abandoned_at).toBeInstanceOf(Date);

    expect(await resultOf(env, app, delivery.id)).toBe('failed');
    expect(receiver.requests).toHaveLength(1);
    const log = await readJson(await tenant.call('GET', `/v1/webhooks/deliveries?webhook_id=${webhook.id}`));
    expect(log.data).toMatchObject([{ id: delivery.id, webhook_id: webhook.id, status: 'failed' }]);
  });
});
