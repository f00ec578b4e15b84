import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { batchWorkflowId } from '../../workflows/definitions';
import type { TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { deviceRow } from '../support/factories';
import { readJson } from '../support/http';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import { bearer, type PairedPhone } from '../devices/helpers';
import { eventsOf, sendingTenant } from '../messages/helpers';

type Call = (method: string, path: string, body?: unknown) => Promise<Response>;

describe('opt-outs: keywords from inbound texts, the suppression list, and sends that skip it', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;

  beforeAll(async () => {
    stack = await startWorkflowStack({ env: { TEMPORAL_TASK_QUEUE: 'opt-outs-test' } });
    ({ env, app } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  async function syncClock() {
    app.clock.set(new Date(await env.currentTimeMs()));
  }

  /** A text the phone received, forwarded through POST /v1/device/inbound. */
  async function inbound(phone: PairedPhone, sender: string, body: string) {
    const res = await app.fetch(
      '/v1/device/inbound',
      json(
        'POST',
        { sender, body, received_at: new Date().toISOString(), fingerprint: randomUUID() },
        bearer(phone.token),
      ),
    );
    expect(res.status).toBe(201);
    return (await readJson(res)).message;
  }
  const listed = async (call: Call) =>
    (await readJson(await call('GET', '/v1/opt-outs'))).data.map((o: { phone_number: string }) => o.phone_number);
  const usage = async (call: Call) => (await readJson(await call('GET', '/v1/auth/me'))).usage;

  it('puts a sender that texts STOP on the list, skips it in a send, and takes it off on START', async () => {
    await syncClock();
    const { call, phone, account } = await sendingTenant(app);
    const stop = await inbound(phone, '+14155550301', 'STOP');
    const res = await call('GET', '/v1/opt-outs');
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({
      data: [{ phone_number: '+14155550301', source: 'inbound', message_id: stop.id, created_at: expect.any(String) }],
    });

    // A send to it and two others: its message fails at once, the others queue as usual.
    const before = await usage(call);
    const sent = await call('POST', '/v1/messages', {
      body: 'Weekly offers',
      to: ['+14155550302', '+1 415 555 0301', '+14155550303'],
    });
    expect(sent.status).toBe(202);
    const { batch, message_ids } = await readJson(sent);
    expect(message_ids).toHaveLength(3);
    expect(batch).toMatchObject({
      status: 'queued',
      recipient_count: 3,
      failed_count: 1,
      dispatched_count: 0,
      completed_at: null,
    });
    const detail = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(detail.batch).toMatchObject({ recipient_count: 3, failed_count: 1 });
    expect(detail.messages.map((m: Record<string, unknown>) => [m.id, m.recipient, m.status, m.error_code])).toEqual([
      [message_ids[0], '+14155550302', 'queued', null],
      [message_ids[1], '+14155550301', 'failed', 'opted_out'],
      [message_ids[2], '+14155550303', 'queued', null],
    ]);
    expect(detail.messages[1].failed_at).toEqual(expect.any(String));
    // Only the others count against the plan, take places in the phone's queue and reach the phone.
    const after = await usage(call);
    expect(after.sent_today - before.sent_today).toBe(2);
    expect(after.sent_this_month - before.sent_this_month).toBe(2);
    expect((await deviceRow(app.orm, phone.id)).queueDepth).toBe(2);
    const outbox = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }));
    expect(outbox.data.map((r: { to: string }) => r.to)).toEqual(['+14155550302', '+14155550303']);
    const failed = (await eventsOf(app, account.userId)).filter((e) => e.name === 'message.failed');
    expect(failed).toEqual([{ name: 'message.failed', message_id: message_ids[1] }]);

    // START (any case and spacing) lifts it: the next send reaches it.
    await inbound(phone, '+14155550301', '  start ');
    expect(await listed(call)).toEqual([]);
    const again = await readJson(await call('POST', '/v1/messages', { body: 'Welcome back', to: ['+14155550301'] }));
    expect(again.batch).toMatchObject({ status: 'queued', failed_count: 0 });
  });

  it('recognises every opt-out keyword whatever its case and spacing, and only whole-body keywords', async () => {
    await syncClock();
    const { call, phone } = await sendingTenant(app);
    const keywords = ['stop', ' Stop All ', 'UNSUBSCRIBE', 'cancel', 'End', 'quit\n'];
    for (const [i, body] of keywords.entries()) await inbound(phone, `+1415555031${i}`, body);
    // Not keywords: texts that merely contain one, and senders no send could reach.
    await inbound(phone, '+14155550320', 'Please stop texting me');
    await inbound(phone, '+14155550321', 'STOP IT');
    await inbound(phone, 'ACME-BANK', 'STOP');
    expect((await listed(call)).sort()).toEqual(keywords.map((_, i) => `+1415555031${i}`));

    // UNSTOP lifts one; a repeated STOP keeps one row.
    await inbound(phone, '+14155550310', 'UnStop');
    await inbound(phone, '+14155550311', 'STOP');
    expect((await listed(call)).sort()).toEqual([
      '+14155550311',
      '+14155550312',
      '+14155550313',
      '+14155550314',
      '+14155550315',
    ]);
  });

  it('creates a send whose every recipient opted out, settled at once, counting nothing', async () => {
    await syncClock();
    const { call, phone } = await sendingTenant(app);
    for (const number of ['+14155550331', '+14155550332']) {
      expect((await call('POST', '/v1/opt-outs', { phone_number: number })).status).toBe(201);
    }
    const before = await usage(call);
    const res = await call('POST', '/v1/messages', { body: 'Anyone?', to: ['+14155550331', '+14155550332'] });
    expect(res.status).toBe(202);
    const { batch } = await readJson(res);
    expect(batch).toMatchObject({
      status: 'failed',
      recipient_count: 2,
      failed_count: 2,
      completed_at: expect.any(String),
      error: 'Every recipient has opted out.',
    });
    const detail = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(detail.batch).toMatchObject({ status: 'failed', failed_count: 2 });
    expect(detail.messages.map((m: { error_code: string }) => m.error_code)).toEqual(['opted_out', 'opted_out']);
    expect(await usage(call)).toEqual(before);
    expect((await deviceRow(app.orm, phone.id)).queueDepth).toBe(0);
    await expect
      .poll(async () => (await env.client.workflow.getHandle(batchWorkflowId(batch.id)).describe()).status.name)
      .toBe('COMPLETED');
  });

  it('adds and removes numbers by hand: normalised, idempotent, 404 when absent, 422 when not a number', async () => {
    const { call } = await sendingTenant(app);
    const added = await call('POST', '/v1/opt-outs', { phone_number: '+1 (415) 555-0341' });
    expect(added.status).toBe(201);
    const { opt_out } = await readJson(added);
    expect(opt_out).toEqual({
      phone_number: '+14155550341',
      source: 'api',
      message_id: null,
      created_at: expect.any(String),
    });
    const repeat = await call('POST', '/v1/opt-outs', { phone_number: '+14155550341' });
    expect(repeat.status).toBe(200);
    expect((await readJson(repeat)).opt_out).toEqual(opt_out);
    expect(await listed(call)).toEqual(['+14155550341']);

    for (const body of [{ phone_number: 'not a number' }, { phone_number: '+1415' }, {}, { phone_number: 42 }]) {
      const bad = await call('POST', '/v1/opt-outs', body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(await readJson(bad)).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'body.phone_number', message: expect.any(String) }],
      });
    }

    // The number in the path, its + escaped or not.
    expect((await call('DELETE', '/v1/opt-outs/%2B14155550341')).status).toBe(204);
    expect(await listed(call)).toEqual([]);
    const absent = await call('DELETE', '/v1/opt-outs/+14155550341');
    expect(absent.status).toBe(404);
    expect(await readJson(absent)).toMatchObject({ code: 'not_found' });
    await call('POST', '/v1/opt-outs', { phone_number: '+14155550342' });
    expect((await call('DELETE', '/v1/opt-outs/+14155550342')).status).toBe(204);
    expect((await call('DELETE', '/v1/opt-outs/nonsense')).status).toBe(404);
  });

  it('pages the list newest first with the one pagination', async () => {
    const { call } = await sendingTenant(app);
    const numbers = Array.from({ length: 5 }, (_, i) => `+1415555035${i}`);
    for (const number of numbers) {
      await call('POST', '/v1/opt-outs', { phone_number: number });
      app.clock.advance(1000);
    }
    const first = await readJson(await call('GET', '/v1/opt-outs?limit=3'));
    expect(first.data.map((o: { phone_number: string }) => o.phone_number)).toEqual(numbers.slice(2).reverse());
    const second = await readJson(await call('GET', `/v1/opt-outs?limit=3&cursor=${first.next_cursor}`));
    expect(second.data.map((o: { phone_number: string }) => o.phone_number)).toEqual(numbers.slice(0, 2).reverse());
    expect(second.next_cursor).toBeUndefined();
    expect((await call('GET', '/v1/opt-outs?limit=0')).status).toBe(422);
    expect((await call('GET', '/v1/opt-outs?cursor=nope')).status).toBe(422);
  });

  it('answers whether one number is on the list, read as recipients are, 422 when not a number', async () => {
    const { call } = await sendingTenant(app);
    const other = await sendingTenant(app);
    await call('POST', '/v1/opt-outs', { phone_number: '+14155550371' });
    await call('POST', '/v1/opt-outs', { phone_number: '+14155550372' });
    const only = async (c: Call, number: string) =>
      (await readJson(await c('GET', `/v1/opt-outs?phone_number=${encodeURIComponent(number)}`))).data.map(
        (o: { phone_number: string }) => o.phone_number,
      );
    expect(await only(call, '+1 (415) 555-0371')).toEqual(['+14155550371']);
    expect(await only(call, '+14155550373')).toEqual([]);
    expect(await only(other.call, '+14155550371')).toEqual([]);
    const bad = await call('GET', '/v1/opt-outs?phone_number=%2B447700900123');
    expect(bad.status).toBe(422);
    expect(await readJson(bad)).toMatchObject({ errors: [{ field: 'query.phone_number' }] });
  });

  it("keeps each account's list its own, and needs the send scope", async () => {
    await syncClock();
    const one = await sendingTenant(app);
    const other = await sendingTenant(app);
    await inbound(one.phone, '+14155550361', 'STOP');
    expect(await listed(one.call)).toEqual(['+14155550361']);
    expect(await listed(other.call)).toEqual([]);
    // The other account still reaches the number, and cannot take it off the first one's list.
    const sent = await readJson(await other.call('POST', '/v1/messages', { body: 'Hi', to: ['+14155550361'] }));
    expect(sent.batch).toMatchObject({ status: 'queued', failed_count: 0 });
    expect((await other.call('DELETE', '/v1/opt-outs/+14155550361')).status).toBe(404);
    expect(await listed(one.call)).toEqual(['+14155550361']);

    const account = await registerAccount(app, { verified: true });
    const readOnly = await createKey(app, account, ['read']);
    for (const [method, path] of [
      ['GET', '/v1/opt-outs'],
      ['POST', '/v1/opt-outs'],
      ['DELETE', '/v1/opt-outs/+14155550361'],
    ]) {
      const res = await app.fetch(
        path,
        json(method, method === 'POST' ? { phone_number: '+14155550362' } : undefined, { 'x-api-key': readOnly }),
      );
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await app.fetch('/v1/opt-outs')).status).toBe(401);
    // A dashboard session manages it too.
    const session = await app.fetch('/v1/opt-outs', { headers: { cookie: account.cookie } });
    expect(session.status).toBe(200);
  });
});
