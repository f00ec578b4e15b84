import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { deviceHeartbeatSignal, deviceLivenessQuery, deviceWorkflowId } from '../../workflows/definitions';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { deviceRow, eventsOf as storedEvents, updateDeviceRow } from '../support/factories';
import { readJson } from '../support/http';
import { createTestWorker, createTimeSkippingEnv } from '../support/temporal';
import { accountWithKey, bearer, pairPhone, type PairedPhone } from './helpers';

const MINUTE = 60_000;

describe('device liveness workflow', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let worker: Worker;
  let running: Promise<void>;
  const clock = testClock();

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    app = await startTestApp({ clock, temporal: env.client, env: { TEMPORAL_TASK_QUEUE: 'devices-liveness-test' } });
    worker = await createTestWorker(env, { config: app.config, orm: app.orm, services: app.services });
    running = worker.run();
  });
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await app?.close();
    await env?.teardown();
  });

  const handleOf = (phone: PairedPhone) => env.client.workflow.getHandle(deviceWorkflowId(phone.id));
  const eventsOf = async (phone: PairedPhone) =>
    (await storedEvents(app.orm, { deviceId: phone.id })).map((e) => e.name);
  const onlineOf = async (phone: PairedPhone) => (await deviceRow(app.orm, phone.id)).online;
  const heartbeat = (phone: PairedPhone) => app.fetch('/v1/device/heartbeat', json('POST', {}, bearer(phone.token)));
  const paired = async (plan?: string) => {
    const { key } = await accountWithKey(app, plan);
    const phone = await pairPhone(app, key);
    await app.services.background.idle();
    return { key, phone };
  };
  const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 10_000, interval: 50 });

  it('is started at pairing and marks a silent phone offline after exactly the missed intervals, once', async () => {
    const { phone } = await paired();
    expect((await handleOf(phone).describe()).status.name).toBe('RUNNING');
    await env.sleep(29 * MINUTE + 50_000);
    expect(await onlineOf(phone)).toBe(true);
    expect(await eventsOf(phone)).toEqual([]);

    await env.sleep(20_000);
    await eventually(async () => expect(await eventsOf(phone)).toEqual(['device.offline']));
    expect(await onlineOf(phone)).toBe(false);
    const [event] = await storedEvents(app.orm, { deviceId: phone.id, name: 'device.offline' });
    expect(event.data).toMatchObject({ id: phone.id, online: false });

    // Silence goes on: no second event.
    await env.sleep(3 * 60 * MINUTE);
    expect(await eventsOf(phone)).toEqual(['device.offline']);
  });

  it('brings the phone back online with one device.online, from the API or from the workflow', async () => {
    const { phone } = await paired();
    await env.sleep(31 * MINUTE);
    await eventually(async () => expect(await onlineOf(phone)).toBe(false));
    // Events are stamped by the test clock: moved between steps so their order is visible.
    clock.advance(1000);

    // Through the API: three heartbeats at once, one event.
    await Promise.all([heartbeat(phone), heartbeat(phone), heartbeat(phone)]);
    await app.services.background.idle();
    await eventually(async () => expect((await handleOf(phone).query(deviceLivenessQuery)).online).toBe(true));
    expect(await eventsOf(phone)).toEqual(['device.offline', 'device.online']);

    // Offline again, then a heartbeat reaches only the workflow: its activity marks it online.
    clock.advance(1000);
    await env.sleep(31 * MINUTE);
    await eventually(async () => expect(await onlineOf(phone)).toBe(false));
    clock.advance(1000);
    await handleOf(phone).signal(deviceHeartbeatSignal);
    await eventually(async () => expect(await onlineOf(phone)).toBe(true));
    expect(await eventsOf(phone)).toEqual(['device.offline', 'device.online', 'device.offline', 'device.online']);
  });

  it('applies a shorter heartbeat interval at once', async () => {
    const { key, phone } = await paired();
    await env.sleep(2 * MINUTE);
    const res = await app.fetch(
      `/v1/devices/${phone.id}`,
      json('PATCH', { heartbeat_interval_minutes: 5 }, { 'x-api-key': key }),
    );
    expect(res.status).toBe(200);
    await app.services.background.idle();
    await eventually(async () =>
      expect((await handleOf(phone).query(deviceLivenessQuery)).heartbeatIntervalMinutes).toBe(5),
    );
    // Deadline: pairing + 2 × 5 minutes.
    await env.sleep(7 * MINUTE + 30_000);
    expect(await onlineOf(phone)).toBe(true);
    await env.sleep(MINUTE);
    await eventually(async () => expect(await eventsOf(phone)).toEqual(['device.offline']));
  });

  it('applies a longer heartbeat interval, even when the signal was lost', async () => {
    const { phone } = await paired();
    // Written to the database only, as if the settings signal had been lost.
    await updateDeviceRow(app.orm, phone.id, { heartbeatIntervalMinutes: 60 });
    await env.sleep(31 * MINUTE);
    expect(await onlineOf(phone)).toBe(true);
    await eventually(async () =>
      expect((await handleOf(phone).query(deviceLivenessQuery)).heartbeatIntervalMinutes).toBe(60),
    );
    await env.sleep(90 * MINUTE);
    await eventually(async () => expect(await eventsOf(phone)).toEqual(['device.offline']));
  });

  it('signals at most once per third of the offline threshold, and repairs a lost workflow', async () => {
    const { phone } = await paired();
    const total = async () => (await handleOf(phone).query(deviceLivenessQuery)).totalSignals;
    expect(await total()).toBe(1);
    clock.advance(MINUTE);
    await heartbeat(phone);
    await app.services.background.idle();
    expect(await total()).toBe(1);
    clock.advance(10 * MINUTE);
    await heartbeat(phone);
    await app.services.background.idle();
    expect(await total()).toBe(2);

    // The workflow is gone (an operator, a crash before the start): the next signalled heartbeat restarts it.
    await handleOf(phone).terminate('lost');
    clock.advance(11 * MINUTE);
    await heartbeat(phone);
    await app.services.background.idle();
    const description = await handleOf(phone).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(await total()).toBe(1);
  });

  it('ends when the phone is unpaired', async () => {
    const { key, phone } = await paired();
    const res = await app.fetch(`/v1/devices/${phone.id}`, { method: 'DELETE', headers: { 'x-api-key': key } });
    expect(res.status).toBe(204);
    await app.services.background.idle();
    await handleOf(phone).result();
    expect((await handleOf(phone).describe()).status.name).toBe('COMPLETED');
    expect(await eventsOf(phone)).toEqual([]);
    expect(await readJson(await app.fetch('/v1/device', { headers: bearer(phone.token) }))).toMatchObject({
      code: 'unauthenticated',
    });
  });
});
