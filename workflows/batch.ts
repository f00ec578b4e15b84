import {
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { MessagesActivities } from '../activities/messages.activities';
import { batchSettledSignal, type BatchInput } from './definitions';
import { BatchStatus } from './search-attributes';
import { keepSearchAttributes } from './searchable';

const activityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5s', maximumInterval: '5 minutes' },
} as const;
const viaTaskQueue = proxyActivities<MessagesActivities>(activityOptions);
// Local activities run inside the workflow task, in the worker that holds the workflow, and are
// recorded as markers: no activity task goes through the server, and a send's first workflow task
// wakes the phone, sweeps and starts its timer at once. A send then costs the Temporal server a
// third of the CPU it did (`npm run bench:profile`), and the worker less too. Their short retries
// stay in the worker; longer ones wait on a timer in the history, as before.
const inWorkflowTask = proxyLocalActivities<MessagesActivities>(activityOptions);
// Histories recorded before this patch scheduled activity tasks; they replay with them.
const LOCAL_ACTIVITIES = 'local-activities';

// Stale deadlines are staggered per message; waking for each one would make a 10,000-recipient
// batch's history grow with its size. A sweep marks every lapsed message at once, and the next wake
// is at the earliest deadline still ahead but at least WAKE_GAP_MS after this one, so a message
// becomes `unknown` within about half a minute of its own deadline, and a run's history stays
// bounded (continue-as-new every WAKES_PER_RUN wakes) however long the batch lives.
const WAKE_GAP_MS = 30_000;
const WAKES_PER_RUN = 50;

// Histories recorded before the patch woke at least 5 minutes and a twentieth of the remaining span
// apart (`unknown` could lag by minutes); they replay with that rule.
const LEGACY_MIN_WAKE_GAP_MS = 5 * 60_000;
const LEGACY_SPAN_FRACTION = 20;
const LEGACY_WAKES_PER_RUN = 100;
const UNKNOWN_ON_TIME = 'unknown-on-time';
// A settled signal that arrives while a sweep runs must end the wait that follows it; before this
// patch the flag was cleared after the sweep, so such a signal was lost until the next deadline.
const SIGNAL_DURING_SWEEP = 'settled-signal-during-sweep';
// A send cancelled (or whose phone was disabled) before its scheduled time is final at once: the
// settled signal ends the wait for scheduled_at, and nothing is released. Before this patch the
// workflow slept until scheduled_at whatever happened meanwhile.
const SIGNAL_WHILE_SCHEDULED = 'settled-signal-while-scheduled';

/**
 * One send, from accept until every message is final: waits for scheduled_at, wakes the phone, then
 * sleeps until the earliest stale deadline and lets one activity mark whatever lapsed `unknown`.
 */
export async function batchWorkflow(input: BatchInput): Promise<void> {
  let settled = false;
  setHandler(batchSettledSignal, () => {
    settled = true;
  });
  const { releaseBatch, sweepBatch, wakeBatchDevice } = patched(LOCAL_ACTIVITIES) ? inWorkflowTask : viaTaskQueue;

  // Set at start; a run continued from one started before the attributes existed gets it here.
  keepSearchAttributes([[BatchStatus, input.scheduledAt && !input.released ? 'scheduled' : 'sending']]);

  if (!input.released) {
    // Settled before its time: nothing to release or send; the sweep below finds it final and ends.
    let settledEarly = false;
    if (input.scheduledAt) {
      const wait = Date.parse(input.scheduledAt) - Date.now();
      if (patched(SIGNAL_WHILE_SCHEDULED)) {
        if (wait > 0) await condition(() => settled, wait);
        settledEarly = settled;
      } else if (wait > 0) await sleep(wait);
      if (!settledEarly) {
        await releaseBatch(input.batchId);
        keepSearchAttributes([[BatchStatus, 'sending']]);
      }
    }
    if (!settledEarly) await wakeBatchDevice(input.batchId);
  }

  const onTime = patched(UNKNOWN_ON_TIME);
  const keepSignal = patched(SIGNAL_DURING_SWEEP);
  for (let wake = 0; wake < (onTime ? WAKES_PER_RUN : LEGACY_WAKES_PER_RUN); wake++) {
    if (keepSignal) settled = false;
    const sweep = await sweepBatch(input.batchId);
    if (sweep.done) {
      keepSearchAttributes([[BatchStatus, 'settled']]);
      return;
    }
    const now = Date.now();
    const gap = onTime
      ? WAKE_GAP_MS
      : Math.max(LEGACY_MIN_WAKE_GAP_MS, ((sweep.lastDeadlineMs ?? now) - now) / LEGACY_SPAN_FRACTION);
    const until = Math.max(sweep.nextDeadlineMs ?? now + gap, now + gap);
    if (!keepSignal) settled = false;
    await condition(() => settled, until - Date.now());
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await continueAsNew<typeof batchWorkflow>({ ...input, released: true });
}
