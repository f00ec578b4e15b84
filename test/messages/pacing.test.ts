import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Message } from '../../src/messages/message.entity';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { deviceRow } from '../support/factories';
import { readJson } from '../support/http';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import { bearer, type PairedPhone } from '../devices/helpers';
import { eventsOf, sendingTenant } from './helpers';

// Per-phone pacing (max_sends_per_minute/hour/day, send_window, send_delay_jitter_seconds) and per-send
// priority and ttl_seconds, through the HTTP API and the phone's outbox.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

type Call = (method: string, path: string, body?: unknown) => Promise<Response>;

const numbers = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `+1415555${String(3000 + from + i).padStart(4, '0')}`);

async function send(call: Call, to: string[], extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/v1/messages', { body: 'Paced', to, ...extra });
  expect(res.status).toBe(202);
  return readJson(res);
}

async function patchDevice(call: Call, phone: PairedPhone, body: Record<string, unknown>) {
  const res = await call('PATCH', `/v1/devices/${phone.id}`, body);
  expect(res.status).toBe(200);
  return (await readJson(res)).device;
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('pacing, send windows and priority on the outbox and the estimates', () => {
  let app: TestApp;
  // Now, not a fixed date: the tests that release a scheduled send check scheduled_at against the wall clock.
  const start = new Date();

  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(start), env: { STALE_WINDOW: '1h' } });
  });
  afterAll(() => app?.close());

  const outbox = async (phone: PairedPhone, limit?: number): Promise<string[]> => {
    const res = await app.fetch(`/v1/device/outbox${limit ? `?limit=${limit}` : ''}`, { headers: bearer(phone.token) });
    expect(res.status).toBe(200);
    return (await readJson(res)).data.map((row: { id: string }) => row.id);
  };
  const report = (phone: PairedPhone, ids: string[], status = 'sent') =>
    app.fetch(
      '/v1/device/messages/status',
      json('POST', { reports: ids.map((id) => ({ id, status })) }, bearer(phone.token)),
    );

  /** Stale deadlines of a batch's messages in recipient order (not part of the resources). */
  const deadlines = async (batchId: string) =>
    (await app.orm.em.fork().find(Message, { batchId }, { orderBy: { position: 'asc' } })).map((m) =>
      m.staleAt ? m.staleAt.getTime() : null,
    );

  it('hands out no more than max_sends_per_minute in any trailing minute, and more once the minute moves', async () => {
    app.clock.set(start);
    const t0 = start.getTime();
    const { call, phone } = await sendingTenant(app);
    expect(await patchDevice(call, phone, { max_sends_per_minute: 3 })).toMatchObject({
      max_sends_per_minute: 3,
      max_sends_per_hour: null,
    });
    const { batch, message_ids } = await send(call, numbers(5));
    // 60 / 3 = 20 s per message, more than the 5 s the phone needs otherwise.
    expect(batch.estimated_completion_at).toBe(iso(t0 + 5 * 20 * SECOND));
    expect(await deadlines(batch.id)).toEqual([0, 1, 2, 3, 4].map((n) => t0 + HOUR + n * 20 * SECOND));

    expect(await outbox(phone)).toEqual(message_ids.slice(0, 3));
    // Handed out again (the phone lost them) costs nothing; nothing new within the minute.
    expect(await outbox(phone)).toEqual(message_ids.slice(0, 3));
    app.clock.advance(59 * SECOND);
    expect(await outbox(phone)).toEqual(message_ids.slice(0, 3));
    expect((await report(phone, message_ids.slice(0, 3))).status).toBe(200);
    // Reported, still counted: they were sent within the last minute.
    expect(await outbox(phone)).toEqual([]);

    app.clock.advance(2 * SECOND);
    expect(await outbox(phone)).toEqual(message_ids.slice(3));
    const detail = await readJson(await call('GET', `/v1/batches/${batch.id}`));
    expect(detail.batch).toMatchObject({ dispatched_count: 2, sent_count: 3 });
  });

  it('hands out no more than max_sends_per_hour in any trailing hour', async () => {
    app.clock.set(start);
    const t0 = start.getTime();
    const { call, phone } = await sendingTenant(app);
    await patchDevice(call, phone, { max_sends_per_hour: 4, max_sends_per_minute: 10 });
    const { batch, message_ids } = await send(call, numbers(6));
    // 3600 / 4 = 900 s per message: the slower of the two paces.
    expect(batch.estimated_completion_at).toBe(iso(t0 + 6 * 900 * SECOND));

    expect(await outbox(phone, 2)).toEqual(message_ids.slice(0, 2));
    app.clock.advance(10 * MINUTE);
    expect(await outbox(phone)).toEqual(message_ids.slice(0, 4));
    await report(phone, message_ids.slice(0, 4));
    app.clock.advance(49 * MINUTE);
    expect(await outbox(phone)).toEqual([]);
    // An hour after the first two: room for two more.
    app.clock.advance(1 * MINUTE + SECOND);
    expect(await outbox(phone)).toEqual(message_ids.slice(4));

    // Lifting the pace hands out the rest at once.
    app.clock.set(new Date(t0 + 62 * MINUTE));
    const more = await send(call, numbers(3, 10));
    expect(await outbox(phone)).toEqual(message_ids.slice(4));
    await patchDevice(call, phone, { max_sends_per_hour: null, max_sends_per_minute: null });
    expect(await outbox(phone)).toEqual([...message_ids.slice(4), ...more.message_ids]);
  });

  it('hands out no more than the sending capacity in any trailing period, and counts it in the estimates', async () => {
    app.clock.set(start);
    const t0 = start.getTime();
    const { call, phone } = await sendingTenant(app);
    // A phone of our own API has no platform limit known until its owner says so.
    expect(await patchDevice(call, phone, {})).toMatchObject({ sending_capacity: null, sending_capacity_minutes: 30 });
    expect(await patchDevice(call, phone, { sending_capacity: 3, sending_capacity_minutes: 10 })).toMatchObject({
      sending_capacity: 3,
      sending_capacity_minutes: 10,
      paused_until: null,
    });
    // Before sending, the estimate of a send of 7 says what the send will say.
    const before = await call('GET', `/v1/devices/${phone.id}/estimate?recipients=7`);
    expect(before.status).toBe(200);
    expect((await readJson(before)).estimate).toEqual({
      device_id: phone.id,
      recipients: 7,
      ahead: 0,
      seconds_per_message: 200,
      paused_until: null,
      starts_at: iso(t0),
      finishes_at: iso(t0 + 7 * 200 * SECOND),
      duration_seconds: 1400,
    });
    const { batch, message_ids } = await send(call, numbers(7));
    // 600 s / 3 = 200 s per message: the capacity's steady rate, slower than the phone's 5 s.
    expect(batch.estimated_completion_at).toBe(iso(t0 + 7 * 200 * SECOND));
    // The phone's queue, and when it will be empty.
    expect((await patchDevice(call, phone, {})).queue_depth).toBe(7);
    const empty = (await readJson(await call('GET', `/v1/devices/${phone.id}/estimate`))).estimate;
    expect(empty).toMatchObject({ recipients: 0, ahead: 7, finishes_at: iso(t0 + 7 * 200 * SECOND) });
    expect((await call('GET', `/v1/devices/${phone.id}/estimate?recipients=-1`)).status).toBe(422);
    expect(await deadlines(batch.id)).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => t0 + HOUR + n * 200 * SECOND));

    expect(await outbox(phone)).toEqual(message_ids.slice(0, 3));
    await report(phone, message_ids.slice(0, 3));
    app.clock.advance(9 * MINUTE + 59 * SECOND);
    expect(await outbox(phone)).toEqual([]);
    app.clock.advance(2 * SECOND);
    expect(await outbox(phone)).toEqual(message_ids.slice(3, 6));

    // Out of range or of the wrong type is refused; null lifts it.
    for (const body of [{ sending_capacity: 0 }, { sending_capacity_minutes: 0 }, { sending_capacity_minutes: 1441 }]) {
      expect((await call('PATCH', `/v1/devices/${phone.id}`, body)).status).toBe(422);
    }
    await patchDevice(call, phone, { sending_capacity: null });
    expect(await outbox(phone)).toEqual(message_ids.slice(3));
  });

  it('hands out no more than max_sends_per_day in any trailing 24 hours, and the rest the next day', async () => {
    app.clock.set(start);
    const t0 = start.getTime();
    const { call, phone } = await sendingTenant(app);
    expect(await patchDevice(call, phone, { max_sends_per_day: 2 })).toMatchObject({
      max_sends_per_day: 2,
      max_sends_per_hour: null,
    });
    const { batch, message_ids } = await send(call, numbers(3));
    // 86,400 / 2 = 12 h per message: the estimate and the deadlines count the daily pace.
    expect(batch.estimated_completion_at).toBe(iso(t0 + 3 * 12 * HOUR));
    expect(await deadlines(batch.id)).toEqual([0, 1, 2].map((n) => t0 + HOUR + n * 12 * HOUR));

    expect(await outbox(phone)).toEqual(message_ids.slice(0, 2));
    expect((await report(phone, message_ids.slice(0, 2))).status).toBe(200);
    app.clock.advance(23 * HOUR);
    expect(await outbox(phone)).toEqual([]);
    app.clock.advance(HOUR - SECOND);
    expect(await outbox(phone)).toEqual([]);
    // A day after the first two were handed out: the third goes, well before its deadline.
    app.clock.advance(SECOND);
    expect(await outbox(phone)).toEqual(message_ids.slice(2));
  });

  it('holds a text the phone reports refused for Android’s limit, pauses its outbox, and places sends after it', async () => {
    app.clock.set(start);
    const t0 = start.getTime();
    const { call, phone } = await sendingTenant(app);
    await patchDevice(call, phone, { sending_capacity: 30 });
    const first = await send(call, numbers(3));
    const [sent, refused, held] = first.message_ids as string[];
    expect(await outbox(phone)).toEqual([sent, refused, held]);

    app.clock.advance(10 * SECOND);
    const res = await app.fetch(
      '/v1/device/messages/status',
      json(
        'POST',
        {
          reports: [
            { id: sent, status: 'sent' },
            { id: refused, status: 'failed', error_code: 'RESULT_ERROR_LIMIT_EXCEEDED', error_message: 'limit' },
          ],
        },
        bearer(phone.token),
      ),
    );
    expect(res.status).toBe(200);
    // Not failed, and not back to queued (no report moves a message backwards): held, still dispatched.
    const refusedRow = await app.orm.em.fork().findOneOrFail(Message, { id: refused });
    expect(refusedRow).toMatchObject({ status: 'dispatched', errorCode: null, failedAt: null });
    expect(refusedRow.heldAt).not.toBeNull();
    const pausedUntil = t0 + 10 * SECOND + 30 * MINUTE;
    const device = await patchDevice(call, phone, {});
    expect(device).toMatchObject({ paused_until: iso(pausedUntil), queue_depth: 2 });
    // Its deadline moved past the pause: the first of what waits, from the pause on.
    expect(refusedRow.staleAt!.getTime()).toBe(pausedUntil + HOUR);
    // Paused: nothing is handed out, not even what the phone holds.
    expect(await outbox(phone)).toEqual([]);

    // A send now is placed after the pause, behind the two waiting, and its estimate said so before.
    const before = (await readJson(await call('GET', `/v1/devices/${phone.id}/estimate?recipients=2`))).estimate;
    expect(before).toMatchObject({
      ahead: 2,
      paused_until: iso(pausedUntil),
      finishes_at: iso(pausedUntil + 4 * MINUTE),
    });
    const second = await send(call, numbers(2, 10));
    expect(second.batch.estimated_completion_at).toBe(iso(pausedUntil + 4 * MINUTE));
    expect(await deadlines(second.batch.id)).toEqual([2, 3].map((n) => pausedUntil + HOUR + n * MINUTE));

    // Cancelling the first send fails the held text too: it is not handed out again.
    expect((await call('POST', `/v1/batches/${first.batch.id}/cancel`)).status).toBe(200);
    expect((await app.orm.em.fork().findOneOrFail(Message, { id: refused })).status).toBe('failed');

    // The pause over, the held-back ones go again and the new ones with them.
    app.clock.set(new Date(pausedUntil + SECOND));
    expect(await outbox(phone)).toEqual([held, ...second.message_ids]);
  });

  it('never hands out more than the pace to concurrent fetches of one phone', async () => {
    app.clock.set(start);
    const { call, phone } = await sendingTenant(app);
    await patchDevice(call, phone, { max_sends_per_minute: 5 });
    await send(call, numbers(20));
    const fetched = await Promise.all(Array.from({ length: 6 }, () => outbox(phone, 500)));
    expect(new Set(fetched.flat()).size).toBe(5);
  });

  it('holds messages outside the send window and hands them out once it opens', async () => {
    // Friday 17:30 in Berlin (winter, UTC+1): open until 18:00, then closed until Monday 09:00.
    const friday = Date.UTC(2030, 0, 11, 16, 30);
    app.clock.set(new Date(friday));
    const { call, phone } = await sendingTenant(app);
    const device = await patchDevice(call, phone, {
      send_delay_seconds: 5,
      send_window: { timezone: 'europe/berlin', days: [5, 1, 2, 3, 4, 4], start: '09:00', end: '18:00' },
    });
    // Stored as the zone spells itself, each day once, Monday first.
    expect(device.send_window).toEqual({
      timezone: 'Europe/Berlin',
      days: [1, 2, 3, 4, 5],
      start: '09:00',
      end: '18:00',
    });

    const open = await send(call, numbers(1));
    expect(await outbox(phone)).toEqual(open.message_ids);

    // Friday 18:30 Berlin: closed. 200 messages × 10 s = 2000 s of sending, from Monday 09:00 (08:00 UTC).
    app.clock.set(new Date(Date.UTC(2030, 0, 11, 17, 30)));
    const held = await send(call, numbers(200, 10));
    const monday = Date.UTC(2030, 0, 14, 8, 0);
    // One message (sent Friday) is still waiting for its outcome, ahead of these.
    expect(held.batch.estimated_completion_at).toBe(iso(monday + 201 * 10 * SECOND));
    const stale = await deadlines(held.batch.id);
    // Held messages do not lapse over the weekend: their deadlines count from the opening.
    expect(stale[0]).toBe(monday + 1 * 10 * SECOND + HOUR);
    expect(stale[199]).toBe(monday + 200 * 10 * SECOND + HOUR);
    expect(await outbox(phone)).toEqual([]);

    app.clock.set(new Date(Date.UTC(2030, 0, 12, 12, 0)));
    expect(await outbox(phone)).toEqual([]);
    app.clock.set(new Date(monday - SECOND));
    expect(await outbox(phone)).toEqual([]);
    // Friday's message lapsed meanwhile (a text hours late is worse than none); the held ones go now.
    app.clock.set(new Date(monday));
    expect(await outbox(phone, 500)).toEqual(held.message_ids);
  });

  it('spreads a send that outlasts the window over the next open days', async () => {
    // Tuesday 17:00 UTC, window 09:00–17:30 UTC every day but Wednesday: half an hour left today.
    const tuesday = Date.UTC(2030, 0, 8, 17, 0);
    app.clock.set(new Date(tuesday));
    const { call, phone } = await sendingTenant(app);
    await patchDevice(call, phone, {
      max_sends_per_minute: 1,
      send_window: { timezone: 'UTC', days: [1, 2, 4, 5, 6, 7], start: '09:00', end: '17:30' },
    });
    const { batch } = await send(call, numbers(40));
    // 60 s each: 30 today (17:00–17:30), the other 10 Thursday from 09:00.
    const thursday = Date.UTC(2030, 0, 10, 9, 0);
    expect(batch.estimated_completion_at).toBe(iso(thursday + 10 * MINUTE));
    const stale = await deadlines(batch.id);
    expect(stale[29]).toBe(tuesday + 29 * MINUTE + HOUR);
    expect(stale[30]).toBe(thursday + HOUR);
    expect(stale[39]).toBe(thursday + 9 * MINUTE + HOUR);
  });

  it('puts a high-priority send ahead of a queued bulk send, and its estimate says so', async () => {
    app.clock.set(start);
    const t0 = start.getTime();
    const { call, phone } = await sendingTenant(app);
    await patchDevice(call, phone, { send_delay_seconds: 2, send_delay_jitter_seconds: 6 });
    // 2 s + 6 / 2 s (the jitter's mean) + 5 s = 10 s per message.
    const bulk = await send(call, numbers(50));
    expect(bulk.batch).toMatchObject({ priority: 'normal', ttl_seconds: null });
    expect(bulk.batch.estimated_completion_at).toBe(iso(t0 + 50 * 10 * SECOND));
    // The phone is working through the bulk send.
    expect(await outbox(phone, 5)).toEqual(bulk.message_ids.slice(0, 5));

    app.clock.advance(10 * SECOND);
    const t1 = t0 + 10 * SECOND;
    const code = await send(call, ['+14155559999'], { priority: 'high' });
    expect(code.batch).toMatchObject({ priority: 'high' });
    // No high-priority message ahead of it: first in line.
    expect(code.batch.estimated_completion_at).toBe(iso(t1 + 10 * SECOND));
    expect(await deadlines(code.batch.id)).toEqual([t1 + HOUR]);
    const later = await send(call, ['+14155559998']);
    // A normal send waits behind everything, the high-priority one included.
    expect(later.batch.estimated_completion_at).toBe(iso(t1 + 52 * 10 * SECOND));
    app.clock.advance(SECOND);
    const t2 = t1 + SECOND;
    const second = await send(call, ['+14155559997'], { priority: 'high' });
    expect(second.batch.estimated_completion_at).toBe(iso(t2 + 2 * 10 * SECOND));

    // Before the bulk send's next message: the five handed out come again, then the two codes.
    expect(await outbox(phone, 7)).toEqual([
      ...code.message_ids,
      ...second.message_ids,
      ...bulk.message_ids.slice(0, 5),
    ]);
    expect((await deviceRow(app.orm, phone.id)).queueDepthHigh).toBe(2);
    await report(phone, [...code.message_ids, ...second.message_ids], 'delivered');
    expect((await deviceRow(app.orm, phone.id)).queueDepthHigh).toBe(0);
    const third = await send(call, ['+14155559996'], { priority: 'high' });
    expect(third.batch.estimated_completion_at).toBe(iso(t2 + 10 * SECOND));
  });

  it('puts high priority first under a pace too', async () => {
    app.clock.set(start);
    const { call, phone } = await sendingTenant(app);
    await patchDevice(call, phone, { max_sends_per_minute: 2 });
    const bulk = await send(call, numbers(10));
    const code = await send(call, ['+14155559995'], { priority: 'high' });
    expect(await outbox(phone)).toEqual([...code.message_ids, bulk.message_ids[0]]);
  });

  it('hands out newest first with processing_order lifo, high priority still first', async () => {
    app.clock.set(start);
    const { call, phone } = await sendingTenant(app);
    expect(await patchDevice(call, phone, { processing_order: 'lifo' })).toMatchObject({ processing_order: 'lifo' });
    const older = await send(call, numbers(2));
    app.clock.advance(SECOND);
    const newer = await send(call, numbers(2, 10));
    app.clock.advance(SECOND);
    const code = await send(call, ['+14155559994'], { priority: 'high' });
    const newestFirst = [...code.message_ids, ...[...newer.message_ids].reverse(), ...[...older.message_ids].reverse()];
    expect(await outbox(phone, 3)).toEqual(newestFirst.slice(0, 3));
    // Handed out again in the same order, the rest after them.
    expect(await outbox(phone)).toEqual(newestFirst);

    const { call: fifoCall, phone: fifoPhone } = await sendingTenant(app);
    expect((await readJson(await fifoCall('GET', `/v1/devices/${fifoPhone.id}`))).device.processing_order).toBe('fifo');
    const first = await send(fifoCall, numbers(2));
    app.clock.advance(SECOND);
    const second = await send(fifoCall, numbers(2, 10));
    expect(await outbox(fifoPhone)).toEqual([...first.message_ids, ...second.message_ids]);
  });

  it('lapses a send at its ttl_seconds: the deadline is the earlier of the ttl and the stale window', async () => {
    app.clock.set(start);
    const t0 = start.getTime();
    const { call, phone } = await sendingTenant(app);
    await patchDevice(call, phone, { max_sends_per_minute: 1 });
    const short = await send(call, numbers(3), { ttl_seconds: 90 });
    expect(short.batch.ttl_seconds).toBe(90);
    expect(await deadlines(short.batch.id)).toEqual([t0 + 90 * SECOND, t0 + 90 * SECOND, t0 + 90 * SECOND]);
    app.clock.advance(SECOND);
    const long = await send(call, numbers(1, 10), { ttl_seconds: 2 * 3600 });
    // The stale window (1 h) is earlier than the ttl: it stays.
    expect(await deadlines(long.batch.id)).toEqual([t0 + SECOND + HOUR + 3 * MINUTE]);
    app.clock.set(start);

    expect(await outbox(phone)).toEqual(short.message_ids.slice(0, 1));
    app.clock.advance(61 * SECOND);
    expect(await outbox(phone)).toEqual(short.message_ids.slice(0, 2));
    // Past the ttl the rest is never handed out, the dispatched ones not again either.
    app.clock.advance(61 * SECOND);
    expect(await outbox(phone)).toEqual(long.message_ids);
  });

  it('counts a scheduled send’s ttl from its release', async () => {
    app.clock.set(start);
    const { call } = await sendingTenant(app);
    const at = start.getTime() + HOUR;
    const later = await send(call, numbers(2), { scheduled_at: iso(at), ttl_seconds: 300, priority: 'high' });
    expect(later.batch).toMatchObject({ status: 'scheduled', priority: 'high', ttl_seconds: 300 });
    expect(await deadlines(later.batch.id)).toEqual([null, null]);
    app.clock.set(new Date(at));
    await app.services.batchProgress.release(later.batch.id);
    expect(await deadlines(later.batch.id)).toEqual([at + 300 * SECOND, at + 300 * SECOND]);
  });

  it('refuses bad pacing values and bad sends with 422, changing nothing', async () => {
    app.clock.set(start);
    const { call, phone } = await sendingTenant(app);
    const bad = async (body: Record<string, unknown>, fields: string[]) => {
      const res = await call('PATCH', `/v1/devices/${phone.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await readJson(res)).errors.map((e: { field: string }) => e.field).sort()).toEqual(fields);
    };
    await bad({ max_sends_per_minute: -1, max_sends_per_hour: 0, send_delay_jitter_seconds: -5 }, [
      'body.max_sends_per_hour',
      'body.max_sends_per_minute',
      'body.send_delay_jitter_seconds',
    ]);
    await bad({ max_sends_per_minute: 2.5, send_delay_jitter_seconds: 3601 }, [
      'body.max_sends_per_minute',
      'body.send_delay_jitter_seconds',
    ]);
    const window = { timezone: 'Europe/Berlin', days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' };
    await bad({ send_window: { ...window, timezone: 'Mars/Olympus_Mons' } }, ['body.send_window.timezone']);
    await bad({ send_window: { ...window, timezone: '+01:00' } }, ['body.send_window.timezone']);
    await bad({ send_window: { ...window, start: '25:00', end: '9:00' } }, [
      'body.send_window.end',
      'body.send_window.start',
    ]);
    await bad({ send_window: { ...window, start: '18:00', end: '09:00' } }, ['body.send_window.end']);
    await bad({ send_window: { ...window, days: [] } }, ['body.send_window.days']);
    await bad({ send_window: { ...window, days: [0, 8] } }, ['body.send_window.days[0]', 'body.send_window.days[1]']);
    await bad({ send_window: { days: [1] } }, [
      'body.send_window.end',
      'body.send_window.start',
      'body.send_window.timezone',
    ]);
    await bad({ send_window: 'weekdays' }, ['body.send_window']);
    await bad({ max_sends_per_day: 0, sim_selection: 'RoundRobin', processing_order: 'newest' }, [
      'body.max_sends_per_day',
      'body.processing_order',
      'body.sim_selection',
    ]);
    expect((await readJson(await call('GET', `/v1/devices/${phone.id}`))).device).toMatchObject({
      max_sends_per_minute: null,
      max_sends_per_hour: null,
      max_sends_per_day: null,
      send_delay_jitter_seconds: 0,
      send_window: null,
      sim_selection: 'os_default',
      processing_order: 'fifo',
    });

    const badSend = async (extra: Record<string, unknown>, field: string) => {
      const res = await call('POST', '/v1/messages', { body: 'x', to: ['+14155550100'], ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect((await readJson(res)).errors.map((e: { field: string }) => e.field)).toEqual([field]);
    };
    await badSend({ ttl_seconds: 0 }, 'body.ttl_seconds');
    await badSend({ ttl_seconds: -60 }, 'body.ttl_seconds');
    await badSend({ ttl_seconds: 8 * 86_400 }, 'body.ttl_seconds');
    await badSend({ priority: 'urgent' }, 'body.priority');
    expect((await readJson(await call('GET', '/v1/batches'))).data).toEqual([]);
  });

  it('lets the phone set its own pace and window, and clears them with null', async () => {
    app.clock.set(start);
    const { call, phone } = await sendingTenant(app);
    const res = await app.fetch(
      '/v1/device',
      json(
        'PATCH',
        {
          max_sends_per_hour: 30,
          send_delay_jitter_seconds: 20,
          send_window: { timezone: 'America/New_York', days: [6, 7], start: '10:00', end: '24:00' },
        },
        bearer(phone.token),
      ),
    );
    expect(res.status).toBe(200);
    expect((await readJson(res)).device).toMatchObject({
      max_sends_per_hour: 30,
      max_sends_per_minute: null,
      send_delay_jitter_seconds: 20,
      send_window: { timezone: 'America/New_York', days: [6, 7], start: '10:00', end: '24:00' },
    });
    // A PATCH without them leaves them; null clears them.
    expect(await patchDevice(call, phone, { name: 'Shop' })).toMatchObject({
      max_sends_per_hour: 30,
      send_window: { days: [6, 7] },
    });
    expect(await patchDevice(call, phone, { send_window: null, max_sends_per_hour: null })).toMatchObject({
      max_sends_per_hour: null,
      send_window: null,
      send_delay_jitter_seconds: 20,
    });
  });
});

describe('ttl_seconds with the batch workflow', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;

  beforeAll(async () => {
    stack = await startWorkflowStack({ env: { STALE_WINDOW: '1h', TEMPORAL_TASK_QUEUE: 'pacing-test' } });
    ({ env, app } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** The API's clock follows the test server's, which time skipping moves. */
  async function syncClock() {
    app.clock.set(new Date(await env.currentTimeMs()));
  }

  it('makes a send’s messages unknown on time at its ttl, queued or dispatched, and never hands them out after', async () => {
    await syncClock();
    const { call, phone, account } = await sendingTenant(app);
    await patchDevice(call, phone, { max_sends_per_minute: 1 });
    const { batch, message_ids } = await send(call, numbers(3), { ttl_seconds: 120 });
    const fetch = async () =>
      (await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }))).data.map(
        (row: { id: string }) => row.id,
      );
    expect(await fetch()).toEqual([message_ids[0]]);
    const statuses = async () =>
      (await readJson(await call('GET', `/v1/batches/${batch.id}`))).messages.map((m: { status: string }) => m.status);

    await env.sleep('100 seconds');
    await syncClock();
    expect(await statuses()).toEqual(['dispatched', 'queued', 'queued']);
    // Room for one more under the pace, and before the ttl.
    expect(await fetch()).toEqual(message_ids.slice(0, 2));

    await env.sleep('60 seconds');
    // Within the batch workflow's wake gap of the deadline, long before the stale window's hour.
    await expect.poll(statuses).toEqual(['unknown', 'unknown', 'unknown']);
    await syncClock();
    expect(await fetch()).toEqual([]);
    expect((await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch).toMatchObject({
      status: 'completed',
      unknown_count: 3,
      dispatched_count: 0,
    });
    expect((await eventsOf(app, account.userId)).filter((e) => e.name === 'message.unknown')).toHaveLength(3);
    expect((await deviceRow(app.orm, phone.id)).queueDepth).toBe(0);
  });
});

describe('Android’s limit with the batch workflow', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;

  // A stale window shorter than Android's 30-minute pause: a text placed as if the phone were not
  // paused would lapse before the phone could send it.
  beforeAll(async () => {
    stack = await startWorkflowStack({ env: { STALE_WINDOW: '10m', TEMPORAL_TASK_QUEUE: 'pacing-limit-test' } });
    ({ env, app } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** The API's clock follows the test server's, which time skipping moves. */
  async function syncClock() {
    app.clock.set(new Date(await env.currentTimeMs()));
  }

  it('places a scheduled send released while its phone is paused for Android’s limit after the pause', async () => {
    await syncClock();
    const t0 = app.clock.now().getTime();
    const { call, phone, account } = await sendingTenant(app);
    // Android's 30 texts per 30 minutes: a minute a text.
    await patchDevice(call, phone, { sending_capacity: 30 });
    const outbox = async (): Promise<string[]> =>
      (await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }))).data.map(
        (row: { id: string }) => row.id,
      );
    const first = await send(call, numbers(1));
    const [refused] = first.message_ids as string[];
    expect(await outbox()).toEqual([refused]);
    // The phone reports the text refused for Android's limit, as the SMSGate app does.
    const res = await app.fetch(
      '/v1/device/messages/status',
      json(
        'POST',
        {
          reports: [
            { id: refused, status: 'failed', error_code: 'RESULT_ERROR_LIMIT_EXCEEDED', error_message: 'limit' },
          ],
        },
        bearer(phone.token),
      ),
    );
    expect(res.status).toBe(200);
    const pausedUntil = t0 + 30 * MINUTE;
    expect(await patchDevice(call, phone, {})).toMatchObject({ paused_until: iso(pausedUntil), queue_depth: 1 });

    // Scheduled for 10 minutes in, 20 minutes before the pause ends.
    const later = await send(call, numbers(3, 10), { scheduled_at: iso(t0 + 10 * MINUTE) });
    expect(later.batch).toMatchObject({ status: 'scheduled' });
    const detail = async () => readJson(await call('GET', `/v1/batches/${later.batch.id}`));
    await env.sleep('10 minutes');
    await expect.poll(async () => (await detail()).batch.status).toBe('queued');
    // Placed from the pause on, behind the held text, a minute a text; its deadlines likewise.
    expect((await detail()).batch.estimated_completion_at).toBe(iso(pausedUntil + 4 * MINUTE));
    const deadlines = (
      await app.orm.em.fork().find(Message, { batchId: later.batch.id }, { orderBy: { position: 'asc' } })
    ).map((m) => m.staleAt?.getTime());
    expect(deadlines).toEqual([1, 2, 3].map((n) => pausedUntil + 10 * MINUTE + n * MINUTE));
    await syncClock();
    expect(await outbox()).toEqual([]);

    // A minute before the pause ends, past where deadlines counted from the release would have lapsed:
    // still paused, and none of it unknown.
    await env.sleep(pausedUntil - MINUTE - (await env.currentTimeMs()));
    await syncClock();
    expect(await outbox()).toEqual([]);
    const waiting = await detail();
    expect(waiting.messages.map((m: { status: string }) => m.status)).toEqual(['queued', 'queued', 'queued']);
    expect(waiting.batch).toMatchObject({ status: 'queued', unknown_count: 0 });

    // The pause over, the held text goes again and the scheduled ones with it.
    await env.sleep(pausedUntil + SECOND - (await env.currentTimeMs()));
    await syncClock();
    expect(await outbox()).toEqual([refused, ...later.message_ids]);
    expect((await detail()).batch).toMatchObject({ dispatched_count: 3, unknown_count: 0 });
    expect((await eventsOf(app, account.userId)).filter((e) => e.name === 'message.unknown')).toEqual([]);
  });
});
