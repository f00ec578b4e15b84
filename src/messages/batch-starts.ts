import type { EntityManager } from '@mikro-orm/postgresql';
import { idempotentStart } from '../../temporal/client';
import type { StartKind } from '../../temporal/starter';
import { batchWorkflowId, type BatchInput } from '../../workflows/definitions';
import { batchSearchAttributes } from '../../workflows/search-attributes';
import type { Clock } from '../lib/clock';
import { batchesRepository } from './batches.repository';

export interface BatchStart {
  id: string;
  scheduledAt: Date | null;
  userId: string;
  deviceId: string;
}

/** A committed batch row needs its workflow (`batch-<batchId>`). */
export function batchStarts(deps: { em: () => EntityManager; clock: Clock; taskQueue: string }): StartKind<BatchStart> {
  return {
    name: 'batches',
    workflowType: 'batchWorkflow',
    async start(temporal, batch, options) {
      const input: BatchInput = { batchId: batch.id, scheduledAt: batch.scheduledAt?.toISOString() ?? null };
      return temporal.workflow.start('batchWorkflow', {
        workflowId: batchWorkflowId(batch.id),
        taskQueue: deps.taskQueue,
        args: [input],
        ...idempotentStart,
        ...options,
      });
    },
    searchAttributes: (batch) =>
      batchSearchAttributes({ userId: batch.userId, deviceId: batch.deviceId, scheduled: !!batch.scheduledAt }),
    markStarted: (ids) => batchesRepository.markBatchesStarted(deps.em(), ids, deps.clock.now()),
    unstarted: (before, limit) => batchesRepository.unstartedBatches(deps.em(), before, limit),
  };
}
