import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks.activities';
import { deliveriesQueuedSignal, type WebhookQueueInput } from './definitions';
import { DeliveryStatus } from './search-attributes';
import { keepSearchAttributes } from './searchable';

// Retries here are for infrastructure faults only (the database down, the worker lost): the
// endpoint's answers are recorded by the pass, never an activity failure. A pass works for a minute
// at most, plus its last batch (requests time out after 30 s); its heartbeats move a lost worker's
// pass to another worker within seconds.
const { drainWebhookQueue } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

/** With nothing open for this long, the workflow ends; the next delivery starts it again. */
const IDLE_MS = 10 * 60_000;
/** The shortest wait for a retry, so clocks a little apart cannot make it spin. */
const MIN_WAIT_MS = 1000;

/**
 * The deliveries of one webhook (id `webhook-<webhookId>`): a pass over its queue whenever
 * deliveries are committed (the deliveries-queued signal, sent after each commit) or a retry falls
 * due, until nothing has been open for a while or the webhook is deleted. The queue is the
 * database's (webhook_deliveries): each delivery keeps its id, its attempts and its retry schedule
 * there, so the workflow's history grows with its passes, not with its deliveries. Its
 * DeliveryStatus search attribute says where the queue stands: pending, retrying (an endpoint
 * failing), delivered or failed (the last delivery's end), abandoned (the webhook paused, disabled
 * or deleted).
 */
export async function webhookQueueWorkflow(input: WebhookQueueInput): Promise<void> {
  const eventsPerRun = input.eventsPerRun ?? 500;
  let queued = false;
  let events = 0;
  setHandler(deliveriesQueuedSignal, () => {
    queued = true;
    events += 1;
  });
  const historyFull = () => events >= eventsPerRun || workflowInfo().continueAsNewSuggested;

  for (;;) {
    // Whatever was committed before this point is seen by the pass; a signal from here on means
    // another pass.
    queued = false;
    const pass = await drainWebhookQueue({ webhookId: input.webhookId, dueByMs: Date.now() });
    events += 1;
    if (pass.status) keepSearchAttributes([[DeliveryStatus, pass.status]]);
    if (pass.ended) return;
    // Every run starts with a pass, so what a signal racing continue-as-new announced is not missed.
    if (historyFull()) break;
    if (pass.due) continue;
    const wait = pass.nextDueAtMs === null ? IDLE_MS : Math.max(pass.nextDueAtMs - Date.now(), MIN_WAIT_MS);
    await condition(() => queued, wait);
    // Idle: ends. A signal that arrives as it ends makes the server refuse the completion, and the
    // replayed task sees it here.
    if (!queued && pass.nextDueAtMs === null) return;
  }
  await continueAsNew<typeof webhookQueueWorkflow>(input);
}
