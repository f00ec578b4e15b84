import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { deviceRow } from '../support/factories';
import { readJson } from '../support/http';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import { bearer } from '../devices/helpers';
import { eventsOf, sendingTenant, sendProbes } from './helpers';

type Probes = ReturnType<typeof sendProbes>;

type Call = (method: string, path: string, body?: unknown) => Promise<Response>;

describe('cancelling one message: POST /v1/messages/{id}/cancel', () => {
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
    stack = await startWorkflowStack({ env: { STALE_WINDOW: '10m', TEMPORAL_TASK_QUEUE: 'cancel-message-test' } });
    ({ env, app } = stack);
    ({ syncClock, workflowStatus, send, batchOf, outbox, usage } = sendProbes(app, env));
  });
  afterAll(async () => {
    await stack?.close();
  });

  const cancel = (call: Call, messageId: string) => call('POST', `/v1/messages/${messageId}/cancel`);

  it('fails that one message `cancelled` with its event and gives it back to the usage; the rest go on', async () => {
    await syncClock();
    const { call, phone, account } = await sendingTenant(app);
    const { batch, message_ids } = await send(call, { body: 'Hello', to: ['+14155550301', '+14155550302'] });
    await expect.poll(() => workflowStatus(batch.id)).toBe('RUNNING');
    expect(await usage(call)).toMatchObject({ sent_today: 2 });

    const res = await cancel(call, message_ids[1]);
    expect(res.status).toBe(200);
    expect((await readJson(res)).message).toMatchObject({
      id: message_ids[1],
      status: 'failed',
      error_code: 'cancelled',
      failed_at: expect.any(String),
    });
    expect(await usage(call)).toMatchObject({ sent_today: 1 });
    expect((await eventsOf(app, account.userId)).filter((e) => e.name === 'message.failed')).toEqual([
      { name: 'message.failed', message_id: message_ids[1] },
    ]);
    // The other message is still the phone's to send, and the send is still open.
    expect((await outbox(phone)).map((m) => m.id)).toEqual([message_ids[0]]);
    expect((await deviceRow(app.orm, phone.id)).queueDepth).toBe(1);
    expect((await batchOf(call, batch.id)).batch).toMatchObject({ status: 'sending', failed_count: 1, completed_at: null });
    expect(await workflowStatus(batch.id)).toBe('RUNNING');
  });

  it('settles the send when its last open message is cancelled, and its workflow ends', async () => {
    await syncClock();
    const { call, phone } = await sendingTenant(app);
    const { batch, message_ids } = await send(call, { body: 'Hi', to: ['+14155550311', '+14155550312'] });
    await expect.poll(() => workflowStatus(batch.id)).toBe('RUNNING');
    expect((await outbox(phone, 1)).map((m) => m.id)).toEqual([message_ids[0]]);
    const reported = await app.fetch(`/v1/device/messages/${message_ids[0]}/status`, json('POST', { status: 'delivered' }, bearer(phone.token)));
    expect(reported.status).toBe(200);

    expect((await cancel(call, message_ids[1])).status).toBe(200);
    expect((await batchOf(call, batch.id)).batch).toMatchObject({
      status: 'completed',
      delivered_count: 1,
      failed_count: 1,
      completed_at: expect.any(String),
    });
    expect((await deviceRow(app.orm, phone.id)).queueDepth).toBe(0);
    await expect.poll(() => workflowStatus(batch.id)).toBe('COMPLETED');
  });

  it('refuses a message the phone has (409, unchanged), another account’s or an unknown one (404), and keys without send', async () => {
    await syncClock();
    const owner = await sendingTenant(app);
    const { batch, message_ids } = await send(owner.call, { body: 'Taken', to: ['+14155550321', '+14155550322'] });
    expect((await outbox(owner.phone, 1)).map((m) => m.id)).toEqual([message_ids[0]]);

    const handed = await cancel(owner.call, message_ids[0]);
    expect(handed.status).toBe(409);
    expect(await readJson(handed)).toMatchObject({ code: 'message_not_cancellable', status: 409 });
    expect(await readJson(await owner.call('GET', `/v1/messages/${message_ids[0]}`))).toMatchObject({
      message: { status: 'dispatched', error_code: null },
    });

    const stranger = await sendingTenant(app);
    const foreign = await cancel(stranger.call, message_ids[1]);
    expect(foreign.status).toBe(404);
    expect(await readJson(foreign)).toMatchObject({ code: 'not_found' });
    expect((await cancel(owner.call, '7d1e3a52-3c1b-4d39-9a4c-2f0a8f3c9b11')).status).toBe(404);
    expect((await cancel(owner.call, 'not-a-uuid')).status).toBe(404);
    const account = await registerAccount(app, { verified: true });
    const readOnly = await createKey(app, account, ['read']);
    const scoped = await app.fetch(`/v1/messages/${message_ids[1]}/cancel`, json('POST', undefined, { 'x-api-key': readOnly }));
    expect(scoped.status).toBe(403);

    // Untouched by the refusals; cancelling twice is a 409 the second time.
    expect((await batchOf(owner.call, batch.id)).messages.map((m: { status: string }) => m.status)).toEqual(['dispatched', 'queued']);
    expect((await cancel(owner.call, message_ids[1])).status).toBe(200);
    expect((await cancel(owner.call, message_ids[1])).status).toBe(409);
  });
});
