import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks.activities';
import type { DeliveryAttemptOutcome, WebhookDeliveryInput } from './definitions';
import { DeliveryStatus, type DeliveryStatusValue } from './search-attributes';
import { keepSearchAttributes } from './searchable';

// Retries here are for infrastructure faults only (the database down, the worker lost): the
// endpoint's answer is never an activity failure, it is the attempt's outcome. The heartbeat lets
// a lost worker's attempt move to another worker within seconds.
const { attemptDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

/**
 * One webhook delivery (id `delivery-<deliveryId>`): an attempt now, then one after each pause of
 * the schedule (1m, 5m, 15m, 1h, 3h, 6h, 12h, 24h by default: nine attempts over about two days),
 * counted from when each attempt was due so slow answers do not push the schedule back. Stops at
 * the first 2xx, or when the activity says the delivery has ended (4xx rule, webhook paused,
 * disabled or deleted). Its DeliveryStatus search attribute follows along.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<'delivered' | 'failed'> {
  const schedule = input.retryScheduleMs;
  let due = Date.now();
  for (let attempt = 1; attempt <= schedule.length + 1; attempt++) {
    if (attempt > 1) {
      due += schedule[attempt - 2];
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
    }
    const nextAttemptAtMs = attempt <= schedule.length ? due + schedule[attempt - 1] : null;
    const outcome: DeliveryAttemptOutcome = await attemptDelivery({
      deliveryId: input.deliveryId,
      attempt,
      nextAttemptAtMs,
    });
    keepSearchAttributes([[DeliveryStatus, statusAfter[outcome]]]);
    if (outcome === 'delivered') return 'delivered';
    if (outcome === 'stopped' || outcome === 'abandoned') return 'failed';
  }
  keepSearchAttributes([[DeliveryStatus, 'failed']]);
  return 'failed';
}

const statusAfter: Record<DeliveryAttemptOutcome, DeliveryStatusValue> = {
  delivered: 'delivered',
  retry: 'retrying',
  stopped: 'failed',
  abandoned: 'abandoned',
};
