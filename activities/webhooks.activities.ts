import { Context } from '@temporalio/activity';
import type { DeliveryQueueService } from '../src/webhooks/delivery-queue.service';
import type { QueuePass, QueuePassInput } from '../workflows/definitions';

const HEARTBEAT_MS = 3000;

/**
 * Runs `work` with heartbeats: they tell Temporal within seconds that a worker died mid-attempt,
 * and carry the cancellation of a worker shutting down to the requests (aborted, then retried
 * elsewhere).
 */
async function heartbeating<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
  try {
    return await work(context.cancellationSignal);
  } finally {
    clearInterval(beat);
  }
}

export function createWebhookActivities(queue: DeliveryQueueService) {
  return {
    /**
     * One pass over a webhook's queue: its due deliveries attempted and recorded. Throws only for
     * infrastructure faults (then Temporal retries it); the endpoints' answers are recorded outcomes.
     */
    drainWebhookQueue(input: QueuePassInput): Promise<QueuePass> {
      return heartbeating((signal) => queue.pass(input, signal));
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
