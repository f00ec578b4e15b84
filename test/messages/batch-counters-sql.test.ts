import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, sql } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import type { BatchStatus } from '../../src/messages/batch.entity';
import { batchesRepository } from '../../src/messages/batches.repository';
import type { BatchCounter } from '../../src/messages/transitions';
import { startTestApp, type TestApp } from '../support/app';
import { sendingTenant } from './helpers';

// A batch's counters move and its status follows in one statement (batchesRepository.addToCounters),
// whose status rule is SQL; a batch settled from its counts as they are (outcomes.settleBatch, after a
// release or a sweep) takes the rule in TypeScript (releasedBatchStatus). For every status and every
// count of a batch of three, and every move of one message, the statement must leave the status,
// completion time and error that settleBatch leaves a twin batch already holding those counts.
type Counts = Record<BatchCounter, number>;
const COUNTERS: BatchCounter[] = ['dispatched_count', 'sent_count', 'delivered_count', 'failed_count', 'unknown_count'];
const STATUSES: BatchStatus[] = ['scheduled', 'queued', 'sending', 'completed', 'failed'];
const RECIPIENTS = 3;

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

describe('the batch counters statement and settleBatch, on every count of a batch of three', () => {
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
});

const camel = (c: BatchCounter) =>
  c.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase()) as 'dispatchedCount';
