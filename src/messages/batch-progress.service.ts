import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction';
import { devicesRepository } from '../devices/devices.repository';
import type { Clock } from '../lib/clock';
import type { BatchSweep } from '../../workflows/definitions';
import { batchesRepository } from './batches.repository';
import type { OutcomesService } from './outcomes.service';
import { NO_PACE, paceOf, placement } from './outbox';

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
    /** A scheduled batch becomes sendable: its queued messages take their places in the phone's outbox. */
    async release(batchId: string): Promise<void> {
      await transaction(deps.em(), async (tx) => {
        const batch = await batchesRepository.lockScheduled(tx, batchId);
        if (!batch) return;
        const now = clock.now();
        // A phone disabled meanwhile has failed these messages already: none is left to place.
        const place =
          batch.queued > 0
            ? await devicesRepository.reserveOutbox(tx, batch.deviceId, batch.queued, batch.priority === 'high')
            : undefined;
        const { estimate, ...deadlines } = placement({
          sendableAt: now,
          ahead: place?.ahead ?? 0,
          count: place ? batch.queued : 0,
          pace: place ? paceOf(place) : NO_PACE,
          // Android's limit may have paused the phone: nothing goes before it resumes.
          resumeAt: place?.pausedUntil,
          staleWindowMs: deps.staleWindowMs,
          ttlSeconds: batch.ttlSeconds,
        });
        await batchesRepository.place(tx, batchId, { sendableAt: now, deadlines, estimate });
        // Messages failed meanwhile (the phone was disabled) may already have made it final.
        await outcomes.settleBatch(tx, batchId);
      });
    },

    async wake(batchId: string): Promise<void> {
      const batch = await batchesRepository.batchStatusAndDevice(deps.em(), batchId);
      // A send that is final already (every recipient opted out) gives the phone nothing to fetch.
      if (batch && deps.wake && batch.status !== 'completed' && batch.status !== 'failed')
        await deps.wake(batch.deviceId);
    },

    /** Marks every lapsed message `unknown` (with message.unknown), settles the batch, and says when to look again. */
    async sweep(batchId: string): Promise<BatchSweep> {
      return transaction(deps.em(), async (tx): Promise<BatchSweep> => {
        await outcomes.markLapsed(tx, batchId);
        const open = await batchesRepository.openDeadlines(tx, batchId);
        const batch = await batchesRepository.batchStatusAndDevice(tx, batchId);
        if (!batch) return { done: true, nextDeadlineMs: null };
        if (open.pending === 0 && batch.status !== 'scheduled') {
          await outcomes.settleBatch(tx, batchId);
          return { done: true, nextDeadlineMs: null };
        }
        const ms = (date: Date | null) => (date ? new Date(date).getTime() : null);
        return { done: false, nextDeadlineMs: ms(open.next) };
      });
    },
  };
}

export type BatchProgressService = ReturnType<typeof createBatchProgressService>;
