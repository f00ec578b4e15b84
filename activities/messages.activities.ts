import { RequestContext, type MikroORM } from '@mikro-orm/postgresql';
import type { BatchProgressService } from '../src/messages/batch-progress.service';
import type { BatchSweep } from '../workflows/definitions';

/** The batch workflow's activities; each runs on its own EntityManager fork (the services' `em()`). */
export function createMessagesActivities(progress: BatchProgressService, orm: MikroORM) {
  const inFork = <T>(work: () => Promise<T>) => RequestContext.create(orm.em.fork(), work);
  return {
    releaseBatch: (batchId: string): Promise<void> => inFork(() => progress.release(batchId)),
    wakeBatchDevice: (batchId: string): Promise<void> => inFork(() => progress.wake(batchId)),
    sweepBatch: (batchId: string): Promise<BatchSweep> => inFork(() => progress.sweep(batchId)),
  };
}

export type MessagesActivities = ReturnType<typeof createMessagesActivities>;
