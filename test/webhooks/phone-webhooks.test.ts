import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { createTestWorker, createTimeSkippingEnv } from '../support/temporal';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';
import { createTenant, deliveriesOf, emitEvent, resultOf, rows, serverClock, webhookRow, type Tenant } from './helpers';
import { startReceiver, type Receiver } from './receiver';

describe('webhooks tied to one phone', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let worker: Worker;
  let running: Promise<void>;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    app = await startTestApp({
      temporal: env.client,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'phone-webhooks-test' },
    });
    worker = await createTestWorker(env, { config: app.config, orm: app.orm, clock: serverClock, sweeps: [] });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    for (const receiver of receivers) await receiver.close();
    await app?.close();
    await env?.teardown();
  });

  const receiver = async () => {
    const started = await startReceiver();
    receivers.push(started);
    return started;
  };

  /** Creates a webhook through /v1, for one phone (`device_id`) or every phone (null). */
  async function subscribe(tenant: Tenant, url: string, deviceId: string | null) {
    const res = await tenant.call('POST', '/v1/webhooks', { url, events: ['message.received'], device_id: deviceId });
    expect(res.status).toBe(201);
    return (await readJson(res)).webhook as { id: string; device_id: string | null };
  }

  const receiveText = async (phone: PairedPhone, body: string) => {
    const res = await app.fetch(
      '/v1/device/inbound',
      json(
        'POST',
        { body, sender: '+14155550999', received_at: new Date().toISOString(), fingerprint: randomUUID() },
        bearer(phone.token),
      ),
    );
    expect(res.status).toBe(201);
    await app.services.background.idle();
    return (await readJson(res)).message.id as string;
  };

  const webhooksOfTenant = (tenant: Tenant) =>
    rows(app, 'select id, device_id from webhooks where user_id = ? order by created_at, id', [tenant.userId]);

  it("delivers a phone's events to its webhooks and the account's, never to another phone's", async () => {
    const tenant = await createTenant(app);
    const [phoneA, phoneB] = [await pairPhone(app, tenant.key), await pairPhone(app, tenant.key)];
    const [all, onA, onB] = [await receiver(), await receiver(), await receiver()];
    const everyPhone = await subscribe(tenant, all.url, null);
    const hookA = await subscribe(tenant, onA.url, phoneA.id);
    const hookB = await subscribe(tenant, onB.url, phoneB.id);
    expect([everyPhone.device_id, hookA.device_id, hookB.device_id]).toEqual([null, phoneA.id, phoneB.id]);

    const messageId = await receiveText(phoneA, 'to phone A');
    const [event] = await rows(app, "select id from events where message_id = ? and name = 'message.received'", [
      messageId,
    ]);
    const deliveries = await deliveriesOf(app, event.id);
    expect(deliveries.map((d) => d.webhook_id).sort()).toEqual([everyPhone.id, hookA.id].sort());
    for (const delivery of deliveries) expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    expect(all.requests.map((r) => JSON.parse(r.raw).data.id)).toEqual([messageId]);
    expect(onA.requests.map((r) => JSON.parse(r.raw).data.id)).toEqual([messageId]);
    expect(onB.requests).toHaveLength(0);

    // An event that concerns no phone reaches only the webhooks for every phone.
    const phoneless = await emitEvent(app, tenant.userId, 'message.received');
    expect((await deliveriesOf(app, phoneless.id)).map((d) => d.webhook_id)).toEqual([everyPhone.id]);
  });

  it("refuses another account's phone, an unknown or unpaired one, writing nothing", async () => {
    const tenant = await createTenant(app);
    const other = await createTenant(app);
    const mine = await pairPhone(app, tenant.key);
    const theirs = await pairPhone(app, other.key);
    const gone = await pairPhone(app, tenant.key);
    expect((await tenant.call('DELETE', `/v1/devices/${gone.id}`)).status).toBe(204);
    const url = (await receiver()).url;

    for (const deviceId of [theirs.id, randomUUID(), gone.id]) {
      const res = await tenant.call('POST', '/v1/webhooks', { url, events: ['message.received'], device_id: deviceId });
      expect(res.status).toBe(404);
      expect(await readJson(res)).toMatchObject({ code: 'not_found', message: 'The device does not exist.' });
    }
    const malformed = await tenant.call('POST', '/v1/webhooks', { url, events: ['message.sent'], device_id: 'phone-1' });
    expect(malformed.status).toBe(422);
    expect((await readJson(malformed)).errors).toEqual([{ field: 'body.device_id', message: 'device_id must be a UUID' }]);
    expect(await webhooksOfTenant(tenant)).toEqual([]);

    // A change to another account's phone leaves the webhook as it was; null makes it for every phone.
    const hook = await subscribe(tenant, url, mine.id);
    const refused = await tenant.call('PATCH', `/v1/webhooks/${hook.id}`, { device_id: theirs.id, name: 'moved' });
    expect(refused.status).toBe(404);
    expect(await webhookRow(app, hook.id)).toMatchObject({ device_id: mine.id, name: null });
    const widened = await tenant.call('PATCH', `/v1/webhooks/${hook.id}`, { device_id: null });
    expect(widened.status).toBe(200);
    expect((await readJson(widened)).webhook.device_id).toBeNull();
    const listed = await readJson(await tenant.call('GET', '/v1/webhooks'));
    expect(listed.data.map((w: { device_id: string | null }) => w.device_id)).toEqual([null]);
  });

  it('keeps a webhook tied to a phone that is unpaired, which receives nothing more', async () => {
    const tenant = await createTenant(app);
    const phone = await pairPhone(app, tenant.key);
    const hook = await subscribe(tenant, (await receiver()).url, phone.id);
    expect((await tenant.call('DELETE', `/v1/devices/${phone.id}`)).status).toBe(204);
    const shown = await readJson(await tenant.call('GET', `/v1/webhooks/${hook.id}`));
    expect(shown.webhook).toMatchObject({ id: hook.id, device_id: phone.id, enabled: true });
  });
});
