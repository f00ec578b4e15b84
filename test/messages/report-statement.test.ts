import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, sql } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import type { MessageStatus } from '../../src/messages/message.entity';
import { reportsRepository, type StatusChange } from '../../src/messages/reports.repository';
import { reportMoves, type ReportedStatus } from '../../src/messages/transitions';
import { startTestApp, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { sendingTenant } from './helpers';

// A phone's reports of distinct messages are applied in one statement (reportsRepository.applyReports:
// lock, move, answer); any other report set takes the long way (lockOwned, reportMoves in TypeScript,
// applyChanges). For every status a message can be in, every reported status, and every way a report
// names the attempt, the statement must leave a message as the long way leaves its twin, and say
// which moved, and from where.

const STATUSES: MessageStatus[] = ['queued', 'dispatched', 'unknown', 'sent', 'delivered', 'failed'];
const REPORTED: ReportedStatus[] = ['sent', 'delivered', 'failed'];
/** How a report names the attempt: not at all, by the message's send id, or by an older attempt's. */
const ATTEMPTS = ['none', 'open', 'other'] as const;
type Report = StatusChange & { sendId?: string };

describe('reports of distinct messages, in one statement', () => {
  let app: TestApp;
  let tenant: Awaited<ReturnType<typeof sendingTenant>>;
  beforeAll(async () => {
    app = await startTestApp();
    tenant = await sendingTenant(app);
  });
  afterAll(() => app?.close());

  const em = () => app.orm.em.fork();
  /** Messages of a send to the tenant's phone, each id once. */
  let numbered = 1000;
  const messages = async (count: number): Promise<string[]> => {
    const to = Array.from({ length: count }, () => `+1415555${numbered++}`);
    const res = await tenant.call('POST', '/v1/messages', { body: 'Reports', to });
    expect(res.status).toBe(202);
    return ((await readJson(res)) as { message_ids: string[] }).message_ids;
  };
  const setMessage = (id: string, status: MessageStatus, sendId: string | null) =>
    query(
      em(),
      sql`update messages set status = ${status}, send_id = ${sendId}::uuid, sent_at = null, delivered_at = null,
                 failed_at = null, error_code = 'before', error_message = 'before'
           where id = ${id}`,
    );
  const stateOf = async (id: string) => {
    const [row] = await query<Record<string, unknown>>(
      em(),
      sql`select status, dispatched_at, sent_at, delivered_at, failed_at, error_code, error_message, updated_at
            from messages where id = ${id}`,
    );
    return row;
  };
  /** The long way, for one report: lock, decide in TypeScript, apply. */
  const longWay = (report: Report) =>
    transaction(em(), async (tx) => {
      const [message] = await reportsRepository.lockOwned(tx, tenant.phone.id, [report.id]);
      if (!message) return { found: false, from: null };
      const open = report.sendId === undefined || report.sendId === (message.sendId ?? message.id);
      if (!open || !reportMoves(message.status, report.status as ReportedStatus)) return { found: true, from: null };
      const { sendId: _, ...change } = report;
      await reportsRepository.applyChanges(tx, [change], app.clock.now());
      return { found: true, from: message.status };
    });
  const oneStatement = async (report: Report) => {
    const { moved, unmoved } = await transaction(em(), (tx) =>
      reportsRepository.applyReports(tx, tenant.phone.id, [report], app.clock.now()),
    );
    return { found: moved.length + unmoved.length === 1, from: moved[0]?.from ?? null };
  };

  it('moves each message as the long way moves its twin', async () => {
    const [one, twin] = await messages(2);
    let cases = 0;
    for (const status of STATUSES)
      for (const reported of REPORTED)
        for (const attempt of ATTEMPTS)
          for (const withError of [false, true]) {
            // Send ids are unique: each twin its own, or both none.
            const sendIds = cases % 2 === 0 ? { [one]: randomUUID(), [twin]: randomUUID() } : {};
            await setMessage(one, status, sendIds[one] ?? null);
            await setMessage(twin, status, sendIds[twin] ?? null);
            app.clock.advance(1000);
            const at = app.clock.now();
            const named = (id: string) =>
              attempt === 'none' ? undefined : attempt === 'open' ? (sendIds[id] ?? id) : randomUUID();
            const error = withError ? { errorCode: 'RESULT_ERROR_NO_SERVICE', errorMessage: null } : {};
            const label = `${status} <- ${reported}, attempt ${attempt}, send id ${sendIds[one] ? 'set' : 'none'}, error ${withError}`;
            const byStatement = await oneStatement({ id: one, status: reported, at, sendId: named(one), ...error });
            const byLongWay = await longWay({ id: twin, status: reported, at, sendId: named(twin), ...error });
            expect({ label, ...byStatement, ...(await stateOf(one)) }).toStrictEqual({
              label,
              ...byLongWay,
              ...(await stateOf(twin)),
            });
            cases++;
          }
    expect(cases).toBe(STATUSES.length * REPORTED.length * ATTEMPTS.length * 2);
  });

  it("answers another phone's message and an unknown id with nothing, and moves neither", async () => {
    const other = await sendingTenant(app);
    const res = await other.call('POST', '/v1/messages', { body: 'Theirs', to: ['+14155550999'] });
    const [theirs] = ((await readJson(res)) as { message_ids: string[] }).message_ids;
    await setMessage(theirs, 'dispatched', null);
    const before = await stateOf(theirs);
    const { moved, unmoved } = await transaction(em(), (tx) =>
      reportsRepository.applyReports(
        tx,
        tenant.phone.id,
        [
          { id: theirs, status: 'delivered', at: app.clock.now() },
          { id: randomUUID(), status: 'delivered', at: app.clock.now() },
        ],
        app.clock.now(),
      ),
    );
    expect({ moved, unmoved, after: await stateOf(theirs) }).toStrictEqual({ moved: [], unmoved: [], after: before });
  });

  it('takes two reports of the same messages at once, in opposite orders, and moves each message once', async () => {
    const ids = await messages(40);
    for (const id of ids) await setMessage(id, 'dispatched', null);
    const report = (order: string[], status: ReportedStatus) =>
      transaction(em(), (tx) =>
        reportsRepository.applyReports(
          tx,
          tenant.phone.id,
          order.map((id) => ({ id, status, at: app.clock.now() })),
          app.clock.now(),
        ),
      );
    const [first, second] = await Promise.all([report(ids, 'sent'), report([...ids].reverse(), 'sent')]);
    // Whichever came second found every message sent already: nothing moves twice.
    expect([first.moved.length + second.moved.length, first.unmoved.length + second.unmoved.length]).toEqual([40, 40]);
    const statuses = await query<{ status: string; n: number }>(
      em(),
      sql`select status, count(*)::int as n from messages where id = any(${ids}::uuid[]) group by status`,
    );
    expect(statuses).toEqual([{ status: 'sent', n: 40 }]);
  });
});
