import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../lib/clock';
import { rateLimited } from './errors';
import { rateLimitRepository } from './rate-limit.repository';

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
      const hits = await rateLimitRepository.hit(em(), key, start);
      // Old windows are dropped now and then by whoever happens to pass.
      if (Math.random() < 0.01) {
        await rateLimitRepository.dropBefore(em(), new Date(start.getTime() - 86_400_000));
      }
      if (hits > limit) throw rateLimited(retryAfterSeconds);
    },

    async check(key: string, { limit, windowMs }: Window): Promise<void> {
      const { start, retryAfterSeconds } = windowOf(windowMs);
      if ((await rateLimitRepository.hits(em(), key, start)) >= limit) throw rateLimited(retryAfterSeconds);
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
