import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app';
import { deviceRow, eventsOf } from '../support/factories';
import { readJson } from '../support/http';
import type { WorkflowStack } from '../support/temporal';
import { expectSigned } from '../webhooks/helpers';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { createAppTime, type AppTime } from '../compat/smsgate/app-time';
import { createSmsGateApp, type SmsGateApp } from '../compat/smsgate/app-behaviour';
import { startSmsGateStack, tenant } from '../compat/smsgate/helpers';
import { deviceWorkflowId } from '../../workflows/definitions';

// A real Android phone's path end to end, with the fake SMSGate app behaving as the app does
// (test/compat/smsgate/app-behaviour.ts) on app time: a new account, the server URL and pairing code
// a person is shown, settings and webhooks imported without a restart, a send, an inbound text, a
// 1,000-recipient send at the pace of the phone's send settings, and an hour online with only its
// stream and its pulls. The api and the worker run on the Temporal time-skipping server, whose
// clock follows app time, so the liveness workflow judges the hour as it would pass.

const MINUTE = 60_000;

describe('a real phone, end to end, through the SMSGate app', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  let receiver: Receiver;
  let time: AppTime;
  let phone: SmsGateApp | undefined;
  /** When on, each move of app time moves the Temporal server's time too. */
  let serverFollows = false;

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-e2e', {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // The stream's keepalives often in real time; each counts at the app time it arrives.
      PHONE_EVENTS_HEARTBEAT: '200ms',
    });
    app = stack.app;
    receiver = await startReceiver();
    app.clock.set(new Date(await stack.env.currentTimeMs()));
    time = createAppTime({
      start: app.clock.now(),
      onMove: async (to) => {
        if (serverFollows) {
          const behind = to.getTime() - (await stack.env.currentTimeMs());
          if (behind > 0) await stack.env.sleep(behind);
        }
        app.clock.set(to);
      },
    });
  }, 120_000);

  afterAll(async () => {
    await phone?.stop();
    await receiver?.close();
    await stack?.close();
  });

  it('pairs, imports, sends, forwards, drains a big send at its pace and stays online for an hour', async () => {
    // A person's account and key, and the webhook that tells them of replies.
    const { call } = await tenant(app, 'business');
    const hook = await readJson(
      await call('POST', '/v1/webhooks', { url: receiver.url, events: ['message.received'] }),
    );

    // What the Phones page shows: the app's API URL, built from the public URL, and a pairing code.
    const { code, smsgate_api_url: serverUrl } = await readJson(await call('POST', '/v1/devices/pairing-codes'));
    expect(serverUrl).toBe(`${app.config.publicUrl}/compat/smsgate/api/mobile/v1`);

    // Typed into Settings → Cloud Server (API URL, Private Token, notification channel SSE Only),
    // then Cloud server switched on.
    phone = createSmsGateApp({
      time,
      serverUrl,
      privateToken: code,
      notificationChannel: 'SSE_ONLY',
      via: { 'X-Forwarded-For': app.clientIp },
      radio: { sentAfterMs: 300, deliveredAfterMs: 1_500 },
      // Its owner lifted Android's 30 texts per 30 minutes (test/compat/smsgate/android-limit.test.ts
      // sends through a stock phone).
      smsLimit: null,
    });
    phone.start();
    await time.runUntil(() => phone!.webhooks().length === 6 && phone!.settings.ping.intervalSeconds !== null, {
      within: MINUTE,
      what: 'pairing, settings and webhooks',
    });
    const deviceId = phone.registration()!.id;
    const devices = await readJson(await call('GET', '/v1/devices'));
    expect(devices.data).toEqual([expect.objectContaining({ id: deviceId, online: true })]);
    // Imported without a restart: the signing key its webhook calls need, and the webhook list.
    expect(phone.settings.webhooks.signingKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(phone.settings.restartNotices()).toBe(1);

    // A send is delivered.
    const one = await readJson(await call('POST', '/v1/messages', { body: 'Hello, phone', to: ['+14155550140'] }));
    const messageId = one.message_ids[0];
    await time.runUntil(() => phone!.messages.get(messageId)?.state === 'Delivered', {
      within: MINUTE,
      what: 'the first text delivered',
    });
    // Its report goes out as the app goes on.
    await time.runFor(1_000);
    await expect
      .poll(async () => (await readJson(await call('GET', `/v1/messages/${messageId}`))).message.status)
      .toBe('delivered');

    // A text arrives on the phone: the integrator's webhook hears of it, signed.
    phone.receiveSms({ sender: '+15551230140', text: 'A reply from a handset' });
    await time.runUntil(() => phone!.seen.webhookCalls.some((c) => c.event === 'sms:received'), {
      within: MINUTE,
      what: 'the text forwarded',
    });
    expect(phone.seen.webhookCalls.filter((c) => c.event === 'sms:received').map((c) => c.status)).toEqual([201]);
    await expect
      .poll(() => receiver.requests.some((r) => r.event === 'message.received'), { timeout: 30_000 })
      .toBe(true);
    const delivery = receiver.requests.find((r) => r.event === 'message.received')!;
    expectSigned(delivery, hook.secret);
    expect(JSON.parse(delivery.raw).data).toMatchObject({ sender: '+15551230140', body: 'A reply from a handset' });

    // 1,000 recipients with a one-second pause between texts: about 1,000 s of the phone's pacing,
    // in pages of 100, each fetched as soon as the last one is reported.
    // The owner says the limit is lifted: no sending capacity (a phone paired through the app starts at 30).
    expect((await call('PATCH', `/v1/devices/${deviceId}`, { send_delay_seconds: 1, sending_capacity: null })).status).toBe(
      200,
    );
    await time.runUntil(() => phone!.settings.messages.sendIntervalRange !== null, {
      within: MINUTE,
      what: 'the send interval imported',
    });
    const to = Array.from({ length: 1000 }, (_, i) => `+1415556${String(i).padStart(4, '0')}`);
    const big = await call('POST', '/v1/messages', { body: 'To everyone', to });
    expect(big.status).toBe(202);
    const { batch } = await readJson(big);
    const sentBefore = phone.seen.sent.length;
    const pullsBeforeBig = phone.seen.pulled.length;
    const start = time.now();
    await time.runUntil(() => phone!.seen.sent.length - sentBefore === 1000, {
      within: 30 * MINUTE,
      what: 'the 1,000 texts sent',
    });
    const drainedIn = time.now() - start;
    expect(drainedIn).toBeGreaterThanOrEqual(999_000);
    expect(drainedIn).toBeLessThan(1_000_000 + 10 * 5_000);
    const pages = phone.seen.pulled.slice(pullsBeforeBig).filter((n) => n > 0);
    expect(Math.max(...pages)).toBeLessThanOrEqual(100);
    expect(pages.reduce((sum, n) => sum + n, 0)).toBe(1000);
    expect(new Set(phone.seen.sent.slice(sentBefore).map((s) => s.id)).size).toBe(1000);
    await time.runFor(5_000);
    await expect
      .poll(async () => (await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch, { timeout: 30_000 })
      .toMatchObject({ status: 'completed', delivered_count: 1000 });

    // An hour with only the stream and the 15-minute pulls: the Temporal server's time now follows,
    // so the liveness workflow (2 missed 15-minute intervals) watches the hour as it passes.
    serverFollows = true;
    await time.runFor(1);
    const pullsBefore = phone.seen.pulls.length;
    for (let minute = 5; minute <= 60; minute += 5) {
      await time.runFor(5 * MINUTE);
      // The stream's keepalives go on, but only what the phone sends is its contact: its pulls.
      const keepalives = phone.seen.keepalives.length;
      await expect.poll(() => phone!.seen.keepalives.length).toBeGreaterThan(keepalives);
      const lastPull = Math.max(...phone.seen.pulls);
      await expect
        .poll(async () => (await deviceRow(app.orm, deviceId)).lastHeartbeatAt!.getTime())
        .toBeGreaterThanOrEqual(lastPull);
      expect((await deviceRow(app.orm, deviceId)).online, `online at minute ${minute}`).toBe(true);
    }
    expect(phone.seen.pulls.length - pullsBefore).toBe(4);
    expect(phone.stream.open()).toBe(true);
    expect((await eventsOf(app.orm, { deviceId, name: 'device.offline' })).length).toBe(0);
    const liveness = await stack.env.client.workflow.getHandle(deviceWorkflowId(deviceId)).describe();
    expect(liveness.status.name).toBe('RUNNING');
  }, 240_000);
});
