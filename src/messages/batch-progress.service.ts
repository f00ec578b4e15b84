import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../lib/clock';
import type { BatchSweep } from '../../workflows/definitions';
import { Batch } from './batch.entity';
import type { Effects, OutcomesService } from './outcomes.service';
import { scheduleOnDevice } from './queue';

export interface BatchProgressDeps {
  em: () => EntityManager;
  clock: Clock;
  outcomes: OutcomesService;
  staleWindowMs: number;
  /** Tells a phone to fetch its outbox now (push), when push is configured. */
  wake?: (deviceId: string) => Promise<void>;
}

/** What the batch workflow's activities do; each is idempotent and reads the database, not workflow memory. */
export function createBatchProgressService(deps: BatchProgressDeps) {
  const { clock, outcomes } = deps;

  return {
    /** A scheduled batch becomes sendable: it takes its place in the phone's queue. */
    async release(batchId: string): Promise<void> {
      await deps.em().transactional(async (tx) => {
        const batch = await tx.findOne(Batch, { id: batchId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (!batch || batch.status !== 'scheduled') return;
        const [device] = await tx.execute<{ send_delay_seconds: number }[]>(
          'select send_delay_seconds from devices where id = ?',
          [batch.deviceId],
        );
        batch.status = 'queued';
        await tx.flush();
        batch.estimatedCompletionAt = await scheduleOnDevice(tx, {
          batchId,
          deviceId: batch.deviceId,
          sendableAt: clock.now(),
          sendDelaySeconds: device?.send_delay_seconds ?? 0,
          staleWindowMs: deps.staleWindowMs,
        });
        // Messages failed meanwhile (the phone was disabled) may already have made it final.
        await outcomes.adjustBatch(tx, batchId, {});
      });
    },

    async wake(batchId: string): Promise<void> {
      const batch = await deps.em().findOne(Batch, { id: batchId });
      if (batch && deps.wake) await deps.wake(batch.deviceId);
    },

    /** Marks every lapsed message `unknown` (with message.unknown), settles the batch, and says when to look again. */
    async sweep(batchId: string): Promise<BatchSweep> {
      const effects: Effects = { events: [], settledBatches: [] };
      const result = await deps.em().transactional(async (tx): Promise<BatchSweep> => {
        const now = clock.now();
        await outcomes.moveMany(
          tx,
          { sql: 'batch_id = ? and stale_at <= ?', params: [batchId, now] },
          'unknown',
          now,
          effects,
        );
        const [open] = await tx.execute<{ pending: number; next: Date | null; last: Date | null }[]>(
          `select count(*)::int as pending, min(stale_at) as next, max(stale_at) as last from messages
            where batch_id = ? and status in ('queued', 'dispatched')`,
          [batchId],
        );
        const batch = await tx.findOne(Batch, { id: batchId }, { refresh: true });
        if (!batch) return { done: true, nextDeadlineMs: null, lastDeadlineMs: null };
        if (open.pending === 0 && batch.status !== 'scheduled') {
          await outcomes.adjustBatch(tx, batchId, {});
          return { done: true, nextDeadlineMs: null, lastDeadlineMs: null };
        }
        const ms = (date: Date | null) => (date ? new Date(date).getTime() : null);
        return { done: false, nextDeadlineMs: ms(open.next), lastDeadlineMs: ms(open.last) };
      });
      await outcomes.afterCommit({ ...effects, settledBatches: [] });
      return result;
    },
  };
}

export type BatchProgressService = ReturnType<typeof createBatchProgressService>;
