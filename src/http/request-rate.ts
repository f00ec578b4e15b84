import type { Clock } from '../lib/clock';
import { rateLimited } from './errors';

export interface Rate {
  /** Sustained requests per second. */
  perSecond: number;
  /** Requests allowed at once after a quiet spell. */
  burst: number;
}

/**
 * Token buckets in this process's memory, one per caller (API key, device): the request path pays
 * no database round trip for them. Several API processes each keep their own, so N processes allow
 * N times the rate, and a restart starts every bucket full (docs/operations.md, "Limits and hostile input").
 */
export function tokenBuckets(rate: Rate, clock: Clock, maxBuckets = 100_000) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  // A bucket left alone this long is full again: forgetting it changes nothing.
  const refillMs = (rate.burst / rate.perSecond) * 1000;

  function forgetFull(now: number) {
    for (const [id, bucket] of buckets) if (now - bucket.at >= refillMs) buckets.delete(id);
  }

  return {
    /** Takes one token for `id`, or throws 429 rate_limited with the seconds until the next one. */
    take(id: string): void {
      const now = clock.now().getTime();
      const bucket = buckets.get(id) ?? { tokens: rate.burst, at: now };
      bucket.tokens = Math.min(rate.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate.perSecond);
      bucket.at = now;
      if (!buckets.has(id)) {
        if (buckets.size >= maxBuckets) forgetFull(now);
        buckets.set(id, bucket);
      }
      if (bucket.tokens < 1) throw rateLimited((1 - bucket.tokens) / rate.perSecond);
      bucket.tokens -= 1;
    },
  };
}
