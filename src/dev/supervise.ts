import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../lib/logger';
import { backoffMs, retryWithBackoff } from '../lib/backoff';

/** A child server: settles `exited` when its process ends, whoever ended it. */
export interface Child {
  exited: Promise<string>;
  stop(): Promise<void>;
}

export interface Supervised<T extends Child> {
  /** The running instance (the latest after a restart). */
  current(): T;
  stop(): Promise<void>;
}

// A child that ran this long before dying counts as healthy again: the next restart is quick.
const HEALTHY_AFTER_MS = 60_000;

/**
 * Starts a child and keeps it running: when it exits without being asked to, the exit is logged and
 * it is started again, 1 s later at first and up to 30 s apart while it keeps failing. The first
 * start's failure is the caller's (start fails with its cause).
 */
export async function supervise<T extends Child>(
  name: string,
  logger: Logger,
  start: () => Promise<T>,
  options: { onRestart?: (child: T) => void; shuttingDown?: AbortSignal } = {},
): Promise<Supervised<T>> {
  const stopping = new AbortController();
  // Once the whole process is stopping, a child that exits is not started again.
  options.shuttingDown?.addEventListener('abort', () => stopping.abort(), { once: true });
  let child = await start();
  let restarting: Promise<unknown> | undefined;
  let quickDeaths = 0;

  const watch = (running: T, startedAt: number) => {
    void running.exited.then((how) => {
      if (stopping.signal.aborted) return;
      quickDeaths = Date.now() - startedAt < HEALTHY_AFTER_MS ? quickDeaths + 1 : 0;
      const delay = quickDeaths > 0 ? backoffMs(quickDeaths) : 0;
      logger.error({ child: name, how }, `${name} exited unexpectedly (${how}): restarting it`);
      restarting = (async () => {
        if (delay > 0) await sleep(delay, undefined, { signal: stopping.signal }).catch(() => undefined);
        const next = await retryWithBackoff(`${name} did not start again`, logger, start, stopping.signal);
        if (!next) return;
        if (stopping.signal.aborted) {
          await next.stop();
          return;
        }
        child = next;
        logger.warn({ child: name }, `${name} is running again`);
        options.onRestart?.(next);
        watch(next, Date.now());
      })();
    });
  };
  watch(child, Date.now());

  return {
    current: () => child,
    async stop() {
      stopping.abort();
      await restarting;
      await child.stop();
    },
  };
}
