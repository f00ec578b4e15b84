import { Context } from '@temporalio/activity';
import type { AttemptsService } from '../src/webhooks/attempts.service';
import type { DeliveryAttemptInput, DeliveryAttemptOutcome } from '../workflows/definitions';

const HEARTBEAT_MS = 3000;

export function createWebhookActivities(attempts: AttemptsService) {
  return {
    /**
     * One attempt of a delivery. Throws only for infrastructure faults (then Temporal retries it);
     * the endpoint's answer, whatever it is, is the returned outcome.
     */
    async attemptDelivery(input: DeliveryAttemptInput): Promise<DeliveryAttemptOutcome> {
      const context = Context.current();
      // Heartbeats tell Temporal within seconds that a worker died mid-attempt, and carry the
      // cancellation of a worker shutting down to the request (aborted, then retried elsewhere).
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
      try {
        return await attempts.attempt(input, context.cancellationSignal);
      } finally {
        clearInterval(beat);
      }
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
