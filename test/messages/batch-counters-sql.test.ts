import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, sql } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import type { BatchStatus } from '../../src/messages/batch.entity';
import { batchesRepository } from '../../src/messages/batches.repository';
import type { BatchCounter } from '../../src/messages/transitions';
import { startTestApp, type TestApp } from '../support/app';
import { sendingTenant } from './helpers';

// A batch's counters move and its status follows in one statement (batchesRepository.addToCounters);
// a batch settled from its counts as they are (outcomes.settleBatch, after a release or a sweep) is
// the same statement with nothing to add. For every status and every count of a batch of three, and
// every move of one message, the move must leave the status the rule below gives, and the status,
// completion time and error that settleBatch leaves a twin batch already holding the counts after.
type Counts = Record<BatchCounter, number>;
const COUNTERS: BatchCounter[] = ['dispatched_count', 'sent_count', 'delivered_count', 'failed_count', 'unknown_count'];
const STATUSES: BatchStatus[] = ['scheduled', 'queued', 'sending', 'completed', 'failed'];
const RECIPIENTS = 3;

/**
 * A batch's status once its counts are these: a final one keeps its status, a scheduled one too until
 * nothing is left to send; else final once every message is settled (failed when every one failed),
 * sending once any was handed out, queued before.
 */
function statusOf(status: BatchStatus, counts: Counts): BatchStatus {
  if (status === 'completed' || status === 'failed') return status;
  const settled = counts.sent_count + counts.delivered_count + counts.failed_count + counts.unknown_count;
  if (settled === RECIPIENTS) return counts.failed_count === RECIPIENTS ? 'failed' : 'completed';
  if (status === 'scheduled') return status;
  return settled + counts.dispatched_count > 0 ? 'sending' : 'queued';
}

// One message's moves: the counter it leaves (none while queued) and the one it joins.
const MOVES: Array<[BatchCounter | null, BatchCounter]> = [
  [null, 'dispatched_count'],
  [null, 'failed_count'],
  ['dispatched_count', 'sent_count'],
  ['dispatched_count', 'failed_count'],
  ['dispatched_count', 'unknown_count'],
  ['sent_count', 'delivered_count'],
  ['unknown_count', 'delivered_count'],
];

/** Every count of a batch of three: each message queued or in one counter. */
function allCounts(): Counts[] {
  const out: Counts[] = [];
  const walk = (i: number, left: number, counts: Counts) => {
    if (i === COUNTERS.length) return out.push({ ...counts });
    for (let n = 0; n <= left; n++) walk(i + 1, left - n, { ...counts, [COUNTERS[i]]: n });
  };
  walk(0, RECIPIENTS, {} as Counts);
  return out;
}

describe("a batch's counters and status, on every count of a batch of three", () => {
  let app: TestApp;
  let moved: string;
  let twin: string;
  beforeAll(async () => {
    app = await startTestApp();
    const tenant = await sendingTenant(app);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await tenant.call('POST', '/v1/messages', {
        body: 'Counts',
        to: ['+14155550101', '+14155550102', '+14155550103'],
      });
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { batch: { id: string } }).batch.id);
    }
    [moved, twin] = ids;
  });
  afterAll(() => app?.close());

  const em = () => app.orm.em.fork();
  const setBatch = (id: string, status: BatchStatus, counts: Counts, cancelled: boolean) =>
    query(
      em(),
      sql`update batches set status = ${status}, completed_at = null, error = null,
                 cancelled_at = ${cancelled ? app.clock.now() : null},
                 ${sql.join(COUNTERS.map((c) => sql`${sql.identifier(c)} = ${counts[c]}`))}
           where id = ${id}`,
    );
  const outcome = async (id: string) => {
    const [row] = await query<{ status: string; completedAt: unknown; error: string | null }>(
      em(),
      sql`select status, completed_at, error from batches where id = ${id}`,
    );
    return row;
  };
  const version = async (id: string) =>
    (await query<{ v: string }>(em(), sql`select xmin::text || updated_at::text as v from batches where id = ${id}`))[0]
      .v;

  it.each(STATUSES)('from %s', async (status) => {
    let cases = 0;
    for (const before of allCounts())
      for (const [from, to] of MOVES) {
        if (from && before[from] === 0) continue;
        const queued = RECIPIENTS - COUNTERS.reduce((sum, c) => sum + before[c], 0);
        if (!from && queued === 0) continue;
        const delta: Partial<Counts> = { [to]: 1, ...(from ? { [from]: -1 } : {}) };
        const after = { ...before, ...Object.fromEntries(COUNTERS.map((c) => [c, before[c] + (delta[c] ?? 0)])) };
        const cancelled = cases % 2 === 1;
        app.clock.advance(1000);
        await setBatch(moved, status, before, cancelled);
        await setBatch(twin, status, after, cancelled);
        const [row] = await transaction(em(), (tx) =>
          batchesRepository.addToCounters(tx, new Map([[moved, delta]]), app.clock.now()),
        );
        await transaction(em(), (tx) => app.services.outcomes.settleBatch(tx, twin));
        const label = `${status} ${JSON.stringify(before)} + ${JSON.stringify(delta)}`;
        expect({ label, status: (await outcome(moved)).status }).toStrictEqual({
          label,
          status: statusOf(status, after),
        });
        expect({ label, ...(await outcome(moved)) }).toStrictEqual({ label, ...(await outcome(twin)) });
        expect({ label, before: row.statusBefore, counts: COUNTERS.map((c) => row[camel(c)]) }).toStrictEqual({
          label,
          before: status,
          counts: COUNTERS.map((c) => after[c]),
        });
        cases++;
      }
    expect(cases).toBeGreaterThan(50);
  });

  it.each(STATUSES)('settling a batch %s whose counts imply no change writes nothing', async (status) => {
    let cases = 0;
    for (const counts of allCounts()) {
      if (statusOf(status, counts) !== status) continue;
      await setBatch(twin, status, counts, false);
      const before = await version(twin);
      app.clock.advance(1000);
      const final = await transaction(em(), (tx) => app.services.outcomes.settleBatch(tx, twin));
      expect({ counts, final, version: await version(twin) }).toStrictEqual({ counts, final: false, version: before });
      cases++;
    }
    expect(cases).toBeGreaterThan(0);
  });
});

const camel = (c: BatchCounter) =>
  c.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase()) as 'dispatchedCount';
