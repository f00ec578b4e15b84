import { setImmediate as afterIo } from 'node:timers/promises';
import type { Logger } from './logger';

/**
 * The one way to do work that must neither slow nor fail the request that caused it (workflow
 * starts after a commit, signals, pushes). Failures are logged; whatever must not be lost is
 * repaired by the reconciler. `idle()` resolves when nothing is in flight (tests, shutdown).
 */
export function createBackground(logger: Logger) {
  const inFlight = new Set<Promise<void>>();
  return {
    run(what: string, task: () => Promise<void>): void {
      // After the event loop's current turn: a task's own first steps (a workflow start's request built
      // and encoded) run after the answer of the request that caused it is written, not before.
      const promise = afterIo()
        .then(task)
        .catch((error) => logger.warn({ err: error }, `${what} failed`))
        .finally(() => inFlight.delete(promise));
      inFlight.add(promise);
    },
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

export type Background = ReturnType<typeof createBackground>;
