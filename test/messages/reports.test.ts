import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { eventsOf as storedEvents } from '../support/factories';
import { createKey, json, registerAccount } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';

describe('POST /v1/device/messages/status: many outcome reports in one request', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  async function tenant() {
    const account = await registerAccount(app, { verified: true, plan: 'pro' });
    const key = await createKey(app, account);
    const phone = await pairPhone(app, key);
    const call = (method: string, path: string, body?: unknown) =>
      app.fetch(path, json(method, body, { 'x-api-key': key }));
    return { account, phone, call };
  }

  const sendAndFetch = async (t: Awaited<ReturnType<typeof tenant>>, to: string[]) => {
    const sent = await readJson(await t.call('POST', '/v1/messages', { body: 'Reports', to }));
    await app.fetch(`/v1/device/outbox?limit=${to.length}`, { headers: bearer(t.phone.token) });
    return sent as { batch: { id: string }; message_ids: string[] };
  };
  const reportMany = (phone: PairedPhone, reports: unknown[]) =>
    app.fetch('/v1/device/messages/status', json('POST', { reports }, bearer(phone.token)));
  /** Events are the transactional outbox of webhooks: storage is where a test sees them. */
  const eventsOf = async (userId: string) =>
    (await storedEvents(app.orm, { userId })).map((e) => ({ name: e.name, message_id: e.messageId }));

  it('applies every report with the single report’s rules and answers each in order', async () => {
    const mine = await tenant();
    const theirs = await tenant();
    const {
      batch,
      message_ids: [a, b, c],
    } = await sendAndFetch(mine, ['+14155550401', '+14155550402', '+14155550403']);
    const {
      message_ids: [foreign],
    } = await sendAndFetch(theirs, ['+14155550404']);
    const unknown = randomUUID();

    const res = await reportMany(mine.phone, [
      { id: a, status: 'sent' },
      { id: a, status: 'delivered', at: '2026-11-23T10:00:05.000Z' },
      { id: b, status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE', error_message: 'no signal' },
      { id: foreign, status: 'sent' },
      { id: unknown, status: 'sent' },
      { id: b, status: 'sent' },
    ]);
    expect(res.status).toBe(200);
    const { data } = await readJson(res);
    expect(data.map((item: { id: string }) => item.id)).toEqual([a, a, b, foreign, unknown, b]);
    expect(data[0].message).toMatchObject({ id: a, status: 'delivered', delivered_at: '2026-11-23T10:00:05.000Z' });
    expect(data[0].message.sent_at).toEqual(expect.any(String));
    expect(data[1].message).toEqual(data[0].message);
    expect(data[2].message).toMatchObject({
      id: b,
      status: 'failed',
      error_code: 'RESULT_ERROR_NO_SERVICE',
      error_message: 'no signal',
    });
    // Another phone's message, or none: the single report's 404, per item.
    for (const item of [data[3], data[4]]) {
      expect(item).toEqual({
        id: item.id,
        error: { code: 'not_found', message: expect.any(String), status: 404 },
      });
    }
    // A report after a final state changes nothing and answers with the message.
    expect(data[5].message).toMatchObject({ id: b, status: 'failed' });

    const detail = await readJson(await mine.call('GET', `/v1/batches/${batch.id}`));
    expect(detail.batch).toMatchObject({
      status: 'sending',
      dispatched_count: 1,
      sent_count: 0,
      delivered_count: 1,
      failed_count: 1,
    });
    expect(detail.messages.map((m: { status: string }) => m.status)).toEqual(['delivered', 'failed', 'dispatched']);
    expect(await eventsOf(mine.account.userId)).toEqual(
      [
        { name: 'message.delivered', message_id: a },
        { name: 'message.failed', message_id: b },
        { name: 'message.sent', message_id: a },
      ].sort((x, y) => x.name.localeCompare(y.name)),
    );
    const theirBatch = await readJson(await theirs.call('GET', `/v1/messages/${foreign}`));
    expect(theirBatch.message.status).toBe('dispatched');
    expect(await readJson(await mine.call('GET', '/v1/stats'))).toMatchObject({ sent: 1 });

    // The whole set again: nothing moves, no event repeats; the last message completes the batch.
    const again = await readJson(
      await reportMany(mine.phone, [
        { id: a, status: 'delivered' },
        { id: b, status: 'failed' },
        { id: c, status: 'sent' },
      ]),
    );
    expect(again.data.map((item: { message: { status: string } }) => item.message.status)).toEqual([
      'delivered',
      'failed',
      'sent',
    ]);
    expect((await eventsOf(mine.account.userId)).map((e) => e.name)).toEqual([
      'message.delivered',
      'message.failed',
      'message.sent',
      'message.sent',
    ]);
    const done = await readJson(await mine.call('GET', `/v1/batches/${batch.id}`));
    expect(done.batch).toMatchObject({ status: 'completed', dispatched_count: 0, sent_count: 1 });
    expect(await readJson(await mine.call('GET', '/v1/stats'))).toMatchObject({ sent: 2 });
  });

  it('refuses a malformed set whole, naming the item, and writes nothing', async () => {
    const t = await tenant();
    const {
      message_ids: [a],
    } = await sendAndFetch(t, ['+14155550411']);
    const bad = await reportMany(t.phone, [
      { id: a, status: 'sent' },
      { id: a, status: 'bounced' },
    ]);
    expect(bad.status).toBe(422);
    const body = await readJson(bad);
    expect(body).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(body.errors.map((e: { field: string }) => e.field)).toContain('body.reports[1].status');
    expect((await readJson(await t.call('GET', `/v1/messages/${a}`))).message.status).toBe('dispatched');

    const tooMany = await reportMany(
      t.phone,
      Array.from({ length: 501 }, () => ({ id: a, status: 'sent' })),
    );
    expect(tooMany.status).toBe(422);
    expect((await reportMany(t.phone, [])).status).toBe(422);
    // Only a device token reports.
    const withKey = await t.call('POST', '/v1/device/messages/status', { reports: [{ id: a, status: 'sent' }] });
    expect(withKey.status).toBe(401);
    expect((await readJson(await t.call('GET', `/v1/messages/${a}`))).message.status).toBe('dispatched');
  });
});
