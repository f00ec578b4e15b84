import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './logger';

/** 1 s, 2 s, 4 s … capped at 30 s: quick after a blip, gentle on a server that stays down. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

/** A thrown value in words, whatever was thrown (some libraries reject with nothing at all). */
export function describeFailure(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    // Node's connect to "localhost" tries ::1 and 127.0.0.1 and throws both; the first one says it.
    return describeFailure(error.errors[0]);
  }
  if (error instanceof Error) return error.message || error.name;
  if (error === undefined || error === null) return 'no reason given';
  return String(error);
}

/** An Error for pino's `err` serializer (which prints message and stack only for Error objects). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(describeFailure(error));
}

/**
 * Calls `attempt` until it succeeds, waiting longer after each failure and logging one line per
 * failure that says what is wrong and when the next try is. Resolves undefined once `signal` aborts.
 */
export async function retryWithBackoff<T>(
  what: string,
  logger: Logger,
  attempt: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T | undefined> {
  for (let failures = 0; ;) {
    if (signal?.aborted) return undefined;
    try {
      return await attempt();
    } catch (error) {
      if (signal?.aborted) return undefined;
      failures++;
      const waitMs = backoffMs(failures);
      logger.error(
        { err: asError(error), attempt: failures, retry_in_ms: waitMs },
        `${what}: ${describeFailure(error)}; retrying in ${waitMs / 1000} s`,
      );
      try {
        await sleep(waitMs, undefined, { signal });
      } catch {
        return undefined;
      }
    }
  }
}

/** "Postgres at host:port and Temporal at host:port", for lines about servers that cannot be reached. */
export function serversInWords(databaseUrl: string | undefined, temporalAddress: string): string {
  let postgres = 'Postgres (DATABASE_URL is not set)';
  try {
    // Host and port only: the URL's user and password stay out of the log.
    if (databaseUrl) postgres = `Postgres at ${new URL(databaseUrl).host}`;
  } catch {
    postgres = 'Postgres (DATABASE_URL)';
  }
  return `${postgres} and Temporal at ${temporalAddress}`;
}
