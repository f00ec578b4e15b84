import { RequestContext } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { query, sql } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import type { SendBody } from '../../src/messages/messages.schemas';
import { sendsRepository } from '../../src/messages/sends.repository';
import { startTestApp, type TestApp } from '../support/app';
import { sendingTenant } from './helpers';

// The one-statement send (src/messages/one-statement-send.ts) against its slow path, the send in one
// transaction (src/messages/transaction-send.ts, which every send inside a transaction takes), on the same
// sends: two accounts alike in everything, one sending each input outside a transaction, the other
// the same input inside one, at the same instant. Each must leave the same batch, messages, usage and
// queue counts, or refuse with the same error.
const SUPPRESSED = '+14155550199';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('the one-statement send and the send in a transaction, on the same sends', () => {
  let fast: { userId: string; deviceId: string };
  let slow: { userId: string; deviceId: string };
  beforeAll(async () => {
    // The free plan: 10 recipients a send, 50 a day, so its refusals are in reach.
    const [a, b] = [await sendingTenant(app, { plan: 'free' }), await sendingTenant(app, { plan: 'free' })];
    fast = { userId: a.account.userId, deviceId: a.phone.id };
    slow = { userId: b.account.userId, deviceId: b.phone.id };
    // One number on both suppression lists: the one statement declines a send to it.
    for (const tenant of [a, b]) {
      expect((await tenant.call('POST', '/v1/opt-outs', { phone_number: SUPPRESSED })).status).toBe(201);
    }
  });
  afterEach(() => vi.restoreAllMocks());

  const send = (userId: string, input: SendBody, inTransaction: boolean) =>
    RequestContext.create(app.orm.em, () =>
      inTransaction
        ? transaction(app.orm.em, () => app.services.messages.send(userId, input))
        : app.services.messages.send(userId, input),
    );

  /** What a send left behind, without what differs by account (ids, the account, its phone). */
  async function written(tenant: { userId: string; deviceId: string }, batchId?: string) {
    const em = app.orm.em.fork();
    const strip = <T extends Record<string, unknown>>(row: T) => {
      const { id: _id, userId: _u, deviceId: _d, batchId: _b, ...rest } = row;
      return rest;
    };
    const batches = batchId ? await query(em, sql`select * from batches where id = ${batchId}`) : [];
    const messages = batchId
      ? await query(em, sql`select * from messages where batch_id = ${batchId} order by position`)
      : [];
    const [usage] = await query(
      em,
      sql`select day, sent_day, month, sent_month from account_usage where user_id = ${tenant.userId}`,
    );
    const [queue] = await query(
      em,
      sql`select queue_depth, queue_depth_high from devices where id = ${tenant.deviceId}`,
    );
    return { batch: batches.map(strip), messages: messages.map(strip), usage, queue };
  }

  async function outcome(tenant: { userId: string; deviceId: string }, input: SendBody, inTransaction: boolean) {
    try {
      const { batch, messageIds } = await send(tenant.userId, input, inTransaction);
      expect(messageIds).toHaveLength(batch.recipientCount);
      const { id: _id, userId: _u, deviceId: _d, ...rest } = batch;
      return { accepted: rest, ...(await written(tenant, batch.id)) };
    } catch (error) {
      return { refused: refusalOf(error), ...(await written(tenant)) };
    }
  }

  /** A refusal as the client sees it. */
  const refusalOf = (error: unknown) => {
    const { name, message, code, status, errors } = error as Record<string, unknown>;
    return { name, message, code, status, errors };
  };

  const body = (overrides: Partial<SendBody>): SendBody =>
    ({ body: 'Your code is 1234', to: ['+14155550101'], encrypted: false, ...overrides }) as SendBody;
  const numbers = (n: number, from = 200) =>
    Array.from({ length: n }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`);

  // Each send with the path the fast account takes: its one statement, or (when the statement
  // declines) the transaction. Later sends queue behind the earlier ones: their places follow.
  const sends: [string, SendBody, 'one statement' | 'declined' | 'refused'][] = [
    ['one recipient', body({}), 'one statement'],
    ['a recipient repeated', body({ to: ['+14155550102', '+14155550102', '+14155550103'] }), 'one statement'],
    ['high priority', body({ to: numbers(3), priority: 'high' }), 'one statement'],
    ['a ttl shorter than the stale window', body({ to: numbers(4, 300), ttl_seconds: 60 }), 'one statement'],
    ['an unknown SIM', body({ sim_subscription_id: 7 }), 'one statement'],
    ['a long text in two segments, not GSM', body({ body: 'Привет! '.repeat(12) }), 'one statement'],
    [
      'encrypted',
      body({ to: ['Y2lwaGVyLTE=', 'Y2lwaGVyLTI='], body: 'Y2lwaGVydGV4dA==', encrypted: true }),
      'one statement',
    ],
    ['over the plan’s batch limit', body({ to: numbers(11, 400) }), 'refused'],
    ['a suppressed recipient among others', body({ to: [SUPPRESSED, '+14155550104'] }), 'declined'],
    ['ten at once', body({ to: numbers(10, 500) }), 'one statement'],
    ['ten more', body({ to: numbers(10, 600), priority: 'high' }), 'one statement'],
    ['ten more again', body({ to: numbers(10, 700) }), 'one statement'],
    ['over the daily limit', body({ to: numbers(10, 800) }), 'refused'],
  ];

  it.each(sends)('%s', async (_name, input, path) => {
    // The same instant for both: created_at, the deadlines and the estimate follow from it.
    app.clock.advance(1000);
    const statement = vi.spyOn(sendsRepository, 'acceptSend');
    const viaStatement = await outcome(fast, input, false);
    const calls = statement.mock.results.map((result) => result.value as Promise<{ device: boolean }>);
    const tookStatement = calls.length === 1 && (await calls[0]).device;
    const viaTransaction = await outcome(slow, input, true);
    expect(statement).toHaveBeenCalledTimes(calls.length);

    expect(viaStatement).toStrictEqual(viaTransaction);
    expect('refused' in viaStatement ? 'refused' : tookStatement ? 'one statement' : 'declined').toBe(path);
  });
});

describe("one process's sends to one phone", () => {
  it('wait in the process while one of them waits for the phone, not in Postgres, and all go through', async () => {
    const locked = await sendingTenant(app);
    const other = await sendingTenant(app);
    const holder = new pg.Client({ connectionString: app.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from devices where id = $1 for update', [locked.phone.id]);
      const [{ pid }] = (await holder.query('select pg_backend_pid() as pid')).rows;
      // Statements waiting behind the holder: on its lock, or queued on the row behind one that is.
      // (Inside a transaction pg_stat_activity is read once unless its snapshot is cleared.)
      const waiting = async () => {
        await holder.query('select pg_stat_clear_snapshot()');
        const { rows } = await holder.query(
          `select count(*)::int as n from pg_stat_activity
            where pg_blocking_pids(pid) && (array[$1::int] || array(select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))))`,
          [pid],
        );
        return rows[0].n as number;
      };
      const sends = ['+14155550301', '+14155550302', '+14155550303'].map((to) =>
        locked.call('POST', '/v1/messages', { body: 'In turn', to: [to] }),
      );
      await expect.poll(waiting).toBe(1);
      // A send to another phone goes through meanwhile; the other two wait for the first.
      expect((await other.call('POST', '/v1/messages', { body: 'Elsewhere', to: ['+14155550304'] })).status).toBe(202);
      expect(await waiting()).toBe(1);

      await holder.query('commit');
      expect((await Promise.all(sends)).map((res) => res.status)).toEqual([202, 202, 202]);
      const [queue] = await query(
        app.orm.em.fork(),
        sql`select queue_depth from devices where id = ${locked.phone.id}`,
      );
      expect(queue).toEqual({ queueDepth: 3 });
    } finally {
      await holder.end();
    }
  });
});
