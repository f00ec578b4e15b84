import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import { createKey, json, registerAccount } from '../support/accounts';
import { deviceRow, eventsOf, messageRow } from '../support/factories';
import { SECONDS_PER_MESSAGE } from '../../src/messages/outbox';
import { readJson } from '../support/http';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';

describe('failover: an offline phone’s waiting messages move to another online phone of the account', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  async function tenant(phones: number) {
    const account = await registerAccount(app, { verified: true, plan: 'business' });
    const key = await createKey(app, account);
    const call = (method: string, path: string, body?: unknown) =>
      app.fetch(path, json(method, body, { 'x-api-key': key }));
    const paired: PairedPhone[] = [];
    for (let i = 0; i < phones; i++) {
      const phone = await pairPhone(app, key);
      // A heartbeat makes it online.
      expect((await app.fetch('/v1/device/heartbeat', json('POST', {}, bearer(phone.token)))).status).toBe(200);
      paired.push(phone);
    }
    return { account, key, call, phones: paired };
  }

  /** What the liveness workflow does when the phone missed its heartbeats. */
  const goOffline = (phone: PairedPhone) =>
    app.services.presence.markOffline({
      deviceId: phone.id,
      lastHeartbeatAt: 0,
      now: Date.now() + 3 * 3_600_000,
      missedHeartbeats: 2,
    });

  const messageOf = async (call: (m: string, p: string) => Promise<Response>, id: string) =>
    (await readJson(await call('GET', `/v1/messages/${id}`))).message;

  it('is off by default and set per account', async () => {
    const { call, account } = await tenant(0);
    expect(await readJson(await call('GET', '/v1/account/settings'))).toEqual({ settings: { failover: false } });
    const on = await call('PATCH', '/v1/account/settings', { failover: true });
    expect(on.status).toBe(200);
    expect(await readJson(on)).toEqual({ settings: { failover: true } });
    expect(await readJson(await call('PATCH', '/v1/account/settings', {}))).toEqual({ settings: { failover: true } });
    const bad = await call('PATCH', '/v1/account/settings', { failover: 'yes' });
    expect(bad.status).toBe(422);
    expect(await readJson(bad)).toMatchObject({ code: 'validation_failed' });
    // The devices scope: a read-only key may not look.
    const readOnly = await createKey(app, account, ['read']);
    expect((await app.fetch('/v1/account/settings', { headers: { 'x-api-key': readOnly } })).status).toBe(403);
  });

  it('moves queued messages to the default online phone, leaves dispatched ones, and says so', async () => {
    const { call, phones } = await tenant(2);
    const [from, to] = phones;
    expect((await call('PATCH', '/v1/account/settings', { failover: true })).status).toBe(200);
    const sent = await readJson(
      await call('POST', '/v1/messages', {
        body: 'Failover',
        to: ['+14155550171', '+14155550172', '+14155550173'],
        device_id: from.id,
      }),
    );
    const ids: string[] = sent.message_ids;
    // The first phone took one message before it went silent: that one stays with it.
    const taken = await readJson(await app.fetch('/v1/device/outbox?limit=1', { headers: bearer(from.token) }));
    expect(taken.data.map((row: { id: string }) => row.id)).toEqual([ids[0]]);

    expect(await goOffline(from)).toEqual({ status: 'offline' });

    expect(await messageOf(call, ids[0])).toMatchObject({ device_id: from.id, status: 'dispatched' });
    for (const id of ids.slice(1))
      expect(await messageOf(call, id)).toMatchObject({ device_id: to.id, status: 'queued' });
    const outbox = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(to.token) }));
    expect(outbox.data.map((row: { id: string }) => row.id).sort()).toEqual(ids.slice(1).sort());

    const rerouted = await eventsOf(app.orm, {
      name: 'message.rerouted',
      userId: (await deviceRow(app.orm, to.id)).userId,
    });
    expect(rerouted.map((event) => event.messageId).sort()).toEqual(ids.slice(1).sort());
    for (const event of rerouted) {
      expect(event.data).toMatchObject({ device_id: to.id, previous_device_id: from.id, status: 'queued' });
    }
    // The queues' counters follow: two left the first phone, two joined the second.
    expect((await deviceRow(app.orm, from.id)).queueDepth).toBe(1);
    expect((await deviceRow(app.orm, to.id)).queueDepth).toBe(2);
    // The batch keeps its phone while a message of it is still out there, and its estimate is new.
    const batch = (await readJson(await call('GET', `/v1/batches/${sent.batch.id}`))).batch;
    expect(batch.device_id).toBe(from.id);
    expect(batch.estimated_completion_at).not.toBe(sent.batch.estimated_completion_at);
  });

  it('gives moved messages deadlines after the new phone’s queue, at its pace, never past their send’s ttl', async () => {
    const { call, phones } = await tenant(2);
    const [from, to] = phones;
    expect((await call('PATCH', '/v1/account/settings', { failover: true })).status).toBe(200);
    expect((await call('PATCH', `/v1/devices/${to.id}`, { send_delay_seconds: 10 })).status).toBe(200);
    const perMs = (10 + SECONDS_PER_MESSAGE) * 1000;
    const staleWindowMs = app.config.staleWindowMs;
    const send = async (device: PairedPhone, to: string[], extra: Record<string, unknown> = {}) => {
      const body = await readJson(
        await call('POST', '/v1/messages', { body: 'Paced', to, device_id: device.id, ...extra }),
      );
      // Each send a second after the last: the outbox order is then the order of the sends.
      app.clock.advance(1_000);
      return body;
    };
    // Two messages already wait on the phone the others move to.
    await send(to, ['+14155550181', '+14155550182']);
    const plain = await send(from, ['+14155550183', '+14155550184']);
    const shortLived = await send(from, ['+14155550185'], { ttl_seconds: staleWindowMs / 1000 + 20 });
    const movedAt = app.clock.now().getTime();

    await goOffline(from);

    const staleAt = async (id: string) => (await messageRow(app.orm, id)).staleAt!.getTime();
    const [first, second] = plain.message_ids as string[];
    // The n-th moved message (from 0) is due after the 2 ahead and the n before it, at the new pace.
    expect(await staleAt(first)).toBe(movedAt + staleWindowMs + 2 * perMs);
    expect(await staleAt(second)).toBe(movedAt + staleWindowMs + 3 * perMs);
    // The third would be due at movedAt + window + 4 × 15 s; its send lives only window + 20 s.
    const createdAt = new Date(shortLived.batch.created_at).getTime();
    expect(await staleAt(shortLived.message_ids[0])).toBe(createdAt + staleWindowMs + 20_000);
    expect(createdAt + staleWindowMs + 20_000).toBeLessThan(movedAt + staleWindowMs + 4 * perMs);
    // Each batch is done when its last message is sent at the new phone's pace.
    const estimate = async (batchId: string) =>
      new Date((await readJson(await call('GET', `/v1/batches/${batchId}`))).batch.estimated_completion_at).getTime();
    expect(await estimate(plain.batch.id)).toBe(movedAt + (2 + 2) * perMs);
    expect(await estimate(shortLived.batch.id)).toBe(movedAt + (2 + 3) * perMs);
  });

  it('moves a batch whole when nothing of it was handed out, scheduled ones included', async () => {
    const { call, phones } = await tenant(2);
    const [from, to] = phones;
    await call('PATCH', '/v1/account/settings', { failover: true });
    const now = await readJson(
      await call('POST', '/v1/messages', { body: 'Now', to: ['+14155550174'], device_id: from.id }),
    );
    const later = await readJson(
      await call('POST', '/v1/messages', {
        body: 'Later',
        to: ['+14155550175'],
        device_id: from.id,
        scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    expect(await goOffline(from)).toEqual({ status: 'offline' });
    for (const sent of [now, later]) {
      expect((await readJson(await call('GET', `/v1/batches/${sent.batch.id}`))).batch.device_id).toBe(to.id);
      expect(await messageOf(call, sent.message_ids[0])).toMatchObject({ device_id: to.id, status: 'queued' });
    }
  });

  it('moves nothing when failover is off or no other phone is online', async () => {
    const off = await tenant(2);
    const sent = await readJson(
      await off.call('POST', '/v1/messages', { body: 'Stay', to: ['+14155550176'], device_id: off.phones[0].id }),
    );
    expect(await goOffline(off.phones[0])).toEqual({ status: 'offline' });
    expect(await messageOf(off.call, sent.message_ids[0])).toMatchObject({ device_id: off.phones[0].id });

    const alone = await tenant(2);
    await alone.call('PATCH', '/v1/account/settings', { failover: true });
    expect(await goOffline(alone.phones[1])).toEqual({ status: 'offline' });
    const stays = await readJson(
      await alone.call('POST', '/v1/messages', { body: 'Stay', to: ['+14155550177'], device_id: alone.phones[0].id }),
    );
    expect(await goOffline(alone.phones[0])).toEqual({ status: 'offline' });
    expect(await messageOf(alone.call, stays.message_ids[0])).toMatchObject({ device_id: alone.phones[0].id });
    const userId = (await deviceRow(app.orm, alone.phones[0].id)).userId;
    expect(await eventsOf(app.orm, { name: 'message.rerouted', userId })).toEqual([]);
  });
});

describe('failover driven by the liveness workflow (time-skipping)', () => {
  const MINUTE = 60_000;
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  const clock = testClock();
  // The app's clock follows the workflows' (skipped) time: heartbeats are stamped when they happen.
  const syncClock = async () => clock.set(new Date(await env.currentTimeMs()));

  beforeAll(async () => {
    stack = await startWorkflowStack({ clock, env: { TEMPORAL_TASK_QUEUE: 'failover-liveness-test' } });
    ({ env, app } = stack);
  });
  afterAll(() => stack?.close());

  it('moves a silent phone’s queue to the phone that kept heartbeating, when its heartbeats stop', async () => {
    await syncClock();
    const account = await registerAccount(app, { verified: true, plan: 'business' });
    const key = await createKey(app, account);
    const call = (method: string, path: string, body?: unknown) =>
      app.fetch(path, json(method, body, { 'x-api-key': key }));
    const silent = await pairPhone(app, key);
    const alive = await pairPhone(app, key);
    for (const phone of [silent, alive]) {
      expect((await app.fetch('/v1/device/heartbeat', json('POST', {}, bearer(phone.token)))).status).toBe(200);
    }
    await app.services.background.idle();
    expect((await call('PATCH', '/v1/account/settings', { failover: true })).status).toBe(200);
    const sent = await readJson(
      await call('POST', '/v1/messages', { body: 'Moved', to: ['+14155550178', '+14155550179'], device_id: silent.id }),
    );
    expect(sent.batch.status).toBe('queued');

    // Twenty minutes on, only the second phone checks in; at thirty the first has missed two intervals.
    await env.sleep(20 * MINUTE);
    await syncClock();
    expect((await app.fetch('/v1/device/heartbeat', json('POST', {}, bearer(alive.token)))).status).toBe(200);
    await app.services.background.idle();
    await env.sleep(11 * MINUTE);
    await syncClock();

    // Watched in the database: the API's rate limit runs on the test clock, which stands still here.
    await vi.waitFor(
      async () => {
        expect((await deviceRow(app.orm, silent.id)).online).toBe(false);
        const rerouted = await eventsOf(app.orm, { name: 'message.rerouted', userId: account.userId });
        expect(rerouted.map((event) => event.messageId).sort()).toEqual([...sent.message_ids].sort());
      },
      { timeout: 15_000, interval: 100 },
    );
    for (const id of sent.message_ids as string[]) {
      expect((await readJson(await call('GET', `/v1/messages/${id}`))).message.device_id).toBe(alive.id);
    }
    expect((await deviceRow(app.orm, alive.id)).online).toBe(true);
    const outbox = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(alive.token) }));
    expect(outbox.data).toHaveLength(2);
  });
});
