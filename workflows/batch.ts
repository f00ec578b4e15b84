import { condition, continueAsNew, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { MessagesActivities } from '../activities/messages.activities';
import { batchSettledSignal, type BatchInput } from './definitions';

const { releaseBatch, sweepBatch, wakeBatchDevice } = proxyActivities<MessagesActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5s', maximumInterval: '5 minutes' },
});

// Stale deadlines are staggered per message; waking for each one would make a 10,000-recipient
// batch's history grow with its size. A sweep marks every lapsed message at once, and the next
// wake is at least 5 minutes and a twentieth of the remaining span away, so a batch wakes a few
// dozen times whatever its size. Lapsed messages leave the outbox at their own deadline anyway;
// only their `unknown` mark and event can lag.
const MIN_WAKE_GAP_MS = 5 * 60_000;
const SPAN_FRACTION = 20;
const WAKES_PER_RUN = 100;

/**
 * One send, from accept until every message is final: waits for scheduled_at, wakes the phone, then
 * sleeps until the earliest stale deadline and lets one activity mark whatever lapsed `unknown`.
 */
export async function batchWorkflow(input: BatchInput): Promise<void> {
  let settled = false;
  setHandler(batchSettledSignal, () => {
    settled = true;
  });

  if (!input.released) {
    if (input.scheduledAt) {
      const wait = Date.parse(input.scheduledAt) - Date.now();
      if (wait > 0) await sleep(wait);
      await releaseBatch(input.batchId);
    }
    await wakeBatchDevice(input.batchId);
  }

  for (let wake = 0; wake < WAKES_PER_RUN; wake++) {
    const sweep = await sweepBatch(input.batchId);
    if (sweep.done) return;
    const now = Date.now();
    const gap = Math.max(MIN_WAKE_GAP_MS, ((sweep.lastDeadlineMs ?? now) - now) / SPAN_FRACTION);
    const until = Math.max(sweep.nextDeadlineMs ?? now + gap, now + gap);
    settled = false;
    await condition(() => settled, until - Date.now());
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await continueAsNew<typeof batchWorkflow>({ ...input, released: true });
}
