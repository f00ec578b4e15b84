import type { Logger } from './logger';

/**
 * Runs `stop` once on SIGTERM, SIGINT or SIGHUP, then exits. A second signal while stopping exits at once,
 * so a stuck shutdown can always be interrupted.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
  process.on('SIGHUP', handle);
}
