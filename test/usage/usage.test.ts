import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { backdateMessage } from '../support/factories';
import { readJson } from '../support/http';
import { bearer } from '../devices/helpers';
import { sendingTenant } from '../messages/helpers';

type Tenant = Awaited<ReturnType<typeof sendingTenant>>;
const zero = { sent: 0, delivered: 0, failed: 0, cancelled: 0, opted_out: 0, received: 0, segments: 0 };

describe('GET /v1/usage: the account’s texts per day and per month, as JSON or CSV', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  /** Sends `bodies` one text each, has the phone report each outcome, and returns their ids. */
  async function sendWithOutcomes(t: Tenant, outcomes: string[], body = 'Counted') {
    const to = outcomes.map((_, i) => `+1415555070${i}`);
    const sent = await readJson(await t.call('POST', '/v1/messages', { body, to }));
    await app.fetch(`/v1/device/outbox?limit=${to.length}`, { headers: bearer(t.phone.token) });
    const reports = (sent.message_ids as string[]).map((id, i) =>
      outcomes[i] === 'failed'
        ? { id, status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' }
        : { id, status: outcomes[i] },
    );
    const res = await app.fetch('/v1/device/messages/status', json('POST', { reports }, bearer(t.phone.token)));
    expect(res.status).toBe(200);
    return sent.message_ids as string[];
  }

  /** A text the phone received, stored now; returns its id. */
  async function receive(t: Tenant, body = 'hi') {
    const res = await app.fetch(
      '/v1/device/inbound',
      json('POST', { sender: '+14155550799', body, received_at: new Date().toISOString() }, bearer(t.phone.token)),
    );
    expect(res.status).toBeLessThan(300);
    const { data } = await readJson(await t.call('GET', '/v1/messages?direction=inbound&limit=1'));
    return data[0].id as string;
  }

  it('counts each day’s own texts, sent, delivered, failed, received and segments, every day listed', async () => {
    const mine = await sendingTenant(app);
    const theirs = await sendingTenant(app);
    const [delivered, failed] = await sendWithOutcomes(mine, ['delivered', 'failed']);
    // 200 GSM characters: two segments.
    const [long] = await sendWithOutcomes(mine, ['sent'], 'x'.repeat(200));
    const received = await receive(mine);
    for (const id of await sendWithOutcomes(theirs, ['delivered', 'delivered'])) {
      await backdateMessage(app.orm, id, new Date('2026-03-02T10:00:00Z'));
    }
    await backdateMessage(app.orm, delivered, new Date('2026-03-01T10:00:00Z'));
    await backdateMessage(app.orm, failed, new Date('2026-03-01T23:30:00Z'));
    await backdateMessage(app.orm, long, new Date('2026-03-03T08:00:00Z'));
    await backdateMessage(app.orm, received, new Date('2026-03-03T09:00:00Z'));

    const res = await mine.call('GET', '/v1/usage?period=day&from=2026-03-01&to=2026-03-03');
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({
      period: 'day',
      timezone: 'UTC',
      from: '2026-03-01',
      to: '2026-03-03',
      periods: [
        { period: '2026-03-01', ...zero, sent: 1, delivered: 1, failed: 1, segments: 1 },
        // The other account's two delivered texts of this day are not counted.
        { period: '2026-03-02', ...zero },
        { period: '2026-03-03', ...zero, sent: 1, received: 1, segments: 2 },
      ],
      totals: { ...zero, sent: 2, delivered: 1, failed: 1, received: 1, segments: 3 },
    });
    // 23:30 UTC on the 1st is the 2nd in Tokyo.
    const tokyo = await readJson(await mine.call('GET', '/v1/usage?from=2026-03-01&to=2026-03-02&timezone=Asia/Tokyo'));
    expect(tokyo.periods.map((p: { period: string; failed: number }) => [p.period, p.failed])).toEqual([
      ['2026-03-01', 0],
      ['2026-03-02', 1],
    ]);
  });

  it('sums whole months, and starts 30 days or 12 months before today unless told', async () => {
    const t = await sendingTenant(app);
    const ids = await sendWithOutcomes(t, ['delivered', 'delivered', 'failed']);
    await backdateMessage(app.orm, ids[0], new Date('2026-01-01T00:10:00Z'));
    await backdateMessage(app.orm, ids[1], new Date('2026-01-31T23:50:00Z'));
    await backdateMessage(app.orm, ids[2], new Date('2026-03-15T12:00:00Z'));
    const months = await readJson(await t.call('GET', '/v1/usage?period=month&from=2026-01-20&to=2026-03-01'));
    expect(months.periods).toEqual([
      { period: '2026-01', ...zero, sent: 2, delivered: 2, segments: 2 },
      { period: '2026-02', ...zero },
      { period: '2026-03', ...zero, failed: 1 },
    ]);

    app.clock.set(new Date('2026-05-10T12:00:00Z'));
    try {
      const days = await readJson(await t.call('GET', '/v1/usage'));
      expect({ from: days.from, to: days.to, count: days.periods.length }).toEqual({
        from: '2026-04-11',
        to: '2026-05-10',
        count: 30,
      });
      const year = await readJson(await t.call('GET', '/v1/usage?period=month'));
      expect(year.periods.map((p: { period: string }) => p.period)).toEqual([
        '2025-06',
        '2025-07',
        '2025-08',
        '2025-09',
        '2025-10',
        '2025-11',
        '2025-12',
        '2026-01',
        '2026-02',
        '2026-03',
        '2026-04',
        '2026-05',
      ]);
      expect(year.totals).toMatchObject({ sent: 2, failed: 1 });
    } finally {
      app.clock.set(new Date());
    }
  });

  it('answers a CSV file for format=csv or Accept: text/csv, with the JSON’s numbers', async () => {
    const t = await sendingTenant(app);
    const [id] = await sendWithOutcomes(t, ['delivered']);
    await backdateMessage(app.orm, id, new Date('2026-02-02T12:00:00Z'));
    const path = '/v1/usage?period=day&from=2026-02-01&to=2026-02-02';
    const expected =
      'day,sent,delivered,failed,cancelled,opted_out,received,segments\r\n' +
      '2026-02-01,0,0,0,0,0,0,0\r\n' +
      '2026-02-02,1,1,0,0,0,0,1\r\n';
    for (const res of [
      await t.call('GET', `${path}&format=csv`),
      await app.fetch(path, { headers: { 'x-api-key': t.key, accept: 'text/csv' } }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe(
        'attachment; filename="usage-day-2026-02-01-to-2026-02-02.csv"',
      );
      expect(await res.text()).toBe(expected);
    }
    // format=json wins over the Accept header; a browser's */* gets JSON.
    const asked = await app.fetch(`${path}&format=json`, { headers: { 'x-api-key': t.key, accept: 'text/csv' } });
    expect(asked.headers.get('content-type')).toMatch(/^application\/json/);
    const any = await app.fetch(path, { headers: { 'x-api-key': t.key, accept: '*/*' } });
    expect((await readJson(any)).periods[1]).toMatchObject({ sent: 1, delivered: 1 });
  });

  it('refuses what it cannot count with the field’s 422, and needs a key or session', async () => {
    const t = await sendingTenant(app);
    for (const [query, field] of [
      ['period=week', 'query.period'],
      ['from=2026-02-30', 'query.from'],
      ['to=yesterday', 'query.to'],
      ['from=2026-03-02&to=2026-03-01', 'query.from'],
      ['from=2025-01-01&to=2026-03-01', 'query.from'],
      ['period=month&from=2010-01-01&to=2026-03-01', 'query.from'],
      ['timezone=Mars/Olympus', 'query.timezone'],
      ['format=xml', 'query.format'],
    ]) {
      const res = await t.call('GET', `/v1/usage?${query}`);
      const body = await readJson(res);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      expect(body).toMatchObject({ code: 'validation_failed', status: 422 });
      expect(body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    // A year of days is the most: 366 of them.
    expect((await t.call('GET', '/v1/usage?from=2024-01-01&to=2024-12-31')).status).toBe(200);
    expect((await app.fetch('/v1/usage')).status).toBe(401);
  });
});
