import type { Logger } from '../lib/logger';
import type { Metrics } from '../metrics/metrics';

/**
 * A sweep finds rows whose workflow should exist but was never started (the process died between
 * the commit and the start) and starts it; it returns how many it repaired. Starts are idempotent
 * (ids derived from rows), so a sweep may safely race with the normal path. A `routine` sweep is
 * housekeeping instead (expired idempotency keys removed), run on the same beat.
 */
export interface Sweep {
  name: string;
  run(): Promise<number>;
  /** Housekeeping (expired rows removed) rather than a repair: its counts are routine, not warnings. */
  routine?: boolean;
}

export interface ReconcilerDeps {
  sweeps: Sweep[];
  logger: Logger;
  metrics: Metrics['workflows'];
}

export function createReconcilerService({ sweeps, logger, metrics }: ReconcilerDeps) {
  return {
    /** One pass over every sweep; one failing sweep does not stop the others. */
    async reconcileOnce(): Promise<Record<string, number>> {
      const report: Record<string, number> = {};
      const failures: string[] = [];
      for (const sweep of sweeps) {
        try {
          report[sweep.name] = await sweep.run();
          // Routine clean-ups (expired idempotency keys) are neither repairs nor worth a warning.
          if (report[sweep.name] > 0 && !sweep.routine) {
            metrics.repairs.inc({ sweep: sweep.name }, report[sweep.name]);
            logger.warn({ sweep: sweep.name, repaired: report[sweep.name] }, 'reconciler repaired rows');
          }
        } catch (error) {
          logger.error({ err: error, sweep: sweep.name }, 'reconciler sweep failed');
          failures.push(sweep.name);
        }
      }
      // Thrown after the others ran, so the activity is retried and the failure is visible in the UI.
      if (failures.length > 0) throw new Error(`reconciler sweeps failed: ${failures.join(', ')}`);
      return report;
    },
  };
}

export type ReconcilerService = ReturnType<typeof createReconcilerService>;
