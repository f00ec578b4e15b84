import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { backdateMessage } from '../support/factories';
import { readJson } from '../support/http';
import { bearer } from '../devices/helpers';
import { sendingTenant } from './helpers';

const DAY = 86_400_000;
/** The calendar day of an instant in a time zone, as YYYY-MM-DD. */
const dayIn = (at: Date, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(at);
/** A day's texts still under way or without an outcome, when it has none. */
const none = { pending: 0, awaiting_report: 0, unknown: 0 };

describe('GET /v1/stats/daily: texts sent, delivered and failed per day', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  /** Sends to `to`, has the phone fetch them and report each outcome given. */
  async function sendWithOutcomes(t: Awaited<ReturnType<typeof sendingTenant>>, outcomes: string[]) {
    const to = outcomes.map((_, i) => `+1415555060${i}`);
    const sent = await readJson(await t.call('POST', '/v1/messages', { body: 'Counted', to }));
    await app.fetch(`/v1/device/outbox?limit=${to.length}`, { headers: bearer(t.phone.token) });
    const reports = (sent.message_ids as string[]).flatMap((id, i) =>
      outcomes[i] === 'queued'
        ? []
        : outcomes[i] === 'failed'
          ? [{ id, status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' }]
          : [{ id, status: outcomes[i] }],
    );
    const res = await app.fetch('/v1/device/messages/status', json('POST', { reports }, bearer(t.phone.token)));
    expect(res.status).toBe(200);
    return sent.message_ids as string[];
  }

  it('counts the account’s own outbound texts on the day each was created, every day listed', async () => {
    const mine = await sendingTenant(app);
    const theirs = await sendingTenant(app);
    const [, , , old] = await sendWithOutcomes(mine, ['delivered', 'failed', 'sent', 'delivered']);
    await sendWithOutcomes(theirs, ['delivered', 'delivered']);
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    await backdateMessage(app.orm, old, twoDaysAgo);
    // A received text is not a send.
    await app.fetch(
      '/v1/device/inbound',
      json(
        'POST',
        { sender: '+14155550699', body: 'hi', received_at: new Date().toISOString() },
        bearer(mine.phone.token),
      ),
    );

    const res = await mine.call('GET', '/v1/stats/daily?days=3');
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toEqual({
      timezone: 'UTC',
      days: [
        { date: dayIn(twoDaysAgo, 'UTC'), sent: 1, delivered: 1, failed: 0, cancelled: 0, opted_out: 0, ...none },
        {
          date: dayIn(new Date(Date.now() - DAY), 'UTC'),
          sent: 0,
          delivered: 0,
          failed: 0,
          cancelled: 0,
          opted_out: 0,
          ...none,
        },
        // Each text once by its state: 1 delivered, 1 failed, 1 sent without a report yet.
        {
          date: dayIn(new Date(), 'UTC'),
          sent: 2,
          delivered: 1,
          failed: 1,
          cancelled: 0,
          opted_out: 0,
          ...none,
          awaiting_report: 1,
        },
      ],
    });
    const fortnight = await readJson(await mine.call('GET', '/v1/stats/daily'));
    expect(fortnight.days).toHaveLength(14);
  });

  it('tells, of the failed, the cancelled and the opted-out apart, on the day and on their batch', async () => {
    const t = await sendingTenant(app);
    expect((await t.call('POST', '/v1/opt-outs', { phone_number: '+14155550609' })).status).toBe(201);
    await sendWithOutcomes(t, ['failed']);
    const sent = await readJson(
      await t.call('POST', '/v1/messages', { body: 'Withdrawn', to: ['+14155550608', '+14155550609', '+14155550607'] }),
    );
    expect(sent.batch).toMatchObject({ failed_count: 1, cancelled_count: 0, opted_out_count: 1 });
    expect((await t.call('POST', `/v1/messages/${sent.message_ids[0]}/cancel`)).status).toBe(200);

    const { days } = await readJson(await t.call('GET', '/v1/stats/daily?days=1'));
    expect(days).toEqual([
      // The third of the withdrawn send still waits for its phone.
      {
        date: dayIn(new Date(), 'UTC'),
        sent: 0,
        delivered: 0,
        failed: 3,
        cancelled: 1,
        opted_out: 1,
        ...none,
        pending: 1,
      },
    ]);
    const { batch } = await readJson(await t.call('GET', `/v1/batches/${sent.batch.id}`));
    expect(batch).toMatchObject({ failed_count: 2, cancelled_count: 1, opted_out_count: 1 });
    const listed = await readJson(await t.call('GET', '/v1/batches'));
    const counts = listed.data.map((b: Record<string, number>) => [b.cancelled_count, b.opted_out_count]);
    expect(counts.sort()).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('counts each text once by its state, so the states add up to the day’s texts', async () => {
    const t = await sendingTenant(app);
    // On the phone without a report, sent without a report, delivered; then one not fetched yet.
    await sendWithOutcomes(t, ['queued', 'sent', 'delivered']);
    expect((await t.call('POST', '/v1/messages', { body: 'Later', to: ['+14155550610'] })).status).toBe(202);
    const [day] = (await readJson(await t.call('GET', '/v1/stats/daily?days=1'))).days;
    expect(day).toMatchObject({ pending: 2, awaiting_report: 1, delivered: 1, unknown: 0, failed: 0 });
    expect(day.pending + day.awaiting_report + day.delivered + day.unknown + day.failed).toBe(4);
  });

  it('draws the days’ lines in the time zone asked for', async () => {
    const t = await sendingTenant(app);
    const [id] = await sendWithOutcomes(t, ['sent']);
    // 23:30 UTC yesterday is already today in Tokyo (UTC+9, no daylight saving).
    const yesterday = new Date(Date.now() - DAY);
    const late = new Date(`${dayIn(yesterday, 'UTC')}T23:30:00Z`);
    await backdateMessage(app.orm, id, late);
    const utc = await readJson(await t.call('GET', '/v1/stats/daily?days=2'));
    const tokyo = await readJson(await t.call('GET', '/v1/stats/daily?days=2&timezone=asia/tokyo'));
    expect(tokyo.timezone).toBe('Asia/Tokyo');
    expect(utc.days.find((d: { date: string }) => d.date === dayIn(late, 'UTC')).sent).toBe(1);
    expect(tokyo.days.find((d: { date: string }) => d.date === dayIn(late, 'Asia/Tokyo')).sent).toBe(1);
    expect(dayIn(late, 'Asia/Tokyo')).not.toBe(dayIn(late, 'UTC'));
  });

  it('draws a day of 23 and a day of 25 hours whole, where the clocks change', async () => {
    const t = await sendingTenant(app);
    // Berlin: 2026-03-29 has 23 hours (02:00 CET → 03:00 CEST), 2026-10-25 has 25 (03:00 CEST → 02:00 CET).
    const at = [
      '2026-03-28T23:30:00Z', // 00:30 CET on the 29th
      '2026-03-29T21:30:00Z', // 23:30 CEST on the 29th
      '2026-03-29T22:30:00Z', // 00:30 CEST on the 30th
      '2026-10-24T22:30:00Z', // 00:30 CEST on the 25th
      '2026-10-25T22:30:00Z', // 23:30 CET on the 25th
      '2026-10-25T23:30:00Z', // 00:30 CET on the 26th
    ];
    const ids = await sendWithOutcomes(
      t,
      at.map(() => 'sent'),
    );
    for (const [i, id] of ids.entries()) await backdateMessage(app.orm, id, new Date(at[i]));
    const counts = async (today: string) => {
      app.clock.set(new Date(today));
      try {
        const res = await t.call('GET', '/v1/stats/daily?days=3&timezone=Europe/Berlin');
        expect(res.status).toBe(200);
        return (await readJson(res)).days.map((d: { date: string; sent: number }) => [d.date, d.sent]);
      } finally {
        app.clock.set(new Date());
      }
    };
    expect(await counts('2026-03-30T12:00:00Z')).toEqual([
      ['2026-03-28', 0],
      ['2026-03-29', 2],
      ['2026-03-30', 1],
    ]);
    expect(await counts('2026-10-26T12:00:00Z')).toEqual([
      ['2026-10-24', 0],
      ['2026-10-25', 2],
      ['2026-10-26', 1],
    ]);
  });

  it('answers every time zone name the runtime knows, and names it cannot draw with 422, never a 500', async () => {
    const t = await sendingTenant(app);
    const names = [
      ...Intl.supportedValuesOf('timeZone'),
      // Names the runtime's zone data and Postgres's may not share: legacy links, POSIX-style, the
      // newest zones, Postgres-only entries.
      'EST5EDT',
      'Etc/GMT+12',
      'Etc/GMT-14',
      'US/Pacific-New',
      'America/Ciudad_Juarez',
      'Europe/Kyiv',
      'posixrules',
      'localtime',
      'Factory',
      'SystemV/AST4',
      'GMT+1',
      'UTC+01:00',
      'Europe/Berlin/',
      'europe//berlin',
      'a'.repeat(64),
    ];
    const answers = new Map<number, number>();
    for (const name of names) {
      // A second apart on the app's clock: the key's request rate is not what is tested here.
      app.clock.advance(1000);
      const res = await t.call('GET', `/v1/stats/daily?days=1&timezone=${encodeURIComponent(name)}`);
      const body = await readJson(res);
      answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
      if (res.status === 200) continue;
      expect({ name, status: res.status }).toEqual({ name, status: 422 });
      expect(body.errors.map((e: { field: string }) => e.field)).toEqual(['query.timezone']);
    }
    app.clock.set(new Date());
    expect(answers.get(200)).toBeGreaterThanOrEqual(Intl.supportedValuesOf('timeZone').length);
  });

  it('refuses a span or a time zone it cannot draw with the field’s error, and needs a key or session', async () => {
    const t = await sendingTenant(app);
    for (const [query, field] of [
      ['days=0', 'days'],
      ['days=91', 'days'],
      ['days=two', 'days'],
      ['timezone=Mars/Olympus', 'timezone'],
    ]) {
      const res = await t.call('GET', `/v1/stats/daily?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      const problem = await readJson(res);
      expect(problem.errors.map((e: { field: string }) => e.field)).toContain(`query.${field}`);
    }
    expect((await app.fetch('/v1/stats/daily')).status).toBe(401);
  });
});
