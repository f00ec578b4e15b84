import type { ReconcilerService } from '../src/reconciler/reconciler.service';

export function createReconcilerActivities(reconciler: ReconcilerService) {
  return {
    reconcileOnce: (): Promise<Record<string, number>> => reconciler.reconcileOnce(),
  };
}

export type ReconcilerActivities = ReturnType<typeof createReconcilerActivities>;
