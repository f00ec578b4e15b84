import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app';
import { deviceRow } from '../../support/factories';
import { readJson } from '../../support/http';
import type { AppOptions, SmsGateApp } from './app-behaviour';
import type { WorkflowStack } from '../../support/temporal';
import { installedApp, startSmsGateStack, tenant } from './helpers';

// The SMSGate app as it behaves (app-behaviour.ts: its workers, settings import, pulls, stream and
// pacing, each from the app's source) against the compat routes, on app time.

const MINUTE = 60_000;

describe('the SMSGate app’s behaviour against the compat routes', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  const running: SmsGateApp[] = [];

  beforeAll(async () => {
    // Keepalives often in real time: each counts at the app time it arrives.
    stack = await startSmsGateStack('smsgate-behaviour-test', { PHONE_EVENTS_HEARTBEAT: '200ms' });
    app = stack.app;
  });
  afterAll(async () => {
    for (const phone of running) await phone.stop();
    await stack?.close();
  });

  /** The app as a person sets it up (helpers.ts installedApp), stopped when the file ends. */
  async function installed(key: string, overrides: Partial<AppOptions> = {}) {
    const installed = await installedApp(stack, key, overrides);
    running.push(installed.phone);
    return installed;
  }

  it('imports its settings and webhooks at once after signing up, and asks for one restart only', async () => {
    const { key } = await tenant(app);
    const { phone, time } = await installed(key);
    phone.start();
    // GatewayService.kt start: the settings and webhooks workers ran before the registration came
    // back, found no registration, and will not run again for 24 hours by themselves.
    await time.runUntil(() => phone.registration() !== null, { within: MINUTE, what: 'registration' });
    const earlyRuns = phone.work.runs.filter((r) => r.name !== 'RegistrationWorker' && r.at === phone.work.runs[0].at);
    expect(earlyRuns.map((r) => r.name).sort()).toEqual([
      'PullMessagesWorker',
      'SettingsUpdateWorker',
      'WebhooksUpdateWorker',
    ]);

    // The stream opens and says SettingsUpdated and WebhooksUpdated: both are imported in seconds.
    await time.runUntil(() => phone.webhooks().length > 0 && phone.settings.ping.intervalSeconds !== null, {
      within: MINUTE,
      what: 'settings and webhooks imported',
    });
    expect(phone.seen.streamEvents.map((e) => e.type)).toEqual(['SettingsUpdated', 'WebhooksUpdated']);
    expect(phone.webhooks().map((h) => h.event)).toEqual([
      'sms:received',
      'sms:data-received',
      'mms:received',
      'mms:downloaded',
      'app:started',
      'system:ping',
    ]);
    expect(phone.settings.messages.processingOrder).toBe('FIFO');
    expect(phone.settings.messages.sendIntervalRange).toBeNull();
    // The first import is a change (the ping interval, the key): the app asks for a restart, once.
    expect(phone.settings.restartNotices()).toBe(1);

    // A restart (as asked) imports the same settings again: no change, no second request to restart
    // (MessagesSettings.kt compares send_interval_min with its stored 0).
    await phone.restart();
    await time.runUntil(() => phone.stream.open() && phone.seen.streamOpens.length === 2, {
      within: MINUTE,
      what: 'the stream open again',
    });
    await time.runFor(10_000);
    expect(phone.settings.restartNotices()).toBe(1);
    // The ping, off until the restart, now runs with the imported interval.
    expect(phone.settings.ping.intervalSeconds).toBe(15 * 60);
  });

  it('counts what the phone sends as contact, not the keepalives written to its stream', async () => {
    const { key } = await tenant(app);
    const { phone, time } = await installed(key);
    phone.start();
    await time.runUntil(() => phone.stream.open(), { within: MINUTE, what: 'the stream open' });
    const id = phone.registration()!.id;
    const opened = (await deviceRow(app.orm, id)).lastHeartbeatAt!.getTime();

    // Six minutes of app time without a pull (the next is at 15): the keepalives arrive, and only
    // prove that our writes did (a phone gone without closing is written to as well).
    await time.runFor(6 * MINUTE);
    const keepalives = phone.seen.keepalives.length;
    await expect.poll(() => phone.seen.keepalives.length).toBeGreaterThan(keepalives + 2);
    expect(phone.seen.pulls.filter((at) => at > opened)).toEqual([]);
    expect((await deviceRow(app.orm, id)).lastHeartbeatAt!.getTime()).toBe(opened);

    // Its pull at 15 minutes is its own: that is contact.
    await time.runUntil(() => phone.seen.pulls.some((at) => at > opened), { within: 15 * MINUTE, what: 'a pull' });
    const pulled = phone.seen.pulls.find((at) => at > opened)!;
    await expect
      .poll(async () => (await deviceRow(app.orm, id)).lastHeartbeatAt!.getTime())
      .toBeGreaterThanOrEqual(pulled);
  });

  it('forwards a text once when receiving was turned off behind its back, instead of retrying it', async () => {
    const { key, call } = await tenant(app);
    const { phone, time } = await installed(key);
    phone.start();
    await time.runUntil(() => phone.webhooks().length === 6, { within: MINUTE, what: 'the webhooks synced' });
    const id = phone.registration()!.id;
    // The stream is down (the phone does not hear WebhooksUpdated) when receiving is turned off.
    await phone.stream.disconnect();
    expect((await call('PATCH', `/v1/devices/${id}`, { receive_enabled: false })).status).toBe(200);
    phone.receiveSms({ sender: '+15551230170', text: 'Nobody wants this' });
    // WebhookQueueProcessorWorker.kt retries a non-2xx answer 5 s × 2^(n-1) later, 15 times: a
    // refusal would keep it busy for more than a day. A 2xx ends it.
    await time.runFor(2 * 3_600_000);
    expect(phone.seen.webhookCalls.map((c) => c.status)).toEqual([204]);
  });

  it('reconnects its stream 5 s apart five times, then 30 s, then a minute (SSEManager.kt)', async () => {
    const { key, call } = await tenant(app);
    const { phone, time } = await installed(key);
    phone.start();
    await time.runUntil(() => phone.stream.open(), { within: MINUTE, what: 'the stream open' });
    // Unpaired: the stream ends and every reconnection is refused (401), so the schedule shows.
    expect((await call('DELETE', `/v1/devices/${phone.registration()!.id}`)).status).toBe(204);
    await time.runUntil(() => !phone.stream.open(), { within: MINUTE, what: 'the stream ended' });
    await time.runFor(10 * MINUTE);
    // After the first connection, each reconnection: the first 5 s after the end, then these gaps.
    const attempts = phone.seen.streamAttempts.slice(1, 13);
    const gaps = attempts.slice(1).map((at, i) => (at - attempts[i]) / 1000);
    expect(gaps).toEqual([5, 5, 5, 5, 30, 30, 30, 30, 30, 60, 60]);
  });

  it('sends nothing twice after a crash mid-send: texts handed out again are known by id and only reported', async () => {
    const { key, call } = await tenant(app, 'business');
    // SENT broadcasts 5 s after sending, no delivery reports: a crash finds several texts sent and unreported.
    const { phone, time } = await installed(key, { radio: { sentAfterMs: 5_000, deliveredAfterMs: null } });
    phone.start();
    await time.runUntil(() => phone.stream.open(), { within: MINUTE, what: 'the stream open' });
    const id = phone.registration()!.id;
    expect((await call('PATCH', `/v1/devices/${id}`, { send_delay_seconds: 1 })).status).toBe(200);
    await time.runUntil(() => phone.settings.messages.sendIntervalRange !== null, {
      within: MINUTE,
      what: 'the send interval imported',
    });

    const to = Array.from({ length: 30 }, (_, i) => `+1415556${String(1000 + i).padStart(4, '0')}`);
    const accepted = await call('POST', '/v1/messages', { body: 'Crash test', to });
    expect(accepted.status).toBe(202);
    const { batch } = await readJson(accepted);
    await time.runUntil(() => phone.seen.sent.length >= 12, { within: 5 * MINUTE, what: '12 texts sent' });
    await phone.crash();
    const sentBefore = new Set(phone.seen.sent.map((s) => s.id));
    const unreported = [...phone.messages.values()].filter((m) => sentBefore.has(m.id) && m.state === 'Processed');
    expect(unreported.length).toBeGreaterThan(0);
    await time.runFor(MINUTE);

    phone.start();
    await time.runUntil(() => phone.seen.sent.length >= 30 && phone.seen.handedAgain.length > 0, {
      within: 10 * MINUTE,
      what: 'every text sent and the unreported handed out again',
    });
    await time.runFor(30_000);
    // The service handed the unreported texts out again, as its outbox lease says; the app knew
    // them by id and reported them instead of sending them.
    for (const message of unreported) expect(phone.seen.handedAgain).toContain(message.id);
    const sent = phone.seen.sent.map((s) => s.id);
    expect(sent).toHaveLength(30);
    expect(new Set(sent).size).toBe(30);
    // Texts whose SENT broadcast died with the process stay handed out (then unknown at their
    // deadline): never sent a second time. Every other text is sent, once.
    await expect
      .poll(async () => {
        const { batch: now } = await readJson(await call('GET', `/v1/batches/${batch.id}`));
        return { sent: now.sent_count, dispatched: now.dispatched_count };
      })
      .toEqual({ sent: 30 - unreported.length, dispatched: unreported.length });
  });

  it('drains a send larger than one fetch at the pace of its send interval, not of the 15-minute pull', async () => {
    const { key, call } = await tenant(app, 'business');
    // A phone whose owner lifted Android's 30 per 30 minutes, and said so (sending_capacity null).
    const { phone, time } = await installed(key, {
      radio: { sentAfterMs: 300, deliveredAfterMs: null },
      smsLimit: null,
    });
    phone.start();
    await time.runUntil(() => phone.stream.open(), { within: MINUTE, what: 'the stream open' });
    const id = phone.registration()!.id;
    // A one-second pause between texts (send_interval_min = max = 1).
    expect((await call('PATCH', `/v1/devices/${id}`, { send_delay_seconds: 1, sending_capacity: null })).status).toBe(
      200,
    );
    await time.runUntil(() => phone.settings.messages.sendIntervalRange !== null, {
      within: MINUTE,
      what: 'the send interval imported',
    });

    const to = Array.from({ length: 250 }, (_, i) => `+1415555${String(1000 + i).padStart(4, '0')}`);
    const accepted = await call('POST', '/v1/messages', { body: 'Big send', to });
    expect(accepted.status).toBe(202);
    const { batch } = await readJson(accepted);
    const start = time.now();
    // 250 texts at one a second: a little over four minutes, never a quarter-hour wait for a pull.
    await time.runUntil(() => phone.seen.sent.length === 250, { within: 10 * MINUTE, what: 'all 250 texts sent' });
    const took = time.now() - start;
    expect(took).toBeGreaterThanOrEqual(249_000);
    expect(took).toBeLessThan(5 * MINUTE);
    // Pages of at most 100 (an extra announcement, such as the batch's own wake arriving late, may
    // split one), every text fetched once and sent once.
    const pages = phone.seen.pulled.filter((n) => n > 0);
    expect(Math.max(...pages)).toBeLessThanOrEqual(100);
    expect(pages.reduce((sum, n) => sum + n, 0)).toBe(250);
    expect(new Set(phone.seen.sent.map((s) => s.id)).size).toBe(250);
    await time.runFor(5_000);
    await expect
      .poll(async () => (await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch.sent_count)
      .toBe(250);
  });
});
