import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { batchWorkflowId } from '../../workflows/definitions';
import { Batch } from '../../src/messages/batch.entity';
import { Message } from '../../src/messages/message.entity';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { verifyUser } from '../support/factories';
import { readJson } from '../support/http';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';
import { eventsOf, sendingTenant } from './helpers';

describe('messaging: send, outbox, reports, staleness, inbound', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;

  beforeAll(async () => {
    stack = await startWorkflowStack({ env: { STALE_WINDOW: '10m', TEMPORAL_TASK_QUEUE: 'messaging-test' } });
    ({ env, app } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** The API's clock follows the test server's, which time skipping moves. */
  async function syncClock() {
    app.clock.set(new Date(await env.currentTimeMs()));
  }

  const tenant = (options: { plan?: string; verified?: boolean } = {}) => sendingTenant(app, options);

  const outbox = async (phone: PairedPhone, limit?: number) =>
    readJson(await app.fetch(`/v1/device/outbox${limit ? `?limit=${limit}` : ''}`, { headers: bearer(phone.token) }));
  const report = (phone: PairedPhone, id: string, body: Record<string, unknown>) =>
    app.fetch(`/v1/device/messages/${id}/status`, json('POST', body, bearer(phone.token)));
  const batchOf = async (call: (m: string, p: string) => Promise<Response>, id: string) =>
    readJson(await call('GET', `/v1/batches/${id}`));

  it('accepts a send: E.164, de-duplicated in order, one message per recipient, 202 with the batch', async () => {
    await syncClock();
    const { call, phone } = await tenant();
    const res = await call('POST', '/v1/messages', {
      body: 'Hello there',
      to: ['+1 415 555 0123', '+442079460958', '+14155550123'],
    });
    expect(res.status).toBe(202);
    const { batch, message_ids } = await readJson(res);
    expect(message_ids).toHaveLength(2);
    expect(batch).toMatchObject({
      status: 'queued',
      device_id: phone.id,
      recipient_count: 2,
      recipient_preview: '+14155550123, +442079460958',
      segments: 1,
      encoding: 'gsm7',
      dispatched_count: 0,
      sent_count: 0,
      scheduled_at: null,
      completed_at: null,
      error: null,
    });
    expect(batch.estimated_completion_at).toEqual(expect.any(String));
    const detail = await batchOf(call, batch.id);
    expect(
      detail.messages.map((m: { id: string; recipient: string; status: string }) => [m.id, m.recipient, m.status]),
    ).toEqual([
      [message_ids[0], '+14155550123', 'queued'],
      [message_ids[1], '+442079460958', 'queued'],
    ]);
    // Started right after the commit, off the request's path.
    await expect
      .poll(async () => (await env.client.workflow.getHandle(batchWorkflowId(batch.id)).describe()).status.name)
      .toBe('RUNNING');
  });

  it('walks a batch through dispatch, repeated and out-of-order reports, to completed', async () => {
    await syncClock();
    const { call, phone, account } = await tenant();
    const {
      batch,
      message_ids: [first, second],
    } = await readJson(await call('POST', '/v1/messages', { body: 'Hi', to: ['+14155550101', '+14155550102'] }));

    const fetched = await outbox(phone);
    expect(fetched.data).toEqual([
      { id: first, batch_id: batch.id, body: 'Hi', to: '+14155550101', data: null, encrypted: false, sim_subscription_id: null },
      { id: second, batch_id: batch.id, body: 'Hi', to: '+14155550102', data: null, encrypted: false, sim_subscription_id: null },
    ]);
    // Lost by the phone: handed out again until an outcome is reported.
    expect((await outbox(phone)).data.map((r: { id: string }) => r.id)).toEqual([first, second]);
    expect((await batchOf(call, batch.id)).batch).toMatchObject({ status: 'sending', dispatched_count: 2 });

    const delivered = await report(phone, first, { status: 'delivered' });
    expect(delivered.status).toBe(200);
    expect((await readJson(delivered)).message).toMatchObject({
      status: 'delivered',
      delivered_at: expect.any(String),
    });
    // Backwards and repeated reports change nothing and still answer with the message.
    const late = await readJson(await report(phone, first, { status: 'sent' }));
    expect(late.message.status).toBe('delivered');
    expect((await report(phone, first, { status: 'delivered' })).status).toBe(200);

    expect((await outbox(phone)).data.map((r: { id: string }) => r.id)).toEqual([second]);
    const failed = await readJson(
      await report(phone, second, {
        status: 'failed',
        error_code: 'RESULT_ERROR_NO_SERVICE',
        error_message: 'no signal',
      }),
    );
    expect(failed.message).toMatchObject({
      status: 'failed',
      error_code: 'RESULT_ERROR_NO_SERVICE',
      error_message: 'no signal',
    });
    expect((await outbox(phone)).data).toEqual([]);

    const done = await batchOf(call, batch.id);
    expect(done.batch).toMatchObject({
      status: 'completed',
      dispatched_count: 0,
      delivered_count: 1,
      failed_count: 1,
      completed_at: expect.any(String),
    });
    expect((await eventsOf(app, account.userId)).map((e) => e.name).sort()).toEqual([
      'message.delivered',
      'message.failed',
    ]);
    // The settled signal ends the workflow without waiting for a deadline.
    await expect
      .poll(async () => (await env.client.workflow.getHandle(batchWorkflowId(batch.id)).describe()).status.name)
      .toBe('COMPLETED');
    const stats = await readJson(await call('GET', '/v1/stats'));
    expect(stats).toEqual({ devices: 1, received: 0, sent: 1 });
  });

  it('marks a message with no outcome unknown after the stale window, once, and lets a late report move it on', async () => {
    await syncClock();
    const { call, phone, account } = await tenant();
    const {
      batch,
      message_ids: [id],
    } = await readJson(await call('POST', '/v1/messages', { body: 'Hi', to: ['+14155550103'] }));
    expect((await outbox(phone)).data).toHaveLength(1);
    await env.sleep('9 minutes');
    expect((await batchOf(call, batch.id)).messages[0].status).toBe('dispatched');
    await env.sleep('2 minutes');
    await expect.poll(async () => (await batchOf(call, batch.id)).messages[0].status).toBe('unknown');
    expect((await batchOf(call, batch.id)).batch).toMatchObject({
      status: 'completed',
      unknown_count: 1,
      dispatched_count: 0,
    });
    expect((await outbox(phone)).data).toEqual([]);
    expect((await eventsOf(app, account.userId)).filter((e) => e.name === 'message.unknown')).toEqual([
      { name: 'message.unknown', message_id: id },
    ]);

    const lateSent = await readJson(await report(phone, id, { status: 'sent' }));
    expect(lateSent.message.status).toBe('sent');
    expect((await batchOf(call, batch.id)).batch).toMatchObject({
      status: 'completed',
      unknown_count: 0,
      sent_count: 1,
    });
  });

  it('releases a scheduled send at its time, not before', async () => {
    await syncClock();
    const { call, phone } = await tenant();
    const at = new Date((await env.currentTimeMs()) + 3_600_000);
    const res = await call('POST', '/v1/messages', {
      body: 'Later',
      to: ['+14155550104'],
      scheduled_at: at.toISOString(),
    });
    expect(res.status).toBe(202);
    const { batch } = await readJson(res);
    expect(batch).toMatchObject({ status: 'scheduled', scheduled_at: at.toISOString() });
    await syncClock();
    expect((await outbox(phone)).data).toEqual([]);
    await env.sleep('59 minutes');
    await syncClock();
    expect((await outbox(phone)).data).toEqual([]);
    await env.sleep('2 minutes');
    await expect.poll(async () => (await batchOf(call, batch.id)).batch.status).toBe('queued');
    await syncClock();
    expect((await outbox(phone)).data.map((r: { body: string }) => r.body)).toEqual(['Later']);
  });

  it('stores an inbound text once per fingerprint, even under concurrent repeats', async () => {
    await syncClock();
    const { account, phone, call } = await tenant();
    const text = {
      body: 'Reply STOP',
      sender: '+14155550999',
      received_at: new Date().toISOString(),
      fingerprint: 'fp-1',
    };
    const first = await app.fetch('/v1/device/inbound', json('POST', text, bearer(phone.token)));
    expect(first.status).toBe(201);
    const created = await readJson(first);
    expect(created).toMatchObject({
      inserted: true,
      message: { direction: 'inbound', status: 'received', sender: '+14155550999', batch_id: null },
    });
    const repeats = await Promise.all(
      Array.from({ length: 10 }, () => app.fetch('/v1/device/inbound', json('POST', text, bearer(phone.token)))),
    );
    expect(repeats.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (const r of repeats) expect((await readJson(r)).message.id).toBe(created.message.id);

    const concurrent = { ...text, fingerprint: 'fp-2' };
    const race = await Promise.all(
      Array.from({ length: 10 }, () => app.fetch('/v1/device/inbound', json('POST', concurrent, bearer(phone.token)))),
    );
    expect(race.filter((r) => r.status === 201)).toHaveLength(1);
    expect(race.filter((r) => r.status === 200)).toHaveLength(9);
    expect((await eventsOf(app, account.userId)).filter((e) => e.name === 'message.received')).toHaveLength(2);
    const list = await readJson(await call('GET', '/v1/messages?direction=inbound'));
    expect(list.data).toHaveLength(2);
    expect((await readJson(await call('GET', '/v1/stats'))).received).toBe(2);
  });

  it('refuses bad sends with the interface errors, in the design order, writing nothing', async () => {
    await syncClock();
    const unverified = await tenant({ verified: false });
    const invalid = await unverified.call('POST', '/v1/messages', { body: 'x', to: ['+14155550123', 'nope'] });
    expect(invalid.status).toBe(422);
    expect((await readJson(invalid)).errors).toEqual([{ field: 'body.to[1]', message: expect.any(String) }]);
    const blocked = await unverified.call('POST', '/v1/messages', { body: 'x', to: ['+14155550123'] });
    expect(blocked.status).toBe(403);
    expect(await readJson(blocked)).toMatchObject({ code: 'email_unverified' });

    const account = await registerAccount(app, { verified: true, plan: 'free' });
    const key = await createKey(app, account);
    const noPhone = await app.fetch(
      '/v1/messages',
      json('POST', { body: 'x', to: ['+14155550123'] }, { 'x-api-key': key }),
    );
    expect(noPhone.status).toBe(409);
    expect(await readJson(noPhone)).toMatchObject({ code: 'no_device', status: 409 });
    await pairPhone(app, key);
    const tooMany = Array.from({ length: 11 }, (_, i) => `+1415555${String(1000 + i)}`);
    const overBatch = await app.fetch('/v1/messages', json('POST', { body: 'x', to: tooMany }, { 'x-api-key': key }));
    expect(overBatch.status).toBe(429);
    expect(await readJson(overBatch)).toMatchObject({ code: 'plan_limit_batch' });
    const tooLate = await app.fetch(
      '/v1/messages',
      json(
        'POST',
        { body: 'x', to: ['+14155550123'], scheduled_at: new Date(Date.now() + 8 * 86_400_000).toISOString() },
        { 'x-api-key': key },
      ),
    );
    expect(tooLate.status).toBe(422);
    const readOnly = await createKey(app, account, ['read']);
    const scope = await app.fetch(
      '/v1/messages',
      json('POST', { body: 'x', to: ['+14155550123'] }, { 'x-api-key': readOnly }),
    );
    expect(scope.status).toBe(403);
    expect(await readJson(scope)).toMatchObject({ code: 'insufficient_scope' });
    expect(await app.orm.em.fork().count(Batch, { userId: account.userId })).toBe(0);
  });

  it('accepts the sends of an account once its address is verified, having refused them before', async () => {
    await syncClock();
    const { account, call } = await tenant({ verified: false });
    const before = await call('POST', '/v1/messages', { body: 'x', to: ['+14155550123'] });
    expect(before.status).toBe(403);
    // The refusal is not remembered: the next send asks again and finds the address verified.
    await verifyUser(app.orm, account.userId);
    const after = await call('POST', '/v1/messages', { body: 'x', to: ['+14155550123'] });
    expect(after.status).toBe(202);
  });

  it('fails what is queued for a disabled phone, saying why, and stops sends to an unpaired one', async () => {
    await syncClock();
    const { call, phone, account, key } = await tenant();
    const first = await readJson(
      await call('POST', '/v1/messages', { body: 'One', to: ['+14155550107', '+14155550108'] }),
    );
    // One of the two reached the phone: it may still be reported, so it stays dispatched.
    const [handedOut] = (await outbox(phone, 1)).data;
    expect((await call('PATCH', `/v1/devices/${phone.id}`, { enabled: false })).status).toBe(200);
    const afterDisable = await batchOf(call, first.batch.id);
    const queued = afterDisable.messages.find((m: { id: string }) => m.id !== handedOut.id);
    expect(queued).toMatchObject({ status: 'failed', error_code: 'device_disabled', failed_at: expect.any(String) });
    expect(afterDisable.messages.find((m: { id: string }) => m.id === handedOut.id).status).toBe('dispatched');
    expect(afterDisable.batch).toMatchObject({ failed_count: 1, dispatched_count: 1, status: 'sending' });
    expect((await eventsOf(app, account.userId)).filter((e) => e.name === 'message.failed')).toEqual([
      { name: 'message.failed', message_id: queued.id },
    ]);
    // A disabled phone takes no new sends.
    const refused = await call('POST', '/v1/messages', { body: 'Two', to: ['+14155550109'], device_id: phone.id });
    expect(refused.status).toBe(409);
    expect(await readJson(refused)).toMatchObject({ code: 'no_device' });

    // Re-enabled, given a send, then unpaired: the queued send fails and the history stays readable.
    expect((await call('PATCH', `/v1/devices/${phone.id}`, { enabled: true })).status).toBe(200);
    const second = await readJson(await call('POST', '/v1/messages', { body: 'Three', to: ['+14155550110'] }));
    expect((await call('DELETE', `/v1/devices/${phone.id}`)).status).toBe(204);
    const afterUnpair = await batchOf(call, second.batch.id);
    expect(afterUnpair.messages[0]).toMatchObject({ status: 'failed', error_code: 'device_unpaired' });
    expect(afterUnpair.batch).toMatchObject({ status: 'failed', failed_count: 1, error: expect.any(String) });
    expect((await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) })).status).toBe(401);
    expect((await call('GET', `/v1/messages/${handedOut.id}`)).status).toBe(200);
    void key;
  });

  it('admits exactly the allowance left when 60 sends race for 50', async () => {
    await syncClock();
    const { call, account } = await tenant({ plan: 'free' });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => call('POST', '/v1/messages', { body: `Race ${i}`, to: ['+14155550111'] })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    for (const res of results.filter((r) => r.status === 429))
      expect(await readJson(res)).toMatchObject({ code: 'plan_limit_daily' });
    expect(await app.orm.em.fork().count(Message, { userId: account.userId })).toBe(50);
  });

  it('repairs a crash between the commit and the workflow start through the reconciler sweep', async () => {
    await syncClock();
    const { key, account } = await tenant();
    // This api process cannot reach Temporal: the send is accepted, its workflow not started.
    const cut = await startTestApp({ env: { TEMPORAL_TASK_QUEUE: 'messaging-test' } });
    try {
      const res = await cut.fetch(
        '/v1/messages',
        json('POST', { body: 'Hi', to: ['+14155550106'] }, { 'x-api-key': key }),
      );
      expect(res.status).toBe(202);
      const { batch } = await readJson(res);
      // When the workflow started is not part of the API: the stored batch says.
      const stored = () => app.orm.em.fork().findOneOrFail(Batch, { id: batch.id });
      expect((await stored()).workflowStartedAt).toBeNull();

      app.clock.set(new Date(Date.now() + 1000));
      const sweep = app.services.starter.sweep(app.services.starts.batches, 0);
      const repaired = await sweep.run();
      expect(repaired).toBeGreaterThanOrEqual(1);
      expect((await env.client.workflow.getHandle(batchWorkflowId(batch.id)).describe()).status.name).toBe('RUNNING');
      expect((await stored()).workflowStartedAt).not.toBeNull();
      // A second pass finds nothing of this account left to repair.
      await sweep.run();
      expect(await app.orm.em.fork().count(Batch, { userId: account.userId, workflowStartedAt: null })).toBe(0);
    } finally {
      await cut.close();
    }
  });

  it("keeps tenants apart: another account's batch or message is a 404, and only the owning phone may report", async () => {
    await syncClock();
    const mine = await tenant();
    const theirs = await tenant();
    const {
      batch,
      message_ids: [id],
    } = await readJson(await theirs.call('POST', '/v1/messages', { body: 'Hi', to: ['+14155550105'] }));
    expect((await mine.call('GET', `/v1/batches/${batch.id}`)).status).toBe(404);
    expect((await mine.call('GET', `/v1/messages/${id}`)).status).toBe(404);
    expect((await report(mine.phone, id, { status: 'sent' })).status).toBe(404);
    expect((await theirs.call('GET', `/v1/messages/${id}`)).status).toBe(200);
  });
});
