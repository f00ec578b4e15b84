import type { Logger } from '../lib/logger';

/**
 * Work done after a response is decided (workflow signals, pushes): it must neither slow nor fail the
 * request. Failures are logged; the next heartbeat repairs a lost signal. `idle()` waits for what is
 * in flight.
 */
export function createBackground(logger: Logger) {
  const inFlight = new Set<Promise<void>>();
  return {
    run(what: string, task: () => Promise<void>): void {
      const promise = task()
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
