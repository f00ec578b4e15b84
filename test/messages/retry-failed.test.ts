import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { isErrorBody, readJson } from '../support/http';
import { bearer } from '../devices/helpers';
import { sendingTenant } from './helpers';

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;

// POST /v1/batches/{id}/retry-failed: a new send of exactly the texts that failed on their way, not
// the cancelled ones nor those to opted-out numbers, linked both ways to the batch it retries.
describe('retrying a send’s failed texts: POST /v1/batches/{id}/retry-failed', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  async function tenant() {
    const t = await sendingTenant(app);
    const call: Call = (method, path, body, headers = {}) =>
      app.fetch(path, json(method, body, { 'x-api-key': t.key, ...headers }));
    return { ...t, call };
  }
  const batchCount = async (call: Call) => (await readJson(await call('GET', '/v1/batches?limit=200'))).data.length;

  /** A send of five: delivered, two failed on the phone, one cancelled, one to an opted-out number. */
  async function sendWithEveryOutcome() {
    const t = await tenant();
    const { call, phone } = t;
    expect((await call('POST', '/v1/opt-outs', { phone_number: '+14155550605' })).status).toBe(201);
    const sent = await call('POST', '/v1/messages', {
      body: 'Hi {name}',
      to: ['+14155550601', '+14155550602', '+14155550603', '+14155550604', '+14155550605'],
      variables: [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cleo' }, { name: 'Dev' }, { name: 'Eve' }],
      priority: 'high',
      ttl_seconds: 3600,
    });
    expect(sent.status).toBe(202);
    const { batch, message_ids: ids } = await readJson(sent);
    expect((await call('POST', `/v1/messages/${ids[3]}/cancel`)).status).toBe(200);
    const outbox = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }));
    expect(outbox.data.map((m: { id: string }) => m.id)).toEqual(ids.slice(0, 3));
    const reports = [
      { id: ids[0], status: 'delivered' },
      { id: ids[1], status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' },
      { id: ids[2], status: 'failed', error_code: 'RESULT_ERROR_GENERIC_FAILURE' },
    ];
    const reported = await app.fetch('/v1/device/messages/status', json('POST', { reports }, bearer(phone.token)));
    expect(reported.status).toBe(200);
    return { ...t, batch };
  }

  it('sends exactly the failed texts again, each as it was, and links the two sends both ways', async () => {
    const { call, batch } = await sendWithEveryOutcome();
    const res = await call('POST', `/v1/batches/${batch.id}/retry-failed`);
    expect(res.status).toBe(202);
    const { batch: retry, message_ids } = await readJson(res);
    expect(message_ids).toHaveLength(2);
    expect(retry).toMatchObject({
      retry_of: batch.id,
      retried_by: null,
      recipient_count: 2,
      body: 'Hi {name}',
      device_id: batch.device_id,
      priority: 'high',
      ttl_seconds: 3600,
      failed_count: 0,
    });
    const detail = await readJson(await call('GET', `/v1/batches/${retry.id}`));
    expect(detail.messages.map((m: { recipient: string; body: string }) => [m.recipient, m.body])).toEqual([
      ['+14155550602', 'Hi Bob'],
      ['+14155550603', 'Hi Cleo'],
    ]);
    const original = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(original.batch).toMatchObject({ retried_by: retry.id, retry_of: null });
  });

  it('answers a repeat with the same Idempotency-Key as the first time, and any other retry with 409', async () => {
    const { call, batch } = await sendWithEveryOutcome();
    const key = { 'idempotency-key': `retry-${batch.id}` };
    const first = await call('POST', `/v1/batches/${batch.id}/retry-failed`, undefined, key);
    expect(first.status).toBe(202);
    const again = await call('POST', `/v1/batches/${batch.id}/retry-failed`, undefined, key);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await readJson(again)).toEqual(await readJson(first));
    const before = await batchCount(call);

    const other = await call('POST', `/v1/batches/${batch.id}/retry-failed`);
    const answer = await readJson(other);
    expect([other.status, answer.code, isErrorBody(answer, 409)]).toEqual([409, 'already_retried', true]);
    expect(await batchCount(call)).toBe(before);
  });

  it('refuses a send without failed texts, and another account’s batch, writing nothing', async () => {
    const { call, batch } = await sendWithEveryOutcome();
    const { batch: retry } = await readJson(await call('POST', `/v1/batches/${batch.id}/retry-failed`));
    const before = await batchCount(call);
    // The retry has no failed text (yet): nothing to send.
    const none = await call('POST', `/v1/batches/${retry.id}/retry-failed`);
    const answer = await readJson(none);
    expect([none.status, answer.code, isErrorBody(answer, 409)]).toEqual([409, 'nothing_to_retry', true]);
    expect(answer.message).toMatch(/no failed texts/);

    const stranger = await tenant();
    const foreign = await stranger.call('POST', `/v1/batches/${batch.id}/retry-failed`);
    expect([foreign.status, isErrorBody(await readJson(foreign), 404)]).toEqual([404, true]);
    expect(await batchCount(stranger.call)).toBe(0);
    expect((await call('POST', '/v1/batches/not-a-batch/retry-failed')).status).toBeGreaterThanOrEqual(400);
    expect(await batchCount(call)).toBe(before);
  });
});
