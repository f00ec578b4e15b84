import type { EntityManager } from '@mikro-orm/postgresql';
import { idempotentStart } from '../../temporal/client';
import type { StartKind } from '../../temporal/starter';
import { batchSettledSignal, batchWorkflowId, type BatchInput } from '../../workflows/definitions';
import { batchSearchAttributes } from '../../workflows/search-attributes';
import type { Clock } from '../lib/clock';
import { batchesRepository, type BatchStart } from './batches.repository';

export type { BatchStart };

export interface BatchStartsDeps {
  em: () => EntityManager;
  clock: Clock;
  taskQueue: string;
  staleWindowMs: number;
  /** Tells the phone to fetch its outbox now (push), when push is configured. */
  wake?: (deviceId: string) => void;
}

/**
 * When a batch's workflow has work to do: at a scheduled send's time, else at the earliest stale
 * deadline any of its messages can have (its outbox places only push them later: src/messages/outbox.ts).
 */
export function firstWakeAt(batch: BatchStart, staleWindowMs: number): Date {
  if (batch.scheduledAt) return batch.scheduledAt;
  const lifeMs = batch.ttlSeconds == null ? staleWindowMs : Math.min(staleWindowMs, batch.ttlSeconds * 1000);
  return new Date(batch.createdAt.getTime() + lifeMs);
}

/**
 * A committed batch row needs its workflow (`batch-<batchId>`), started with a delay until its first
 * wake (workflows/batch.ts): until then it costs the Temporal server nothing but its record. A batch
 * that settles is told by signal-with-start, which ends the delay (or starts the workflow, if the
 * start has not been made yet), and its workflow ends in its one task. A send that can go now wakes
 * its phone here, after its commit, rather than in a workflow task.
 */
export function batchStarts(deps: BatchStartsDeps): StartKind<BatchStart> {
  return {
    name: 'batches',
    workflowType: 'batchWorkflow',
    async start(temporal, batch, options) {
      const input: BatchInput = {
        batchId: batch.id,
        scheduledAt: batch.settled ? null : (batch.scheduledAt?.toISOString() ?? null),
        delayedStart: true,
      };
      const common = {
        workflowId: batchWorkflowId(batch.id),
        taskQueue: deps.taskQueue,
        args: [input] as [BatchInput],
        ...idempotentStart,
        typedSearchAttributes: options.typedSearchAttributes,
      };
      if (batch.settled) {
        await temporal.workflow.signalWithStart('batchWorkflow', { ...common, signal: batchSettledSignal });
        return;
      }
      const delayMs = firstWakeAt(batch, deps.staleWindowMs).getTime() - deps.clock.now().getTime();
      // A start whose first task is due at once may be eager (temporal/starter.ts); a delayed one has no first task yet.
      const started = await temporal.workflow.start(
        'batchWorkflow',
        delayMs > 0 ? { ...common, startDelay: delayMs } : { ...common, requestEagerStart: options.requestEagerStart },
      );
      if (!batch.scheduledAt) deps.wake?.(batch.deviceId);
      return started;
    },
    searchAttributes: (batch) =>
      batchSearchAttributes({
        userId: batch.userId,
        deviceId: batch.deviceId,
        scheduled: !!batch.scheduledAt && !batch.settled,
      }),
    markStarted: (ids) => batchesRepository.markBatchesStarted(deps.em(), ids, deps.clock.now()),
    // Sends one after another share the statement that records their starts.
    recordAfterMs: 50,
    unstarted: (before, limit) => batchesRepository.unstartedBatches(deps.em(), before, limit),
  };
}
