import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { batchWorkflowId } from '../../workflows/definitions';
import type { TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { deviceRow } from '../support/factories';
import { readJson } from '../support/http';
import { activityNames, startWorkflowStack, type WorkflowStack } from '../support/temporal';
import { bearer } from '../devices/helpers';
import { eventsOf, sendingTenant, sendProbes } from './helpers';

type Probes = ReturnType<typeof sendProbes>;

type Call = (method: string, path: string, body?: unknown) => Promise<Response>;

describe('cancelling a send: POST /v1/batches/{id}/cancel', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let syncClock: Probes['syncClock'];
  let workflowStatus: Probes['workflowStatus'];
  let send: Probes['send'];
  let batchOf: Probes['batchOf'];
  let outbox: Probes['outbox'];
  let usage: Probes['usage'];

  beforeAll(async () => {
    stack = await startWorkflowStack({ env: { STALE_WINDOW: '10m', TEMPORAL_TASK_QUEUE: 'cancel-test' } });
    ({ env, app } = stack);
    ({ syncClock, workflowStatus, send, batchOf, outbox, usage } = sendProbes(app, env));
  });
  afterAll(async () => {
    await stack?.close();
  });

  const cancel = (call: Call, batchId: string) => call('POST', `/v1/batches/${batchId}/cancel`);

  it('fails every queued message `cancelled` with its event, settles the batch and ends its workflow', async () => {
    await syncClock();
    const { call, phone, account } = await sendingTenant(app);
    const { batch, message_ids } = await send(call, { body: 'Sale today', to: ['+14155550201', '+14155550202'] });
    await expect.poll(() => workflowStatus(batch.id)).toBe('RUNNING');
    expect((await deviceRow(app.orm, phone.id)).queueDepth).toBe(2);

    const res = await cancel(call, batch.id);
    expect(res.status).toBe(200);
    const { batch: cancelled } = await readJson(res);
    expect(cancelled).toMatchObject({
      id: batch.id,
      status: 'failed',
      failed_count: 2,
      dispatched_count: 0,
      cancelled_at: expect.any(String),
      completed_at: expect.any(String),
      error: 'The send was cancelled.',
    });

    const detail = await batchOf(call, batch.id);
    expect(detail.batch).toEqual(cancelled);
    expect(detail.messages.map((m: Record<string, unknown>) => [m.id, m.status, m.error_code])).toEqual([
      [message_ids[0], 'failed', 'cancelled'],
      [message_ids[1], 'failed', 'cancelled'],
    ]);
    expect(detail.messages[0].failed_at).toEqual(expect.any(String));
    expect((await eventsOf(app, account.userId)).filter((e) => e.name === 'message.failed')).toEqual(
      expect.arrayContaining(message_ids.map((id: string) => ({ name: 'message.failed', message_id: id }))),
    );
    // Nothing is left for the phone, and the places it held in the phone's outbox are given back.
    expect(await outbox(phone)).toEqual([]);
    expect((await deviceRow(app.orm, phone.id)).queueDepth).toBe(0);
    await expect.poll(() => workflowStatus(batch.id)).toBe('COMPLETED');
  });

  it('cancels a scheduled send before its time: nothing is released and its workflow ends at once', async () => {
    await syncClock();
    const { call, phone } = await sendingTenant(app);
    const at = (await env.currentTimeMs()) + 3 * 3_600_000;
    const { batch } = await send(call, {
      body: 'Tomorrow',
      to: ['+14155550211', '+14155550212'],
      scheduled_at: new Date(at).toISOString(),
    });
    expect(batch.status).toBe('scheduled');
    const handle = env.client.workflow.getHandle(batchWorkflowId(batch.id));
    await expect.poll(() => workflowStatus(batch.id)).toBe('RUNNING');

    const { batch: cancelled } = await readJson(await cancel(call, batch.id));
    expect(cancelled).toMatchObject({ status: 'failed', failed_count: 2, error: 'The send was cancelled.' });
    const detail = await batchOf(call, batch.id);
    expect(detail.messages.map((m: { error_code: string }) => m.error_code)).toEqual(['cancelled', 'cancelled']);

    // Waiting for the result lets the test server skip time: it must not have to reach scheduled_at.
    await handle.result();
    expect(await env.currentTimeMs()).toBeLessThan(at);
    // Its one task ended it: the settled signal came before any wait, so nothing was swept either.
    const history = await handle.fetchHistory();
    expect(activityNames(history)).toEqual([]);

    // Past its time nothing comes to the phone, and the batch stays as it was.
    await env.sleep('4 hours');
    await syncClock();
    expect(await outbox(phone)).toEqual([]);
    expect((await batchOf(call, batch.id)).batch).toEqual(cancelled);
  });

  it('leaves dispatched messages alone: they may still be reported, and the batch settles with the last one', async () => {
    await syncClock();
    const { call, phone, account } = await sendingTenant(app);
    const { batch, message_ids } = await send(call, {
      body: 'Hi',
      to: ['+14155550221', '+14155550222', '+14155550223'],
    });
    await expect.poll(() => workflowStatus(batch.id)).toBe('RUNNING');
    expect((await outbox(phone, 1)).map((r) => r.id)).toEqual([message_ids[0]]);

    const { batch: cancelled } = await readJson(await cancel(call, batch.id));
    expect(cancelled).toMatchObject({
      status: 'sending',
      dispatched_count: 1,
      failed_count: 2,
      cancelled_at: expect.any(String),
      completed_at: null,
    });
    // The dispatched one is still the phone's to send (handed out again until reported); the others are gone.
    expect((await outbox(phone)).map((r) => r.id)).toEqual([message_ids[0]]);
    expect(await workflowStatus(batch.id)).toBe('RUNNING');
    // Cancelling again changes nothing while the dispatched one is open.
    const again = await cancel(call, batch.id);
    expect(again.status).toBe(200);
    expect((await readJson(again)).batch).toMatchObject({
      dispatched_count: 1,
      failed_count: 2,
      cancelled_at: cancelled.cancelled_at,
    });

    const reported = await app.fetch(
      `/v1/device/messages/${message_ids[0]}/status`,
      json('POST', { status: 'sent' }, bearer(phone.token)),
    );
    expect(reported.status).toBe(200);
    expect((await readJson(reported)).message.status).toBe('sent');
    const done = await batchOf(call, batch.id);
    expect(done.batch).toMatchObject({
      status: 'completed',
      sent_count: 1,
      failed_count: 2,
      dispatched_count: 0,
      error: null,
      completed_at: expect.any(String),
    });
    expect(done.messages.map((m: { status: string; error_code: string | null }) => [m.status, m.error_code])).toEqual([
      ['sent', null],
      ['failed', 'cancelled'],
      ['failed', 'cancelled'],
    ]);
    const names = (await eventsOf(app, account.userId)).map((e) => e.name).sort();
    expect(names).toEqual(['message.failed', 'message.failed', 'message.sent']);
    expect((await deviceRow(app.orm, phone.id)).queueDepth).toBe(0);
    await expect.poll(() => workflowStatus(batch.id)).toBe('COMPLETED');

    // A finished send cannot be cancelled.
    const finished = await cancel(call, batch.id);
    expect(finished.status).toBe(409);
    expect(await readJson(finished)).toMatchObject({ code: 'batch_finished', status: 409 });
  });

  it("refuses a finished batch (409), another account's batch and unknown ids (404), and keys without send", async () => {
    await syncClock();
    const owner = await sendingTenant(app);
    const { batch, message_ids } = await send(owner.call, { body: 'Once', to: ['+14155550231'] });
    await outbox(owner.phone);
    await app.fetch(
      `/v1/device/messages/${message_ids[0]}/status`,
      json('POST', { status: 'delivered' }, bearer(owner.phone.token)),
    );
    expect((await batchOf(owner.call, batch.id)).batch.status).toBe('completed');
    const finished = await cancel(owner.call, batch.id);
    expect(finished.status).toBe(409);
    expect(await readJson(finished)).toMatchObject({ code: 'batch_finished' });
    expect((await batchOf(owner.call, batch.id)).batch.cancelled_at).toBeNull();

    const { batch: open } = await send(owner.call, { body: 'Open', to: ['+14155550232'] });
    const stranger = await sendingTenant(app);
    const foreign = await cancel(stranger.call, open.id);
    expect(foreign.status).toBe(404);
    expect(await readJson(foreign)).toMatchObject({ code: 'not_found' });
    expect((await cancel(owner.call, '7d1e3a52-3c1b-4d39-9a4c-2f0a8f3c9b11')).status).toBe(404);
    expect((await cancel(owner.call, 'not-a-uuid')).status).toBe(404);

    const account = await registerAccount(app, { verified: true });
    const readOnly = await createKey(app, account, ['read']);
    const scoped = await app.fetch(`/v1/batches/${open.id}/cancel`, json('POST', undefined, { 'x-api-key': readOnly }));
    expect(scoped.status).toBe(403);
    // Untouched by the refusals.
    expect((await batchOf(owner.call, open.id)).batch).toMatchObject({ status: 'queued', cancelled_at: null });
  });

  it("gives cancelled messages back to the day's and month's usage: a send over the plan fits after a cancel", async () => {
    await syncClock();
    const { call, account } = await sendingTenant(app, { plan: 'free' });
    // The free plan allows 50 a day and 500 a month.
    await app.services.plans.setUsage(account.userId, {
      sentToday: 46,
      sentThisMonth: 300,
      receivedToday: 0,
      receivedThisMonth: 0,
    });
    const to = ['+14155550241', '+14155550242', '+14155550243', '+14155550244'];
    const { batch } = await send(call, { body: 'First', to });
    expect(await usage(call)).toMatchObject({ sent_today: 50, sent_this_month: 304 });
    const refused = await call('POST', '/v1/messages', { body: 'Second', to: ['+14155550245'] });
    expect(refused.status).toBe(429);
    expect(await readJson(refused)).toMatchObject({ code: 'plan_limit_daily' });

    expect((await cancel(call, batch.id)).status).toBe(200);
    expect(await usage(call)).toMatchObject({ sent_today: 46, sent_this_month: 300 });
    const admitted = await call('POST', '/v1/messages', { body: 'Second', to });
    expect(admitted.status).toBe(202);
    expect(await usage(call)).toMatchObject({ sent_today: 50, sent_this_month: 304 });
  });
});
