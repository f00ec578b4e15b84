import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Device } from '../../src/devices/device.entity';
import { Message } from '../../src/messages/message.entity';
import { outboxRepository } from '../../src/messages/outbox.repository';
import { query, sql, type Sql } from '../../src/db/sql';
import { reportsRepository } from '../../src/messages/reports.repository';
import { transaction } from '../../src/db/transaction';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, type PairedPhone } from '../devices/helpers';
import { sendingTenant } from './helpers';

// A phone's outbox as the design doc defines it: each message's stale deadline is its sendable time
// + STALE_WINDOW + its position in the phone's outbox × (send_delay_seconds + 5 s), and a batch's
// estimated completion is its sendable time + (messages ahead + its own) × (send_delay_seconds + 5 s).
// The queue is everything released and not yet final on that phone.

const HOUR = 3_600_000;
const PER_MESSAGE_MS = (3 + 5) * 1000;

describe("a phone's outbox: positions, stale deadlines and estimates", () => {
  let app: TestApp;
  // Now, not a fixed date: scheduled_at is checked against the wall clock (in the future, within 7 days).
  const start = new Date();

  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(start), env: { STALE_WINDOW: '1h' } });
  });
  afterAll(() => app?.close());

  async function tenant() {
    const { account, call, phone } = await sendingTenant(app);
    expect((await call('PATCH', `/v1/devices/${phone.id}`, { send_delay_seconds: 3 })).status).toBe(200);
    return { account, call, phone };
  }

  const send = async (call: (m: string, p: string, b?: unknown) => Promise<Response>, to: string[], extra = {}) => {
    const res = await call('POST', '/v1/messages', { body: 'Queue', to, ...extra });
    expect(res.status).toBe(202);
    return readJson(res);
  };

  /** What storage says of a batch's messages (the deadlines are not part of the API's resources). */
  const placed = async (batchId: string) =>
    (await app.orm.em.fork().find(Message, { batchId }, { orderBy: { position: 'asc' } })).map((message) => ({
      available: ms(message.availableAt),
      stale: ms(message.staleAt),
    }));
  const ms = (at: Date | null | undefined) => (at == null ? null : at.getTime());

  /** The queue counter a send reads, beside what a count of the queue says. */
  const depth = async (phone: PairedPhone) => {
    const em = app.orm.em.fork();
    const kept = (await em.findOneOrFail(Device, { id: phone.id })).queueDepth;
    const counted = await em.count(Message, {
      deviceId: phone.id,
      direction: 'outbound',
      status: { $in: ['queued', 'dispatched'] },
      staleAt: { $ne: null },
    });
    return { kept, counted };
  };

  const reportMany = (phone: PairedPhone, reports: unknown[]) =>
    app.fetch('/v1/device/messages/status', json('POST', { reports }, bearer(phone.token)));

  it('places each send behind what is already waiting, and frees places as outcomes arrive', async () => {
    app.clock.set(start);
    const { call, phone } = await tenant();
    const t0 = start.getTime();

    const a = await send(call, ['+14155550201', '+14155550202', '+14155550203']);
    expect(a.batch.estimated_completion_at).toBe(new Date(t0 + 3 * PER_MESSAGE_MS).toISOString());
    expect(await placed(a.batch.id)).toEqual(
      [0, 1, 2].map((position) => ({ available: t0, stale: t0 + HOUR + position * PER_MESSAGE_MS })),
    );

    app.clock.advance(10_000);
    const t1 = t0 + 10_000;
    const b = await send(call, ['+14155550204', '+14155550205']);
    // Three messages ahead of it on the phone.
    expect(b.batch.estimated_completion_at).toBe(new Date(t1 + 5 * PER_MESSAGE_MS).toISOString());
    expect(await placed(b.batch.id)).toEqual(
      [3, 4].map((position) => ({ available: t1, stale: t1 + HOUR + position * PER_MESSAGE_MS })),
    );
    expect(await depth(phone)).toEqual({ kept: 5, counted: 5 });

    // The phone takes all five; outcomes for three of them free their places (dispatched ones keep theirs).
    const outbox = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }));
    expect(outbox.data.map((row: { id: string }) => row.id)).toEqual([...a.message_ids, ...b.message_ids]);
    expect(await depth(phone)).toEqual({ kept: 5, counted: 5 });
    const res = await reportMany(phone, [
      { id: a.message_ids[0], status: 'delivered' },
      { id: a.message_ids[1], status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' },
      { id: b.message_ids[0], status: 'sent' },
    ]);
    expect(res.status).toBe(200);
    expect(await depth(phone)).toEqual({ kept: 2, counted: 2 });

    app.clock.advance(20_000);
    const t2 = t1 + 20_000;
    const c = await send(call, ['+14155550206']);
    expect(c.batch.estimated_completion_at).toBe(new Date(t2 + 3 * PER_MESSAGE_MS).toISOString());
    expect(await placed(c.batch.id)).toEqual([{ available: t2, stale: t2 + HOUR + 2 * PER_MESSAGE_MS }]);
    expect(await depth(phone)).toEqual({ kept: 3, counted: 3 });
  });

  it('gives a scheduled send no place until it is released, then places it behind the queue', async () => {
    app.clock.set(start);
    const { call, phone } = await tenant();
    await send(call, ['+14155550211', '+14155550212']);
    const later = await send(call, ['+14155550213', '+14155550214', '+14155550215'], {
      scheduled_at: new Date(start.getTime() + HOUR).toISOString(),
    });
    expect(later.batch).toMatchObject({ status: 'scheduled', estimated_completion_at: null });
    expect(await placed(later.batch.id)).toEqual([0, 1, 2].map(() => ({ available: null, stale: null })));
    expect(await depth(phone)).toEqual({ kept: 2, counted: 2 });
    // Not due: the phone does not see it.
    const early = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }));
    expect(early.data).toHaveLength(2);

    app.clock.set(new Date(start.getTime() + HOUR));
    const t = start.getTime() + HOUR;
    await app.services.batchProgress.release(later.batch.id);
    expect(await placed(later.batch.id)).toEqual(
      [2, 3, 4].map((position) => ({ available: t, stale: t + HOUR + position * PER_MESSAGE_MS })),
    );
    const { batch } = await readJson(await call('GET', `/v1/batches/${later.batch.id}`));
    expect(batch).toMatchObject({
      status: 'queued',
      estimated_completion_at: new Date(t + 5 * PER_MESSAGE_MS).toISOString(),
    });
    expect(await depth(phone)).toEqual({ kept: 5, counted: 5 });
    // Released twice (a retried activity): nothing moves.
    await app.services.batchProgress.release(later.batch.id);
    expect(await depth(phone)).toEqual({ kept: 5, counted: 5 });
  });

  it('frees the places of messages that fail when their phone is disabled, and of lapsed ones', async () => {
    app.clock.set(start);
    const { call, phone } = await tenant();
    const first = await send(call, ['+14155550221', '+14155550222']);
    // One is handed out (it stays in the queue until reported), the other stays queued.
    await app.fetch('/v1/device/outbox?limit=1', { headers: bearer(phone.token) });
    expect((await call('PATCH', `/v1/devices/${phone.id}`, { enabled: false })).status).toBe(200);
    expect(await depth(phone)).toEqual({ kept: 1, counted: 1 });

    app.clock.set(new Date(start.getTime() + 2 * HOUR));
    await app.services.batchProgress.sweep(first.batch.id);
    expect(await depth(phone)).toEqual({ kept: 0, counted: 0 });
    const { messages } = await readJson(await call('GET', `/v1/batches/${first.batch.id}`));
    expect(messages.map((m: { status: string }) => m.status)).toEqual(['unknown', 'failed']);
  });

  it("reads a batch's open messages through the batch's own index when it sweeps or cancels", async () => {
    app.clock.set(start);
    const { call } = await tenant();
    const { batch } = await send(call, ['+14155550241', '+14155550242']);
    const plans = await transaction(app.orm.em.fork(), async (tx) => {
      // The planner's choice among indexes, as on a table too large to read whole.
      await query(tx, sql`set local enable_seqscan = off`);
      const explain = (where: Sql) =>
        query(
          tx,
          sql`explain (format json) select id from messages where status in ('queued', 'dispatched') and ${where}`,
        );
      return [
        await explain(reportsRepository.lapsedIn(batch.id, start)),
        await explain(reportsRepository.queuedIn(batch.id)),
      ];
    });
    for (const plan of plans) expect(JSON.stringify(plan)).toContain('messages_batch_idx');
  });

  it('asks whether a phone holds handed-out messages of those alone, not of its whole queue', async () => {
    app.clock.set(start);
    const { call, phone } = await tenant();
    await send(call, ['+14155550231', '+14155550232', '+14155550233']);
    await app.fetch('/v1/device/outbox?limit=1', { headers: bearer(phone.token) });
    const plan = await transaction(app.orm.em.fork(), async (tx) => {
      // The planner's choice among indexes, as on a table too large to read whole.
      await query(tx, sql`set local enable_seqscan = off`);
      return query(tx, sql`explain (format json) select ${outboxRepository.leased(sql`${phone.id}::uuid`, start)}`);
    });
    expect(JSON.stringify(plan)).toContain('messages_leased_idx');
    const leases = await outboxRepository.leases(app.orm.em.fork(), [phone.id], start);
    expect(leases.get(phone.id)?.leased).toBe(true);
  });
});
