import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage } from '../http/pagination';
import { query, sql, toDate, type Sql } from '../db/sql';
import { Batch, type BatchStatus, type Priority } from './batch.entity';
import type { Deadlines } from './outbox';
import { staleAtOf, unevenOf } from './sends.repository';
import type { BatchCounter, BatchCounts } from './transitions';

// A send's batch: its counters and status, cancelling, a scheduled one's release, and the
// reconciler's look for batches whose workflow never started.

/** What a batch's workflow start needs of its row (src/messages/batch-starts.ts). */
export interface BatchStart {
  id: string;
  userId: string;
  deviceId: string;
  scheduledAt: Date | null;
  createdAt: Date;
  ttlSeconds: number | null;
  /** Every message is final already (opted out, cancelled, the last one reported): the workflow ends at once. */
  settled: boolean;
}

/** Statements that go with a batches' count, in its statement (a round trip each saved). */
export interface AlsoAfterCounting {
  /**
   * Writes that follow the batches' (each gets a condition to add, which makes it wait for them);
   * a null write is none.
   */
  after?: Array<(afterCounting: Sql) => Sql | null>;
  /** A select run for its effect (a NOTIFY). */
  select?: Sql;
}

/** Of a batch's failed messages, those a person withdrew: cancelled, or to a number that opted out. */
export interface Withdrawn {
  cancelledCount: number;
  optedOutCount: number;
}

/**
 * A batch as the API shows it: with how many of its failed messages were withdrawn, not lost, and
 * the send that retries its failed texts, if one does.
 */
export type ShownBatch = Batch & Withdrawn & { retriedBy: string | null };

const COUNTERS: BatchCounter[] = ['dispatched_count', 'sent_count', 'delivered_count', 'failed_count', 'unknown_count'];

/** A batch's completion time and error as it takes `status` (null: its status does not change). */
const finalFields = (status: Sql, now: Date): Sql =>
  sql`completed_at = case when ${status} in ('completed', 'failed') then coalesce(b.completed_at, ${now}) else b.completed_at end,
      error = case when ${status} = 'failed'
                   then coalesce(b.error, case when b.cancelled_at is not null then 'The send was cancelled.'
                                               else 'Every message failed.' end)
                   else b.error end`;

export const batchesRepository = {
  getBatch: (em: EntityManager, userId: string, id: string) => em.findOne(Batch, { id, userId }),

  listBatches: (em: EntityManager, userId: string, page: { cursor?: string; limit: number }) =>
    findPage(em, Batch, { userId }, { cursor: page.cursor, limit: page.limit, order: 'desc' }),

  /** The account's batches' withdrawn messages (on messages_withdrawn_idx), by batch id; none: no entry. */
  async withdrawnOf(em: EntityManager, userId: string, batchIds: string[]): Promise<Map<string, Withdrawn>> {
    if (batchIds.length === 0) return new Map();
    const rows = await query<Withdrawn & { batchId: string }>(
      em,
      sql`select batch_id, count(*) filter (where error_code = 'cancelled')::int as cancelled_count,
                 count(*) filter (where error_code = 'opted_out')::int as opted_out_count
            from messages
           where batch_id = any(${batchIds}::uuid[]) and user_id = ${userId}
             and status = 'failed' and error_code in ('cancelled', 'opted_out')
           group by batch_id`,
    );
    return new Map(rows.map(({ batchId, ...counts }) => [batchId, counts]));
  },

  /** The sends that retry these batches' failed texts, by the batch each retries; none: no entry. */
  async retriesOf(em: EntityManager, userId: string, batchIds: string[]): Promise<Map<string, string>> {
    if (batchIds.length === 0) return new Map();
    const rows = await query<{ id: string; retryOf: string }>(
      em,
      sql`select id, retry_of from batches where retry_of = any(${batchIds}::uuid[]) and user_id = ${userId}`,
    );
    return new Map(rows.map((row) => [row.retryOf, row.id]));
  },

  /**
   * The batch's texts that failed on their way (not cancelled, not to an opted-out number), in the
   * order they were given: what a retry sends again.
   */
  failedToRetry: (em: EntityManager, userId: string, batchId: string) =>
    query<{ recipient: string; body: string }>(
      em,
      sql`select recipient, body from messages
           where batch_id = ${batchId} and user_id = ${userId} and status = 'failed'
             and coalesce(error_code, '') not in ('cancelled', 'opted_out')
           order by position`,
    ),

  /**
   * Marks the account's batch cancelled (the first time) unless it is final, locking it for the rest
   * of the cancel; undefined when it is final or not the account's (`batchStatusOf` tells which).
   */
  async markCancelled(tx: EntityManager, userId: string, batchId: string, now: Date) {
    const [row] = await query<{ status: BatchStatus; createdAt: string }>(
      tx,
      sql`update batches set cancelled_at = coalesce(cancelled_at, ${now}), updated_at = ${now}
           where id = ${batchId} and user_id = ${userId} and status not in ('completed', 'failed')
          returning status, created_at`,
    );
    return row ? { status: row.status, createdAt: toDate(row.createdAt)! } : undefined;
  },

  async batchStatusOf(em: EntityManager, userId: string, batchId: string): Promise<BatchStatus | undefined> {
    const [row] = await query<{ status: BatchStatus }>(
      em,
      sql`select status from batches where id = ${batchId} and user_id = ${userId}`,
    );
    return row?.status;
  },

  /**
   * Moves batches' counters by per-counter deltas and sets the status their counts then imply, in one
   * statement; with no deltas (`{}`), settles a batch from its counts as they are. The one rule of a
   * batch's status: a final batch keeps its status, a scheduled one too until nothing is left to send;
   * else it is final once every message is sent, delivered, failed or unknown (failed when every one
   * failed), sending once any was handed out, queued before. A batch whose counters and status stay
   * as they were is not written. Returns each batch written: its counts and status after, and its
   * status before. `also`: the writes and the select that follow a count, run in its statement.
   */
  async addToCounters(
    tx: EntityManager,
    deltas: Map<string, Partial<Record<BatchCounter, number>>>,
    now: Date,
    also: AlsoAfterCounting = {},
  ): Promise<Array<BatchCounts & { statusBefore: BatchStatus }>> {
    const after = (also.after ?? [])
      .map((write) => write(sql`(select count(*) from counted) >= 0`))
      .filter((write): write is Sql => write !== null);
    if (deltas.size === 0 && after.length === 0 && !also.select) return [];
    const column = (c: BatchCounter) => sql.identifier(c);
    const entries = [...deltas.entries()];
    const arrays = COUNTERS.map((c) => sql`${entries.map(([, d]) => Math.trunc(d[c] ?? 0))}::int[]`);
    const settled = sql`n.sent_count + n.delivered_count + n.failed_count + n.unknown_count`;
    // Locked first (in id order, as an UPDATE would lock them: no key update), so the counts and the
    // status are computed from the row as it is now. What runs after reads `counted`, so it waits for
    // the batches' locks (batches before phones, as everywhere); the select is read before the rows,
    // so it runs even when no batch is written (a CTE nothing reads does not run).
    const rows = await query<BatchCounts & { statusBefore: BatchStatus }>(
      tx,
      sql`with n as (select b.id, b.status, b.recipient_count,
                            ${sql.join(COUNTERS.map((c) => sql`b.${column(c)} + v.${column(c)} as ${column(c)}`))},
                            ${sql.join(
                              COUNTERS.map((c) => sql`v.${column(c)} <> 0`),
                              sql` or `,
                            )} as counted
                       from batches b
                       join unnest(${entries.map(([id]) => id)}::uuid[], ${sql.join(arrays)})
                            as v (id, ${sql.join(COUNTERS.map(column))}) on v.id = b.id
                      order by b.id
                        for no key update of b),
               s as (select n.*, case when n.status in ('completed', 'failed') then n.status
                                      when ${settled} = n.recipient_count
                                        then case when n.failed_count = n.recipient_count then 'failed' else 'completed' end
                                      when n.status = 'scheduled' then n.status
                                      when ${settled} + n.dispatched_count > 0 then 'sending'
                                      else 'queued' end as next_status
                       from n),
               counted as (
          update batches b set ${sql.join(COUNTERS.map((c) => sql`${column(c)} = s.${column(c)}`))},
                 status = s.next_status, updated_at = ${now}, ${finalFields(sql`nullif(s.next_status, s.status)`, now)}
            from s where b.id = s.id and (s.counted or s.next_status <> s.status)
          returning b.id, b.user_id, b.device_id, b.status, s.status as status_before, b.recipient_count,
                    ${sql.join(COUNTERS.map((c) => sql`b.${column(c)}`))})
               ${sql.join(
                 after.map((write, i) => sql`, ${sql.identifier(`after_counting_${i}`)} as (${write})`),
                 sql``,
               )}
               ${also.select ? sql`, selected as (${also.select})` : sql``}
          select counted.* from ${
            also.select ? sql`(select count(*) from selected) notified left join counted on true` : sql`counted`
          }`,
      { prepared: true },
    );
    return rows.filter((row) => row.id != null);
  },

  /**
   * The batches' side of messages handed out, for a statement's CTE: `moved` has each message's
   * batch_id and old_status. Each one that was queued is one more dispatched and makes a queued batch
   * sending: what addToCounters makes of such moves, as no final count changes.
   */
  dispatchedFrom: (moved: Sql, now: Date): Sql =>
    sql`update batches b set dispatched_count = b.dispatched_count + c.n, updated_at = ${now},
               status = case when b.status = 'queued' then 'sending' else b.status end
          from (select batch_id, count(*)::int as n from ${moved}
                 where old_status = 'queued' and batch_id is not null group by batch_id) as c
         where b.id = c.batch_id`,

  /** Locks a scheduled batch for its release; null when it is not (or no longer) scheduled. */
  async lockScheduled(
    tx: EntityManager,
    batchId: string,
  ): Promise<{ deviceId: string; queued: number; priority: Priority; ttlSeconds: number | null } | null> {
    const [batch] = await query<{
      deviceId: string;
      status: BatchStatus;
      priority: Priority;
      ttlSeconds: number | null;
    }>(tx, sql`select device_id, status, priority, ttl_seconds from batches where id = ${batchId} for update`);
    if (!batch || batch.status !== 'scheduled') return null;
    const [{ queued }] = await query<{ queued: number }>(
      tx,
      sql`select count(*)::int as queued from messages where batch_id = ${batchId} and status = 'queued'`,
    );
    return { deviceId: batch.deviceId, queued, priority: batch.priority, ttlSeconds: batch.ttlSeconds };
  },

  /** A released batch's queued messages take their places from `sendableAt`, with their deadlines. */
  async place(
    tx: EntityManager,
    batchId: string,
    placement: { sendableAt: Date; deadlines: Deadlines; estimate: Date },
  ): Promise<void> {
    const { deadlines } = placement;
    const staleAt = staleAtOf(sql`p.n`, sql`s.at`, sql`${deadlines.firstStaleAt}::timestamptz`, deadlines);
    await query(
      tx,
      sql`with placed as (
         update messages m set available_at = ${placement.sendableAt}, stale_at = ${staleAt}
           from (select id, row_number() over (order by position) as n from messages
                  where batch_id = ${batchId} and status = 'queued') p
           left join unnest(${unevenOf(deadlines)}::float8[]) with ordinality as s (at, k) on s.k = p.n
          where m.id = p.id
         returning 1)
       update batches set status = 'queued', estimated_completion_at = ${placement.estimate}, updated_at = ${placement.sendableAt}
        where id = ${batchId}`,
    );
  },

  /** What is still open in a batch: how many, and its earliest stale deadline. */
  async openDeadlines(tx: EntityManager, batchId: string) {
    const [row] = await query<{ pending: number; next: string | null }>(
      tx,
      sql`select count(*)::int as pending, min(stale_at) as next from messages
           where batch_id = ${batchId} and status in ('queued', 'dispatched')`,
    );
    return { pending: row.pending, next: toDate(row.next) };
  },

  async batchStatusAndDevice(em: EntityManager, batchId: string) {
    const [row] = await query<{ status: BatchStatus; deviceId: string }>(
      em,
      sql`select status, device_id from batches where id = ${batchId}`,
    );
    return row;
  },

  async unstartedBatches(em: EntityManager, before: Date, limit: number): Promise<BatchStart[]> {
    const rows = await query<{
      id: string;
      scheduledAt: string | null;
      userId: string;
      deviceId: string;
      createdAt: string;
      ttlSeconds: number | null;
      status: BatchStatus;
    }>(
      em,
      sql`select id, scheduled_at, user_id, device_id, created_at, ttl_seconds, status
            from batches where workflow_started_at is null and created_at < ${before}
           order by created_at limit ${limit}`,
    );
    return rows.map((row) => ({
      id: row.id,
      scheduledAt: toDate(row.scheduledAt),
      userId: row.userId,
      deviceId: row.deviceId,
      createdAt: toDate(row.createdAt)!,
      ttlSeconds: row.ttlSeconds,
      settled: row.status === 'completed' || row.status === 'failed',
    }));
  },

  async markBatchesStarted(em: EntityManager, ids: string[], at: Date): Promise<void> {
    await query(
      em,
      sql`update batches set workflow_started_at = ${at}
           where id = any(${ids}::uuid[]) and workflow_started_at is null`,
      { prepared: true },
    );
  },
};
