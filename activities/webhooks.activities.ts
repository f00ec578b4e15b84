import { Context } from '@temporalio/activity';
import type { AttemptsService } from '../src/webhooks/attempts.service';
import type { DeliveryQueueService } from '../src/webhooks/delivery-queue.service';
import type { DeliveryAttemptInput, DeliveryAttemptOutcome, QueuePass, QueuePassInput } from '../workflows/definitions';

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

export function createWebhookActivities(attempts: AttemptsService, queue: DeliveryQueueService) {
  return {
    /**
     * One pass over a webhook's queue: its due deliveries attempted and recorded. Throws only for
     * infrastructure faults (then Temporal retries it); the endpoints' answers are recorded outcomes.
     */
    drainWebhookQueue(input: QueuePassInput): Promise<QueuePass> {
      return heartbeating((signal) => queue.pass(input, signal));
    },

    /** One attempt of a delivery from before the queues (workflows/webhook-delivery.ts). */
    attemptDelivery(input: DeliveryAttemptInput): Promise<DeliveryAttemptOutcome> {
      return heartbeating((signal) => attempts.attempt(input, signal));
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
