import {
  condition,
  continueAsNew,
  patched,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { MessagesActivities } from '../activities/messages.activities';
import { batchSettledSignal, type BatchInput } from './definitions';
import { BatchStatus } from './search-attributes';
import { keepSearchAttributes } from './searchable';

// Local activities run inside the workflow task, in the worker that holds the workflow, and are
// recorded as markers: no activity task goes through the server (a third of the Temporal server's
// CPU per send of activity tasks, docs/performance.md). Their short retries stay in the worker;
// longer ones wait on a timer in the history.
const { releaseBatch, sweepBatch, wakeBatchDevice } = proxyLocalActivities<MessagesActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5s', maximumInterval: '5 minutes' },
});

// Stale deadlines are staggered per message; waking for each one would make a 10,000-recipient
// batch's history grow with its size. A sweep marks every lapsed message at once, and the next wake
// is at the earliest deadline still ahead but at least WAKE_GAP_MS after this one, so a message
// becomes `unknown` within about half a minute of its own deadline, and a run's history stays
// bounded (continue-as-new every WAKES_PER_RUN wakes) however long the batch lives.
const WAKE_GAP_MS = 30_000;
const WAKES_PER_RUN = 50;

// A batch workflow is started with a delay (src/messages/batch-starts.ts): its first task runs at
// the send's scheduled time or its earliest possible stale deadline, or at once when the batch
// settles sooner (the settled signal comes by signal-with-start, which ends the delay). A batch that
// settles before its first deadline costs one workflow task. Runs that began before it replay the
// path below the patch: a first task at start that woke the phone, swept and set a timer. Every
// start now says so in its input (`delayedStart`), and a run that says so asks no patch: patched()
// records a marker and an upsert of the patch's search attribute, a visibility write per batch.
const DELAYED_START = 'delayed-start';

/**
 * One send, from accept until every message is final: waits for scheduled_at, wakes the phone, then
 * sleeps until the earliest stale deadline and lets one activity mark whatever lapsed `unknown`.
 * The settled signal (the last message final, or the send cancelled) ends any wait at once.
 */
export async function batchWorkflow(input: BatchInput): Promise<void> {
  const signals = { settled: false };
  // With no inbound interceptor (tracing off) the handler runs as it is set, so a signal-with-start's
  // signal is seen before the first line below; otherwise the first sweep finds the batch final.
  setHandler(batchSettledSignal, () => {
    signals.settled = true;
  });
  if (input.delayedStart || patched(DELAYED_START)) return startedWithDelay(input, signals);

  // Set by the start (temporal/starter.ts) or carried over by continue-as-new: upserted only if it differs.
  keepSearchAttributes([[BatchStatus, input.scheduledAt && !input.released ? 'scheduled' : 'sending']]);

  if (!input.released) {
    // A send cancelled (or whose phone was disabled) before its time is final at once: the settled
    // signal ends the wait, nothing is released, and the sweep below finds it final and ends.
    let settledEarly = false;
    if (input.scheduledAt) {
      const wait = Date.parse(input.scheduledAt) - Date.now();
      if (wait > 0) await condition(() => signals.settled, wait);
      settledEarly = signals.settled;
      if (!settledEarly) {
        await releaseBatch(input.batchId);
        keepSearchAttributes([[BatchStatus, 'sending']]);
      }
    }
    if (!settledEarly) await wakeBatchDevice(input.batchId);
  }
  await sweepUntilSettled(input, signals, true);
}

/** The path since DELAYED_START: nothing to wait for at the start, the phone woken by the send itself. */
async function startedWithDelay(input: BatchInput, signals: { settled: boolean }): Promise<void> {
  // Settled before its first deadline (or cancelled before its time): final, nothing to sweep.
  if (signals.settled) return;
  if (input.scheduledAt && !input.released) {
    await releaseBatch(input.batchId);
    keepSearchAttributes([[BatchStatus, 'sending']]);
    await wakeBatchDevice(input.batchId);
  }
  await sweepUntilSettled(input, signals, false);
}

/** Sweeps at each deadline until every message is final; continues as new after WAKES_PER_RUN wakes. */
async function sweepUntilSettled(input: BatchInput, signals: { settled: boolean }, markSettled: boolean) {
  for (let wake = 0; wake < WAKES_PER_RUN; wake++) {
    // Cleared before the sweep, so a signal that arrives while it runs ends the wait that follows.
    signals.settled = false;
    const sweep = await sweepBatch(input.batchId);
    if (sweep.done) {
      // Since DELAYED_START a closed batch workflow is settled: the attribute keeps its last stage.
      if (markSettled) keepSearchAttributes([[BatchStatus, 'settled']]);
      return;
    }
    const now = Date.now();
    const until = Math.max(sweep.nextDeadlineMs ?? now + WAKE_GAP_MS, now + WAKE_GAP_MS);
    await condition(() => signals.settled, until - Date.now());
    // The signal is sent only once the batch is final: since DELAYED_START that ends it without a sweep.
    if (signals.settled && !markSettled) return;
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await continueAsNew<typeof batchWorkflow>({ ...input, released: true });
}
