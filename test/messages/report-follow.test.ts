import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createNotifier } from '../../src/db/listen-notify';
import { query, sql } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import { DRAINED_CHANNEL } from '../../src/devices/phone-channel';
import { createLogger } from '../../src/lib/logger';
import { installTracing, type Tracing } from '../../src/traces/tracing';
import { json } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { bearer } from '../devices/helpers';
import { eventsOf, sendingTenant } from './helpers';

// What follows a report's moves (outcomes.follow): the batches' counters and statuses, the phones'
// counts, the events and, when the report handed back what the phone held, the notice that it
// drained, in one statement (batchesRepository.addToCounters), the phones' rows locked after the
// batches'. The statements a request ran are read from its trace (its SQL spans, kept in memory).

describe("what follows a report, in its batches' statement", () => {
  let app: TestApp;
  let tenant: Awaited<ReturnType<typeof sendingTenant>>;
  const notices: string[] = [];
  let unsubscribe: () => Promise<void>;
  const spans = new InMemorySpanExporter();
  let tracing: Tracing;
  beforeAll(async () => {
    tracing = (await installTracing({ serviceName: 'report-follow', spanProcessor: new SimpleSpanProcessor(spans) }))!;
    app = await startTestApp({ tracing });
    tenant = await sendingTenant(app);
    const notifier = createNotifier({ orm: app.orm, logger: createLogger('silent') });
    unsubscribe = await notifier.subscribe(DRAINED_CHANNEL, (id) => notices.push(id));
  });
  afterAll(async () => {
    await unsubscribe?.();
    await app?.close();
    await tracing?.shutdown();
  });

  const em = () => app.orm.em.fork();
  let numbered = 1000;
  const send = async (): Promise<{ batch: string; message: string }> => {
    const res = await tenant.call('POST', '/v1/messages', { body: 'Follow', to: [`+1415555${numbered++}`] });
    expect(res.status).toBe(202);
    const body = await readJson(res);
    return { batch: body.batch.id, message: body.message_ids[0] };
  };
  const fetchOne = async () => {
    const res = await app.fetch('/v1/device/outbox?limit=1', { headers: bearer(tenant.phone.token) });
    expect(res.status).toBe(200);
    return ((await readJson(res)).data as { id: string }[]).map((m) => m.id);
  };
  const report = (reports: { id: string; status: string }[]) =>
    app.fetch('/v1/device/messages/status', json('POST', { reports }, bearer(tenant.phone.token)));
  /** The statements of the last report request, in order: each span's name and its SQL. */
  const statementsOfLastReport = () => {
    const all = spans.getFinishedSpans();
    const request = all.filter((s) => s.attributes['http.route'] === '/v1/device/messages/status').at(-1)!;
    return all
      .filter((s) => s.spanContext().traceId === request.spanContext().traceId && s.attributes['db.statement'])
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
      .map((s) => ({ name: s.name, statement: String(s.attributes['db.statement']) }));
  };
  const phoneCounts = async () =>
    (
      await query<{ queueDepth: number; sentCount: number }>(
        em(),
        sql`select queue_depth, sent_count from devices where id = ${tenant.phone.id}`,
      )
    )[0];
  const batchOf = async (id: string) =>
    (
      await query<{ status: string; sentCount: number }>(
        em(),
        sql`select status, sent_count from batches where id = ${id}`,
      )
    )[0];
  /** Every notice so far, once a marker sent after the report has come back (notices arrive in commit order). */
  let marks = 0;
  const noticesSoFar = async () => {
    const marker = `marker-${marks++}`;
    await query(em(), sql`select pg_notify(${DRAINED_CHANNEL}, ${marker})`);
    await expect.poll(() => notices.includes(marker)).toBe(true);
    return notices.splice(0).filter((n) => !n.startsWith('marker-'));
  };

  // Each case starts with the phone holding nothing and nothing waiting.
  afterEach(async () => {
    const res = await app.fetch('/v1/device/outbox?limit=100', { headers: bearer(tenant.phone.token) });
    const left = (await readJson(res)).data as { id: string }[];
    if (left.length > 0) expect((await report(left.map(({ id }) => ({ id, status: 'sent' })))).status).toBe(200);
  });

  it("moves the phone's counts and tells it that it drained in the statement that counts its batch", async () => {
    await noticesSoFar();
    const first = await send();
    expect(await fetchOne()).toStrictEqual([first.message]);
    const second = await send();
    const before = await phoneCounts();
    expect((await report([{ id: first.message, status: 'sent' }])).status).toBe(200);
    // From the moves on (the phone's credential is looked up before them unless remembered).
    const statements = statementsOfLastReport();
    const moves = statements.findIndex((s) => s.name === 'WITH UPDATE messages');
    expect(statements.slice(moves).map((s) => s.name)).toStrictEqual([
      'WITH UPDATE messages',
      'WITH UPDATE batches, UPDATE devices, INSERT events', // and the notice
      'SELECT json_to_recordset', // the webhooks the events reach
    ]);
    expect(statements[moves + 1].statement).toContain('pg_notify');
    expect(await eventsOf(app, tenant.account.userId)).toContainEqual({
      name: 'message.sent',
      message_id: first.message,
    });
    expect(await batchOf(first.batch)).toStrictEqual({ status: 'completed', sentCount: 1 });
    expect(await phoneCounts()).toStrictEqual({
      queueDepth: before.queueDepth - 1,
      sentCount: before.sentCount + 1,
    });
    // The phone holds nothing now and the second send waits: it is told to fetch.
    expect(await noticesSoFar()).toStrictEqual([tenant.phone.id]);
    expect(await fetchOne()).toStrictEqual([second.message]);
    expect((await report([{ id: second.message, status: 'sent' }])).status).toBe(200);
    // Nothing waits any more: no notice.
    expect(await noticesSoFar()).toStrictEqual([]);
  });

  it("locks the phone's row after its batch's, as every transaction that takes both does", async () => {
    const first = await send();
    expect(await fetchOne()).toStrictEqual([first.message]);
    let reported: Promise<Response> | undefined;
    // Another transaction holds the batch: the report waits for it in the statement that counts it.
    await transaction(em(), async (holder) => {
      const [{ pid }] = await query<{ pid: number }>(
        holder,
        sql`select pg_backend_pid() as pid from batches where id = ${first.batch} for update`,
      );
      reported = report([{ id: first.message, status: 'sent' }]);
      await expect
        .poll(async () =>
          query(em(), sql`select 1 from pg_stat_activity where ${pid}::int = any(pg_blocking_pids(pid))`),
        )
        .toHaveLength(1);
      // Meanwhile the phone's row is free.
      const [phone] = await query<{ id: string }>(
        holder,
        sql`select id from devices where id = ${tenant.phone.id} for no key update nowait`,
      );
      expect(phone.id).toBe(tenant.phone.id);
    });
    expect((await reported!).status).toBe(200);
    expect(await batchOf(first.batch)).toStrictEqual({ status: 'completed', sentCount: 1 });
  });

  it('tells the phone when the last round of a report moves nothing', async () => {
    await noticesSoFar();
    const first = await send();
    expect(await fetchOne()).toStrictEqual([first.message]);
    await send();
    // The same report twice takes rounds; the second round moves nothing, and the phone is told then.
    const res = await report([
      { id: first.message, status: 'sent' },
      { id: first.message, status: 'sent' },
    ]);
    expect(res.status).toBe(200);
    expect(await noticesSoFar()).toStrictEqual([tenant.phone.id]);
  });

  it('tells nothing when the report hands nothing back', async () => {
    await noticesSoFar();
    const first = await send();
    expect(await fetchOne()).toStrictEqual([first.message]);
    await send();
    expect((await report([{ id: first.message, status: 'sent' }])).status).toBe(200);
    expect(await noticesSoFar()).toStrictEqual([tenant.phone.id]);
    // Delivered after sent: the message had left the phone's hands already.
    expect((await report([{ id: first.message, status: 'delivered' }])).status).toBe(200);
    expect(await batchOf(first.batch)).toStrictEqual({ status: 'completed', sentCount: 0 });
    expect(await noticesSoFar()).toStrictEqual([]);
  });
});
