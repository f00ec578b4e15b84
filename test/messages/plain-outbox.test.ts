import { RequestContext } from '@mikro-orm/postgresql';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { query, sql } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import type { ProcessingOrder } from '../../src/devices/device.entity';
import { outboxRepository } from '../../src/messages/outbox.repository';
import { startTestApp, type TestApp } from '../support/app';
import { sendingTenant } from './helpers';

// The one-statement fetch of a plain phone (outboxRepository.takePlainOutbox) against the fetch in a
// transaction (which every fetch inside a transaction takes), on the same outboxes: two accounts alike
// in everything, one fetching outside a transaction, the other inside one, at the same instant. Each
// fetch must hand out the same messages in the same order and leave the same messages, batches and
// phone; a phone the statement does not fit (paced, a send window, paused, a SIM to choose, handed
// out newest first) must be left to the transaction with nothing written.
type Tenant = Awaited<ReturnType<typeof sendingTenant>>;

describe('the one-statement fetch and the fetch in a transaction, on the same outboxes', () => {
  let app: TestApp;
  let fast: Tenant;
  let slow: Tenant;
  beforeAll(async () => {
    app = await startTestApp();
    [fast, slow] = [await sendingTenant(app), await sendingTenant(app)];
  });
  afterAll(() => app?.close());
  afterEach(() => vi.restoreAllMocks());

  const fetch = (tenant: Tenant, limit: number, order: ProcessingOrder | undefined, inTransaction: boolean) =>
    RequestContext.create(app.orm.em, () =>
      inTransaction
        ? transaction(app.orm.em, () => app.services.phoneMessages.outbox(tenant.phone.id, limit, order))
        : app.services.phoneMessages.outbox(tenant.phone.id, limit, order),
    );

  const strip = <T extends Record<string, unknown>>(row: T) => {
    // A held text's new attempt gets a send id of its own on each account.
    const { id: _id, userId: _u, deviceId: _d, batchId: _b, sendId: _s, ...rest } = row;
    return rest;
  };

  /** The account's messages, batches and phone, without what differs by account. */
  async function written(tenant: Tenant) {
    const em = app.orm.em.fork();
    const userId = tenant.account.userId;
    const messages = await query(
      em,
      sql`select * from messages where user_id = ${userId} order by created_at, priority, position`,
    );
    const batches = await query(em, sql`select * from batches where user_id = ${userId} order by created_at`);
    const [phone] = await query(
      em,
      sql`select queue_depth, queue_depth_high, sent_count, sim_rotation, paused_until from devices where id = ${tenant.phone.id}`,
    );
    return { messages: messages.map(strip), batches: batches.map(strip), phone };
  }

  /** The same change on both accounts, at the same instant. */
  async function onBoth(change: (tenant: Tenant) => Promise<unknown>) {
    app.clock.advance(1000);
    for (const tenant of [fast, slow]) await change(tenant);
  }

  const send = (body: Record<string, unknown>) =>
    onBoth(async (tenant) => {
      const res = await tenant.call('POST', '/v1/messages', {
        body: 'Your code is 1234',
        device_id: tenant.phone.id,
        ...body,
      });
      expect(res.status).toBe(202);
    });
  const setPhone = (columns: ReturnType<typeof sql>) =>
    onBoth((tenant) => query(app.orm.em.fork(), sql`update devices set ${columns} where id = ${tenant.phone.id}`));
  const report = (status: string, errorCode?: string) =>
    onBoth(async (tenant) => {
      const [first] = await query<{ id: string }>(
        app.orm.em.fork(),
        sql`select id from messages where user_id = ${tenant.account.userId} and status = 'dispatched'
             order by created_at, position limit 1`,
      );
      await app.services.outcomes.report(tenant.phone.id, [
        { id: first.id, status: status as 'sent', at: app.clock.now(), ...(errorCode ? { errorCode } : {}) },
      ]);
    });

  /** A fetch by both; which path the fast account's took. */
  async function fetchBoth(limit: number, order?: ProcessingOrder) {
    app.clock.advance(1000);
    // The statement's own effect: what the fast account holds before and right after it runs.
    const take = outboxRepository.takePlainOutbox.bind(outboxRepository);
    const around: Array<{ fits: boolean; handedOut: number; before: unknown; after: unknown }> = [];
    const statement = vi.spyOn(outboxRepository, 'takePlainOutbox').mockImplementation(async (...args) => {
      const before = await written(fast);
      const result = await take(...args);
      around.push({ fits: result.fits, handedOut: result.moves.length, before, after: await written(fast) });
      return result;
    });
    const viaStatement = { fetched: (await fetch(fast, limit, order, false)).map(strip), ...(await written(fast)) };
    const path = around.length === 1 && around[0].fits ? 'one statement' : 'declined';
    // Declined, it hands out nothing and writes nothing: the transaction decides alone.
    for (const call of around.filter((c) => !c.fits)) {
      expect(call.handedOut).toBe(0);
      expect(call.after).toStrictEqual(call.before);
    }
    const viaTransaction = { fetched: (await fetch(slow, limit, order, true)).map(strip), ...(await written(slow)) };
    // Inside a transaction the statement is not even tried.
    expect(statement).toHaveBeenCalledTimes(around.length);
    return { viaStatement, viaTransaction, path };
  }

  const steps: Array<
    [string, () => Promise<unknown>, number, ProcessingOrder | undefined, 'one statement' | 'declined', number]
  > = [
    ['an empty outbox', async () => {}, 10, undefined, 'one statement', 0],
    [
      'part of a send of three',
      () => send({ to: ['+14155550101', '+14155550102', '+14155550103'] }),
      2,
      undefined,
      'one statement',
      2,
    ],
    ['what it holds again, and the rest', async () => {}, 10, undefined, 'one statement', 3],
    [
      'high priority first, after a report',
      async () => {
        await report('sent');
        await send({ to: ['+14155550104'] });
        await send({ to: ['+14155550105', '+14155550106'], priority: 'high' });
      },
      10,
      undefined,
      'one statement',
      5,
    ],
    [
      'newest first when the fetch asks',
      () => send({ to: ['+14155550107', '+14155550108'] }),
      6,
      'lifo',
      'one statement',
      6,
    ],
    [
      'a phone that hands out newest first',
      () => setPhone(sql`processing_order = 'lifo'`),
      3,
      undefined,
      'declined',
      3,
    ],
    [
      'a paced phone',
      async () => {
        await setPhone(sql`processing_order = 'fifo', max_sends_per_minute = 100`);
        await send({ to: ['+14155550109'] });
      },
      10,
      undefined,
      'declined',
      8,
    ],
    [
      'a phone with a send window',
      () =>
        setPhone(
          sql`max_sends_per_minute = null, send_window = '{"days":[1,2,3,4,5,6,7],"start":"00:00","end":"24:00","timezone":"UTC"}'`,
        ),
      10,
      undefined,
      'declined',
      8,
    ],
    [
      'a phone that chooses SIMs',
      () => setPhone(sql`send_window = null, sim_selection = 'round_robin'`),
      10,
      undefined,
      'declined',
      8,
    ],
    [
      'a phone paused for the platform’s limit',
      async () => {
        await setPhone(sql`sim_selection = 'os_default'`);
        await report('failed', 'RESULT_ERROR_LIMIT_EXCEEDED');
      },
      10,
      undefined,
      'declined',
      0,
    ],
    [
      'the held text as a new attempt once the pause is over',
      async () => {
        const [{ pausedUntil }] = await query<{ pausedUntil: string }>(
          app.orm.em.fork(),
          sql`select paused_until from devices where id = ${fast.phone.id}`,
        );
        app.clock.set(new Date(new Date(pausedUntil).getTime() + 1000));
      },
      10,
      undefined,
      'one statement',
      8,
    ],
  ];

  it.each(steps)('%s', async (_name, before, limit, order, path, count) => {
    await before();
    const fetched = await fetchBoth(limit, order);
    expect(fetched.viaStatement).toStrictEqual(fetched.viaTransaction);
    expect(fetched.path).toBe(path);
    expect(fetched.viaStatement.fetched).toHaveLength(count);
  });

  it('counts each message handed out once when fetches of one phone run at once', async () => {
    const tenant = await sendingTenant(app);
    const to = Array.from({ length: 12 }, (_, i) => `+1415555${String(300 + i).padStart(4, '0')}`);
    expect((await tenant.call('POST', '/v1/messages', { body: 'At once', to })).status).toBe(202);
    const statement = vi.spyOn(outboxRepository, 'takePlainOutbox');
    const pages = await Promise.all(Array.from({ length: 4 }, () => fetch(tenant, 5, undefined, false)));
    expect(statement).toHaveBeenCalledTimes(4);
    expect(pages.flat().length).toBeGreaterThanOrEqual(5);
    const [counts] = await query<{ dispatchedCount: number; status: string; dispatched: number }>(
      app.orm.em.fork(),
      sql`select b.dispatched_count, b.status,
                 (select count(*)::int from messages m where m.batch_id = b.id and m.status = 'dispatched') as dispatched
            from batches b where b.user_id = ${tenant.account.userId}`,
    );
    expect(counts.dispatchedCount).toBe(counts.dispatched);
    expect(counts.dispatched).toBe(new Set(pages.flat().map((m) => m.id)).size);
    expect(counts.status).toBe('sending');
  });
});
