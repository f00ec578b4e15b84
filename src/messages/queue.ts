import type { EntityManager } from '@mikro-orm/postgresql';

// What a phone needs per message beyond the delay it is told to keep: our estimate of send time.
export const SECONDS_PER_MESSAGE = 5;

export interface Placement {
  batchId: string;
  deviceId: string;
  /** When the batch's messages became sendable (accept time, or scheduled_at on release). */
  sendableAt: Date;
  sendDelaySeconds: number;
  staleWindowMs: number;
}

/**
 * Places a batch's queued messages in its phone's queue: each gets its stale deadline, sendable time
 * + STALE_WINDOW + its position in the queue × (send_delay_seconds + 5 s), and the batch its
 * estimated completion. Returns that estimate.
 */
export async function scheduleOnDevice(tx: EntityManager, placement: Placement): Promise<Date> {
  const perMessage = placement.sendDelaySeconds + SECONDS_PER_MESSAGE;
  const [{ ahead }] = await tx.execute<{ ahead: number }[]>(
    `select count(*)::int as ahead from messages
      where device_id = ? and direction = 'outbound' and status in ('queued', 'dispatched') and batch_id <> ?`,
    [placement.deviceId, placement.batchId],
  );
  const [{ count }] = await tx.execute<{ count: number }[]>(
    `with placed as (
       update messages
          set available_at = ?,
              stale_at = ?::timestamptz + make_interval(secs => (? + position) * ?) + make_interval(secs => ?)
        where batch_id = ? and status = 'queued'
       returning 1)
     select count(*)::int as count from placed`,
    [placement.sendableAt, placement.sendableAt, ahead, perMessage, placement.staleWindowMs / 1000, placement.batchId],
  );
  const estimate = new Date(placement.sendableAt.getTime() + (ahead + count) * perMessage * 1000);
  await tx.execute('update batches set estimated_completion_at = ? where id = ?', [estimate, placement.batchId]);
  return estimate;
}
