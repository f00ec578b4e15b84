import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { pauseWebhookAutomatically } from '../support/factories';
import { readJson } from '../support/http';
import { createTestWorker, createTimeSkippingEnv } from '../support/temporal';
import {
  createTenant,
  createWebhook,
  expectSigned,
  queueUnstarted,
  resultOf,
  serverClock,
  type Tenant,
} from './helpers';
import { startReceiver, type Receiver } from './receiver';

const WEBHOOK_FIELDS = [
  'created_at',
  'device_id',
  'disabled_reason',
  'enabled',
  'events',
  'failure_count',
  'id',
  'last_attempt_at',
  'last_failure_at',
  'last_success_at',
  'name',
  'success_count',
  'updated_at',
  'url',
];
const DELIVERY_FIELDS = [
  'abandoned_at',
  'attempt_count',
  'created_at',
  'delivered_at',
  'device_id',
  'error',
  'event',
  'http_status',
  'id',
  'last_attempt_at',
  'message_id',
  'next_attempt_at',
  'payload',
  'redeliveries',
  'redelivery_of',
  'response_excerpt',
  'status',
  'superseded_by',
  'url',
  'webhook_id',
];

describe('webhooks API', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let strict: TestApp;
  let worker: Worker;
  let running: Promise<void>;
  let receiver: Receiver;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    app = await startTestApp({
      temporal: env.client,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'webhooks-http-test' },
    });
    // The production default: private addresses refused (and no Temporal: what it queues stays unstarted).
    strict = await startTestApp();
    worker = await createTestWorker(env, { config: app.config, orm: app.orm, clock: serverClock, sweeps: [] });
    running = worker.run();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await receiver?.close();
    await strict?.close();
    await app?.close();
    await env?.teardown();
  });

  /** Queues a delivery without starting its workflow: it stays pending, so the log is predictable. */
  const queueDelivery = (tenant: Tenant, name: 'message.received' | 'device.offline' = 'message.received') => {
    // `strict` cannot reach Temporal: it commits deliveries that nothing starts, on the app's clock.
    strict.clock.set(app.clock.now());
    return queueUnstarted(strict, {
      userId: tenant.userId,
      name,
      data: { id: randomUUID() },
      ...(name === 'device.offline' ? { deviceId: randomUUID() } : { messageId: randomUUID() }),
    });
  };

  it('creates a webhook, shows its secret once, and never renders it again', async () => {
    const tenant = await createTenant(app);
    const res = await tenant.call('POST', '/v1/webhooks', {
      url: receiver.url,
      events: ['message.received', 'device.offline', 'message.received'],
      name: ' Orders ',
    });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(Object.keys(body).sort()).toEqual(['secret', 'webhook']);
    expect(body.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    expect(Object.keys(body.webhook).sort()).toEqual(WEBHOOK_FIELDS);
    expect(body.webhook).toMatchObject({
      url: receiver.url,
      name: 'Orders',
      events: ['message.received', 'device.offline'],
      enabled: true,
      disabled_reason: null,
      success_count: 0,
      failure_count: 0,
      last_attempt_at: null,
    });

    const list = await tenant.call('GET', '/v1/webhooks');
    expect(list.status).toBe(200);
    const listed = await readJson(list);
    expect(listed).toEqual({ data: [body.webhook] });
    const one = await tenant.call('GET', `/v1/webhooks/${body.webhook.id}`);
    expect(await readJson(one)).toEqual({ webhook: body.webhook });
    expect(JSON.stringify(listed)).not.toContain(body.secret);
  });

  it('validates url and events with field errors', async () => {
    const tenant = await createTenant(app);
    const errorsOf = async (payload: unknown) => {
      const res = await tenant.call('POST', '/v1/webhooks', payload);
      expect(res.status).toBe(422);
      const body = await readJson(res);
      expect(body).toMatchObject({ code: 'validation_failed', status: 422 });
      return body.errors.map((e: { field: string }) => e.field).sort();
    };
    expect(await errorsOf({ url: 'http://example.com/hook', events: ['ping'] })).toEqual(['body.url']);
    expect(await errorsOf({ url: 'not a url', events: ['ping'] })).toEqual(['body.url']);
    expect(await errorsOf({ url: receiver.url, events: ['ping', 'message.exploded'] })).toEqual(['body.events[1]']);
    expect(await errorsOf({ url: receiver.url, events: [] })).toEqual(['body.events']);
    expect(await errorsOf({ url: receiver.url, events: 'ping' })).toEqual(['body.events']);
    expect(await errorsOf({})).toEqual(['body.events', 'body.url']);
    const created = await createWebhook(tenant, receiver.url);
    const patch = await tenant.call('PATCH', `/v1/webhooks/${created.id}`, { url: 'http://x.test', enabled: 'yes' });
    expect(patch.status).toBe(422);
    expect((await readJson(patch)).errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'body.enabled',
      'body.url',
    ]);
  });

  it('refuses private, loopback and metadata addresses unless private networks are allowed', async () => {
    const tenant = await createTenant(strict);
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost:8443/hook',
      'https://10.0.0.8/hook',
      'https://192.168.1.10/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[fd00:ec2::254]/hook',
    ]) {
      const res = await tenant.call('POST', '/v1/webhooks', { url, events: ['ping'] });
      expect(res.status, url).toBe(422);
      expect((await readJson(res)).errors).toEqual([{ field: 'body.url', message: expect.stringMatching(/private/) }]);
    }
    const publicOne = await tenant.call('POST', '/v1/webhooks', {
      url: 'https://93.184.216.34/hook',
      events: ['ping'],
    });
    expect(publicOne.status).toBe(201);
    const { webhook } = await readJson(publicOne);
    const patch = await tenant.call('PATCH', `/v1/webhooks/${webhook.id}`, { url: 'https://127.0.0.1/hook' });
    expect(patch.status).toBe(422);
    // Allowed on the app configured for development and tests.
    const allowed = await createTenant(app);
    expect((await allowed.call('POST', '/v1/webhooks', { url: 'https://127.0.0.1/x', events: ['ping'] })).status).toBe(
      201,
    );
  });

  it('updates, disables, clears a pause with enabled=true, rotates secrets and deletes', async () => {
    const tenant = await createTenant(app);
    const created = await createWebhook(tenant, receiver.url);
    const patched = await tenant.call('PATCH', `/v1/webhooks/${created.id}`, {
      name: 'Renamed',
      events: ['device.online'],
      url: `${receiver.url}?v=2`,
    });
    expect(patched.status).toBe(200);
    expect((await readJson(patched)).webhook).toMatchObject({
      name: 'Renamed',
      events: ['device.online'],
      url: `${receiver.url}?v=2`,
      enabled: true,
    });

    // An automatic pause, as the queue workflow leaves it; PATCH enabled=true clears it.
    await pauseWebhookAutomatically(app.orm, created.id, 'Paused automatically');
    const cleared = await readJson(await tenant.call('PATCH', `/v1/webhooks/${created.id}`, { enabled: true }));
    expect(cleared.webhook).toMatchObject({ enabled: true, disabled_reason: null });

    // Disabling by hand ends what was still open.
    await tenant.call('PATCH', `/v1/webhooks/${created.id}`, { events: ['message.received'] });
    const { deliveries } = await queueDelivery(tenant);
    expect(deliveries).toHaveLength(1);
    const disabled = await readJson(await tenant.call('PATCH', `/v1/webhooks/${created.id}`, { enabled: false }));
    expect(disabled.webhook).toMatchObject({ enabled: false });
    const ended = await readJson(await tenant.call('GET', `/v1/webhooks/deliveries/${deliveries[0].id}`));
    expect(ended.delivery).toMatchObject({ status: 'failed', error: 'the webhook was disabled' });
    expect(ended.delivery.abandoned_at).not.toBeNull();
    expect((await queueDelivery(tenant)).deliveries).toEqual([]);

    const rotated = await tenant.call('POST', `/v1/webhooks/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const { secret } = await readJson(rotated);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.secret);

    expect((await tenant.call('DELETE', `/v1/webhooks/${created.id}`)).status).toBe(204);
    expect((await tenant.call('GET', `/v1/webhooks/${created.id}`)).status).toBe(404);
    expect((await tenant.call('DELETE', `/v1/webhooks/${created.id}`)).status).toBe(404);
    expect((await readJson(await tenant.call('GET', '/v1/webhooks'))).data).toEqual([]);
    // The delivery log keeps the deleted webhook's deliveries.
    const log = await readJson(await tenant.call('GET', `/v1/webhooks/deliveries?webhook_id=${created.id}`));
    expect(log.data.map((d: { id: string }) => d.id)).toEqual([deliveries[0].id]);
  });

  it('sends a signed ping through the normal path on test', async () => {
    const tenant = await createTenant(app);
    // Not subscribed to ping: a test reaches its webhook whatever it subscribes to.
    const created = await createWebhook(tenant, receiver.url, ['message.sent']);
    const res = await tenant.call('POST', `/v1/webhooks/${created.id}/test`);
    expect(res.status).toBe(202);
    const { delivery } = await readJson(res);
    expect(Object.keys(delivery).sort()).toEqual(DELIVERY_FIELDS);
    expect(delivery).toMatchObject({
      webhook_id: created.id,
      url: receiver.url,
      event: 'ping',
      message_id: null,
      device_id: null,
      payload: {
        id: expect.any(String),
        event: 'ping',
        created_at: delivery.created_at,
        data: { webhook_id: created.id },
      },
    });

    expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    const request = receiver.requests.find((r) => r.deliveryId === delivery.id)!;
    expect(request.event).toBe('ping');
    expect(JSON.parse(request.raw)).toEqual(delivery.payload);
    expectSigned(request, created.secret);
    const after = await readJson(await tenant.call('GET', `/v1/webhooks/deliveries/${delivery.id}`));
    expect(after.delivery).toMatchObject({ status: 'delivered', attempt_count: 1, http_status: 200, error: null });
    expect(after.delivery.delivered_at).not.toBeNull();
    const webhook = (await readJson(await tenant.call('GET', `/v1/webhooks/${created.id}`))).webhook;
    expect(webhook).toMatchObject({ success_count: 1, failure_count: 0 });
    expect(webhook.last_success_at).not.toBeNull();
  });

  it('lists deliveries newest first, filtered and paginated, including deleted webhooks', async () => {
    const tenant = await createTenant(app);
    const first = await createWebhook(tenant, receiver.url, ['message.received', 'device.offline']);
    const second = await createWebhook(tenant, receiver.url, ['message.received']);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      app.clock.advance(1000);
      made.push(...(await queueDelivery(tenant)).deliveries.map((d) => d.id));
    }
    app.clock.advance(1000);
    const offline = (await queueDelivery(tenant, 'device.offline')).deliveries;
    expect(offline).toHaveLength(1);
    expect(made).toHaveLength(6);
    expect((await tenant.call('DELETE', `/v1/webhooks/${second.id}`)).status).toBe(204);

    const all: Array<{ id: string; created_at: string; webhook_id: string }> = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await tenant.call('GET', `/v1/webhooks/deliveries?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = await readJson(res);
      expect(page.data.length).toBeLessThanOrEqual(3);
      all.push(...page.data);
      cursor = page.next_cursor;
      pages += 1;
      if (!cursor) expect('next_cursor' in page).toBe(false);
    } while (cursor);
    expect(pages).toBe(3);
    expect(all).toHaveLength(7);
    expect(new Set(all.map((d) => d.id))).toEqual(new Set([...made, offline[0].id]));
    const order = all.map((d) => d.created_at);
    expect([...order].sort().reverse()).toEqual(order);
    expect(all[0]).toMatchObject({ id: offline[0].id, event: 'device.offline', message_id: null });
    expect(all.filter((d) => d.webhook_id === second.id)).toHaveLength(3);

    const query = async (q: string) => (await readJson(await tenant.call('GET', `/v1/webhooks/deliveries?${q}`))).data;
    expect(await query(`webhook_id=${second.id}`)).toHaveLength(3);
    expect(await query(`webhook_id=${first.id}&event=device.offline`)).toHaveLength(1);
    expect(await query('event=message.received')).toHaveLength(6);
    expect(await query('status=pending')).toHaveLength(4);
    expect(await query('status=failed')).toHaveLength(3);
    expect(await query('status=delivered')).toHaveLength(0);
    // One message's deliveries, to every webhook that took its event.
    const messageId = (all as unknown as Array<{ message_id: string | null }>).find((d) => d.message_id)!.message_id;
    const ofMessage = await query(`message_id=${messageId}`);
    expect(ofMessage.map((d: { webhook_id: string }) => d.webhook_id).sort()).toEqual([first.id, second.id].sort());
    expect(ofMessage.every((d: { message_id: string }) => d.message_id === messageId)).toBe(true);
    const middle = all[3].created_at;
    const from = await query(`from=${encodeURIComponent(middle)}`);
    const to = await query(`to=${encodeURIComponent(middle)}`);
    expect(from.length + to.length).toBe(7);
    expect(to.every((d: { created_at: string }) => d.created_at < middle)).toBe(true);

    for (const [q, field] of [
      ['limit=0', 'query.limit'],
      ['limit=201', 'query.limit'],
      ['limit=abc', 'query.limit'],
      ['cursor=bogus', 'query.cursor'],
      ['status=lost', 'query.status'],
      ['event=nope', 'query.event'],
      ['webhook_id=42', 'query.webhook_id'],
      ['message_id=42', 'query.message_id'],
      ['from=yesterday', 'query.from'],
    ]) {
      const res = await tenant.call('GET', `/v1/webhooks/deliveries?${q}`);
      expect(res.status, q).toBe(422);
      expect((await readJson(res)).errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    expect((await readJson(await tenant.call('GET', '/v1/webhooks/deliveries?limit=200'))).data).toHaveLength(7);
  });

  it("answers 404 for another account's webhooks and deliveries, and for malformed ids", async () => {
    const owner = await createTenant(app);
    const stranger = await createTenant(app);
    const created = await createWebhook(owner, receiver.url);
    const { deliveries } = await queueDelivery(owner);
    for (const [method, path] of [
      ['GET', `/v1/webhooks/${created.id}`],
      ['PATCH', `/v1/webhooks/${created.id}`],
      ['DELETE', `/v1/webhooks/${created.id}`],
      ['POST', `/v1/webhooks/${created.id}/rotate-secret`],
      ['POST', `/v1/webhooks/${created.id}/test`],
      ['GET', `/v1/webhooks/deliveries/${deliveries[0].id}`],
      ['GET', '/v1/webhooks/not-a-uuid'],
      ['GET', '/v1/webhooks/deliveries/not-a-uuid'],
      ['GET', `/v1/webhooks/${randomUUID()}`],
    ]) {
      const res = await stranger.call(method, path, method === 'PATCH' ? { name: 'mine now' } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await readJson(res)).code).toBe('not_found');
    }
    expect((await readJson(await stranger.call('GET', '/v1/webhooks'))).data).toEqual([]);
    expect((await readJson(await stranger.call('GET', '/v1/webhooks/deliveries'))).data).toEqual([]);
    expect(
      (await readJson(await stranger.call('GET', `/v1/webhooks/deliveries?webhook_id=${created.id}`))).data,
    ).toEqual([]);
    expect((await readJson(await owner.call('GET', `/v1/webhooks/${created.id}`))).webhook.name).toBeNull();
  });

  it('needs the webhooks scope (403 insufficient_scope) and credentials (401)', async () => {
    const owner = await createTenant(app);
    const created = await createWebhook(owner, receiver.url);
    const readOnly = await createTenant(app, 'business', ['read', 'send', 'devices']);
    for (const [method, path] of [
      ['GET', '/v1/webhooks'],
      ['POST', '/v1/webhooks'],
      ['GET', `/v1/webhooks/${created.id}`],
      ['PATCH', `/v1/webhooks/${created.id}`],
      ['DELETE', `/v1/webhooks/${created.id}`],
      ['POST', `/v1/webhooks/${created.id}/rotate-secret`],
      ['POST', `/v1/webhooks/${created.id}/test`],
      ['GET', '/v1/webhooks/deliveries'],
      ['GET', `/v1/webhooks/deliveries/${randomUUID()}`],
    ]) {
      const refused = await readOnly.call(method, path, method === 'POST' ? {} : undefined);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect((await readJson(refused)).code).toBe('insufficient_scope');
      const anonymous = await app.fetch(path, { method });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
    }
  });

  it('holds the plan limit: the free plan allows two webhooks (429 plan_limit_webhooks)', async () => {
    const tenant = await createTenant(app, 'free');
    const one = await createWebhook(tenant, receiver.url);
    await createWebhook(tenant, receiver.url);
    const third = await tenant.call('POST', '/v1/webhooks', { url: receiver.url, events: ['ping'] });
    expect(third.status).toBe(429);
    expect(await readJson(third)).toMatchObject({ code: 'plan_limit_webhooks', status: 429 });
    // Concurrent creations cannot exceed it either.
    await tenant.call('DELETE', `/v1/webhooks/${one.id}`);
    const racing = await Promise.all(
      Array.from({ length: 5 }, () => tenant.call('POST', '/v1/webhooks', { url: receiver.url, events: ['ping'] })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 429, 429, 429, 429]);
    expect((await readJson(await tenant.call('GET', '/v1/webhooks'))).data).toHaveLength(2);
  });
});
