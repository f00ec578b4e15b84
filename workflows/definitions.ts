// Signals, queries, ids and types shared by workflows and the API. Types and @temporalio/workflow only.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { DeliveryStatusValue } from './search-attributes';

export const RECONCILER_WORKFLOW_ID = 'reconciler';

export interface ReconcilerInput {
  /** Pause between two passes, in milliseconds. */
  intervalMs: number;
  /** Passes before continue-as-new, so the history stays small however long it runs. */
  passesPerRun?: number;
  /** Carried across continue-as-new. */
  totalPasses?: number;
}

/** What one pass repaired: sweep name → rows it fixed. */
export type ReconcileReport = Record<string, number>;

export interface ReconcilerStatus {
  totalPasses: number;
  lastPassAt: string | null;
  lastReport: ReconcileReport;
}

export const reconcilerStatusQuery = defineQuery<ReconcilerStatus>('status');

// Device liveness (workflows/device-liveness.ts): one per paired phone.
export const deviceWorkflowId = (deviceId: string) => `device-${deviceId}`;

export interface DeviceLivenessInput {
  deviceId: string;
  heartbeatIntervalMinutes: number;
  /** OFFLINE_AFTER_MISSED_HEARTBEATS: intervals without a heartbeat before the phone is offline. */
  missedHeartbeats: number;
  /** Carried across continue-as-new (epoch ms, workflow time); a fresh start counts as a heartbeat. */
  lastHeartbeatAt?: number;
  online?: boolean;
  /** Signals handled before continue-as-new, so the history stays small however long the phone lives. */
  signalsPerRun?: number;
  /** Carried across continue-as-new. */
  totalSignals?: number;
}

export interface DeviceLivenessStatus {
  online: boolean;
  lastHeartbeatAt: number;
  heartbeatIntervalMinutes: number;
  deadline: number;
  totalSignals: number;
}

export const deviceHeartbeatSignal = defineSignal('heartbeat');
export const deviceSettingsSignal = defineSignal<[{ heartbeatIntervalMinutes: number }]>('settings');
export const deviceUnpairedSignal = defineSignal('unpaired');
export const deviceLivenessQuery = defineQuery<DeviceLivenessStatus>('liveness');

// A webhook's queue (workflows/webhook-queue.ts): one per webhook, attempting its open deliveries.
export const webhookQueueWorkflowId = (webhookId: string) => `webhook-${webhookId}`;

export interface WebhookQueueInput {
  webhookId: string;
  /** Passes and signals handled before continue-as-new, so the history stays small however long it runs. */
  eventsPerRun?: number;
}

/** What a pass is asked for. */
export interface QueuePassInput {
  webhookId: string;
  /**
   * The workflow's time when it asked (epoch ms): retries due by then are due, whatever the
   * worker's clock says (a clock behind the server's would otherwise find the retry it woke for early).
   */
  dueByMs: number;
}

/** Sent after the commit of new deliveries for the webhook (and by the reconciler): a pass is due. */
export const deliveriesQueuedSignal = defineSignal('deliveries-queued');

/** What one pass over a webhook's queue left. */
export interface QueuePass {
  /** Deliveries are due now still (the pass stopped at its time budget, or some arrived at its end). */
  due: boolean;
  /** When the earliest retry falls due (epoch ms), or null when none is waiting. */
  nextDueAtMs: number | null;
  /** The queue's state for its DeliveryStatus search attribute; null leaves it as it was. */
  status: DeliveryStatusValue | null;
  /** The webhook was deleted: nothing will be queued for it again. */
  ended: boolean;
}

/**
 * What one attempt of a delivery came to. retry: a failed attempt with another scheduled; stopped:
 * failed for good (the schedule ran out, or the endpoint refused it); abandoned: ended because its
 * webhook was paused (automatically or by hand) or deleted.
 */
export type DeliveryAttemptOutcome = 'delivered' | 'retry' | 'stopped' | 'abandoned';

// Batches (workflows/batch.ts): one per send, from accept until every message is final.
export const batchWorkflowId = (batchId: string) => `batch-${batchId}`;

export interface BatchInput {
  batchId: string;
  /** ISO time to release a scheduled send, or null to send now. */
  scheduledAt: string | null;
  /** Carried across continue-as-new. */
  released?: boolean;
  /**
   * Started with a delay until its first wake (src/messages/batch-starts.ts): the run takes that
   * path without asking patched() (workflows/batch.ts). Runs started before it was set ask.
   */
  delayedStart?: true;
}

export interface BatchSweep {
  /** Every message is final: the workflow ends. */
  done: boolean;
  /** The earliest stale deadline still ahead (epoch ms), or null. */
  nextDeadlineMs: number | null;
}

/** Sent by the API when a report made the batch final, so the workflow ends without waiting. */
export const batchSettledSignal = defineSignal('settled');
