import { continueAsNew, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { ReconcilerActivities } from '../activities/reconciler.activities';
import { reconcilerStatusQuery, type ReconcileReport, type ReconcilerInput } from './definitions';

const { reconcileOnce } = proxyActivities<ReconcilerActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5s', maximumInterval: '1 minute' },
});

/**
 * Repairs what a crash between a database commit and a workflow start left behind: every interval
 * it runs one pass of every feature's sweep. One instance runs per namespace (id "reconciler").
 */
export async function reconcilerWorkflow(input: ReconcilerInput): Promise<void> {
  const passesPerRun = input.passesPerRun ?? 500;
  let totalPasses = input.totalPasses ?? 0;
  let lastPassAt: string | null = null;
  let lastReport: ReconcileReport = {};
  setHandler(reconcilerStatusQuery, () => ({ totalPasses, lastPassAt, lastReport }));

  for (let pass = 0; pass < passesPerRun; pass++) {
    await sleep(input.intervalMs);
    lastReport = await reconcileOnce();
    totalPasses += 1;
    lastPassAt = new Date(Date.now()).toISOString();
    // The server suggests continuing when the history nears its limits; honour it early.
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await continueAsNew<typeof reconcilerWorkflow>({ ...input, totalPasses });
}
