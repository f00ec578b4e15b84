import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../lib/clock';
import { rateLimited } from './errors';

export interface Window {
  limit: number;
  windowMs: number;
}

/**
 * Fixed-window counters in Postgres, so every api process shares them. `hit` counts an attempt and
 * refuses past the limit with 429 rate_limited and Retry-After; `check` only looks.
 */
export function createRateLimiter({ em, clock }: { em: () => EntityManager; clock: Clock }) {
  function windowOf(windowMs: number) {
    const now = clock.now().getTime();
    const start = Math.floor(now / windowMs) * windowMs;
    return { start: new Date(start), retryAfterSeconds: (start + windowMs - now) / 1000 };
  }

  return {
    async hit(key: string, { limit, windowMs }: Window): Promise<void> {
      const { start, retryAfterSeconds } = windowOf(windowMs);
      const [row] = await em().execute<{ hits: number }[]>(
        `insert into rate_limit_windows (key, window_start, hits) values (?, ?, 1)
           on conflict (key, window_start) do update set hits = rate_limit_windows.hits + 1
           returning hits`,
        [key, start],
      );
      // Old windows are dropped now and then by whoever happens to pass.
      if (Math.random() < 0.01) {
        await em().execute('delete from rate_limit_windows where window_start < ?', [
          new Date(start.getTime() - 86_400_000),
        ]);
      }
      if (row.hits > limit) throw rateLimited(retryAfterSeconds);
    },

    async check(key: string, { limit, windowMs }: Window): Promise<void> {
      const { start, retryAfterSeconds } = windowOf(windowMs);
      const rows = await em().execute<{ hits: number }[]>(
        'select hits from rate_limit_windows where key = ? and window_start = ?',
        [key, start],
      );
      if ((rows[0]?.hits ?? 0) >= limit) throw rateLimited(retryAfterSeconds);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The abuse limits of the design doc (section 6). */
export const LIMITS = {
  registerPerIp: { limit: 30, windowMs: HOUR },
  loginFailuresPerAccount: { limit: 10, windowMs: 15 * MINUTE },
  loginPerIp: { limit: 100, windowMs: 15 * MINUTE },
  mailsPerAddress: { limit: 5, windowMs: HOUR },
  resetRequestsPerIp: { limit: 30, windowMs: HOUR },
  codeChecksPerIp: { limit: 60, windowMs: 15 * MINUTE },
  pairingPerIp: { limit: 20, windowMs: 10 * MINUTE },
} satisfies Record<string, Window>;
