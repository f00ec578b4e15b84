import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app';
import { deviceRow } from '../../support/factories';
import { readJson } from '../../support/http';
import type { WorkflowStack } from '../../support/temporal';
import { Message } from '../../../src/messages/message.entity';
import type { AppOptions, SmsGateApp } from './app-behaviour';
import { installedApp, startSmsGateStack, tenant } from './helpers';

// Android's own limit (issue #37) with the SMSGate app as it behaves (app-behaviour.ts), Android's
// SmsUsageMonitor and its confirmation dialog under it: 30 texts per 30 minutes for the app on a
// stock phone, then the dialog, five texts waiting on it and RESULT_ERROR_LIMIT_EXCEEDED for the rest.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('Android’s sending limit with the SMSGate app', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  const running: SmsGateApp[] = [];

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-android-limit-test');
    app = stack.app;
  });
  afterAll(async () => {
    for (const phone of running) await phone.stop();
    await stack?.close();
  });

  /** The app installed and started as a person does it, its stream open. */
  async function started(key: string, overrides: Partial<AppOptions> = {}) {
    const { phone, time } = await installedApp(stack, key, {
      radio: { sentAfterMs: 300, deliveredAfterMs: 1_000 },
      ...overrides,
    });
    running.push(phone);
    phone.start();
    await time.runUntil(() => phone.stream.open(), { within: MINUTE, what: 'the stream open' });
    return { phone, time, deviceId: phone.registration()!.id };
  }

  const recipients = (count: number, from = 0) =>
    Array.from({ length: count }, (_, i) => `+1415557${String(from + i).padStart(4, '0')}`);

  const messagesOf = (batchId: string) =>
    app.orm.em.fork().find(Message, { batchId }, { orderBy: { position: 'asc' } });

  it('starts a phone paired through the app at Android’s 30 per 30 minutes, which its owner can raise', async () => {
    const { key, call } = await tenant(app);
    const { deviceId } = await started(key);
    const device = (await readJson(await call('GET', `/v1/devices/${deviceId}`))).device;
    expect(device).toMatchObject({ sending_capacity: 30, sending_capacity_minutes: 30, paused_until: null });
    const raised = await call('PATCH', `/v1/devices/${deviceId}`, {
      sending_capacity: 200,
      sending_capacity_minutes: 60,
    });
    expect((await readJson(raised)).device).toMatchObject({ sending_capacity: 200, sending_capacity_minutes: 60 });
  });

  it('sends 1,000 texts through a stock phone at its defaults: none refused, none lapsed, done when estimated', async () => {
    const { key, call } = await tenant(app, 'business');
    const { phone, time } = await started(key);
    const acceptedAt = time.now();
    const accepted = await call('POST', '/v1/messages', { body: 'To everyone', to: recipients(1000) });
    expect(accepted.status).toBe(202);
    const { batch } = await readJson(accepted);
    // 30 per 30 minutes is a minute a text: the estimate says 1,000 minutes.
    const estimate = new Date(batch.estimated_completion_at).getTime();
    expect(estimate).toBe(acceptedAt + 1000 * MINUTE);

    await time.runUntil(() => phone.seen.sent.length === 1000, { within: 18 * HOUR, what: 'the 1,000 texts sent' });
    const sentAt = phone.seen.sent.map((s) => s.at);
    const last = Math.max(...sentAt);
    await time.runFor(MINUTE);
    await expect
      .poll(async () => (await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch)
      .toMatchObject({ status: 'completed', delivered_count: 1000, failed_count: 0, unknown_count: 0 });
    // Android never asked: the outbox kept to its 30 per 30 minutes.
    expect(phone.platform.dialogs).toBe(0);
    expect(phone.platform.refused).toBe(0);
    expect(new Set(phone.seen.sent.map((s) => s.id)).size).toBe(1000);
    // No text waited in the queue past its stale deadline: each was handed out and sent before it,
    // so the batch's sweep would have marked none unknown at any time.
    const rows = await messagesOf(batch.id);
    const late = rows.filter((m) => m.dispatchedAt! >= m.staleAt! || m.sentAt! >= m.staleAt!);
    expect(late).toHaveLength(0);
    const slack = Math.min(...rows.map((m) => m.staleAt!.getTime() - m.sentAt!.getTime()));
    // The estimate says when the last text really goes: not before it, and within a period after.
    expect(last).toBeLessThanOrEqual(estimate);
    expect(estimate - last).toBeLessThan(30 * MINUTE);
    console.info(
      `1,000 texts, stock limit: last sent after ${((last - acceptedAt) / HOUR).toFixed(2)} h ` +
        `(estimate ${((estimate - acceptedAt) / HOUR).toFixed(2)} h), pulls ${phone.seen.pulls.length}, ` +
        `least time left before a deadline ${(slack / MINUTE).toFixed(1)} min, dialogs ${phone.platform.dialogs}, ` +
        `refused ${phone.platform.refused}`,
    );
  }, 600_000);

  it('holds the texts Android refused for its limit, pauses the phone until the period frees, then sends them', async () => {
    const { key, call } = await tenant(app, 'business');
    const { phone, time, deviceId } = await started(key);
    // The owner says the limit is lifted, but it is not: the app is handed 45 at once.
    expect((await call('PATCH', `/v1/devices/${deviceId}`, { sending_capacity: 100 })).status).toBe(200);
    const accepted = await call('POST', '/v1/messages', { body: 'Sale', to: recipients(45) });
    expect(accepted.status).toBe(202);
    const { batch } = await readJson(accepted);

    // 30 go out; the 31st raises the dialog, four more wait on it, the other ten are refused at once.
    await time.runUntil(() => phone.platform.refused === 10, { within: 5 * MINUTE, what: 'ten texts refused' });
    expect(phone.platform.dialogs).toBe(1);
    expect(phone.platform.dialog!.waiting).toHaveLength(5);
    await time.runFor(30 * SECOND);
    const refusedAt = phone.platform.dialog!.shownAt;

    // Refused for the limit is not failed: held (still dispatched, as the interface's states allow),
    // and the phone's outbox paused for the period.
    const detail = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(detail.batch).toMatchObject({
      failed_count: 0,
      unknown_count: 0,
      delivered_count: 30,
      dispatched_count: 15,
    });
    const rows = await messagesOf(batch.id);
    const held = rows.filter((m) => m.heldAt !== null);
    expect(held).toHaveLength(10);
    for (const m of held) expect(m).toMatchObject({ status: 'dispatched', errorCode: null, failedAt: null });
    const paused = (await deviceRow(app.orm, deviceId)).pausedUntil!.getTime();
    expect(paused).toBeGreaterThanOrEqual(refusedAt + 30 * MINUTE);
    expect(paused).toBeLessThan(refusedAt + 31 * MINUTE);
    // Their deadlines moved past the pause: they wait without lapsing.
    for (const m of held) expect(m.staleAt!.getTime()).toBeGreaterThan(paused + HOUR - SECOND);
    expect(new Date(detail.batch.estimated_completion_at).getTime()).toBeGreaterThan(paused);

    // The owner taps Allow: the five waiting on the dialog go.
    phone.answerDialog('allow');
    await time.runFor(MINUTE);
    // A pull during the pause brings nothing, not even the held ones.
    const pullsBefore = phone.seen.pulled.length;
    await time.runFor(20 * MINUTE);
    expect(phone.seen.pulled.slice(pullsBefore).every((n) => n === 0)).toBe(true);
    expect(phone.seen.sent).toHaveLength(35);

    // Once the period frees, the held texts go as new attempts (the app sends no id it knows twice).
    await time.runUntil(() => phone.seen.sent.length === 45, { within: 30 * MINUTE, what: 'the held texts sent' });
    expect(Math.min(...phone.seen.sent.slice(35).map((s) => s.at))).toBeGreaterThanOrEqual(paused);
    expect(new Set(phone.seen.sent.map((s) => s.id)).size).toBe(45);
    await time.runFor(MINUTE);
    await expect
      .poll(async () => (await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch)
      .toMatchObject({ status: 'completed', delivered_count: 45, failed_count: 0, unknown_count: 0 });
    expect(phone.platform.refused).toBe(10);
  }, 120_000);
});
