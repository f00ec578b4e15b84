import type { ReconcilerService } from '../src/reconciler/reconciler.service';

export function createReconcilerActivities(reconciler: ReconcilerService) {
  return {
    async reconcileOnce(): Promise<Record<string, number>> {
      return reconciler.reconcileOnce();
    },
  };
}

export type ReconcilerActivities = ReturnType<typeof createReconcilerActivities>;
