// Signals, queries, ids and types shared by workflows and the API. Types and @temporalio/workflow only.
import { defineQuery } from '@temporalio/workflow';

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
