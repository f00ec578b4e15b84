import { isIPv4, isIPv6 } from 'node:net';
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
export function createRateLimiter({
  em,
  clock,
  sweepChance = 0.01,
}: {
  em: () => EntityManager;
  clock: Clock;
  /** The share of hits that also drop the windows idle for a day. */
  sweepChance?: number;
}) {
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
      if (Math.random() < sweepChance) await rateLimitRepository.dropIdle(em());
      if (hits > limit) throw rateLimited(retryAfterSeconds);
    },

    async check(key: string, { limit, windowMs }: Window): Promise<void> {
      const { start, retryAfterSeconds } = windowOf(windowMs);
      if ((await rateLimitRepository.hits(em(), key, start)) >= limit) throw rateLimited(retryAfterSeconds);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The eight 16-bit groups of an IPv6 address (zone dropped, an embedded IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0].toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  const back = part(tail);
  return tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * What the abuse limits count an address as: an IPv4 address alone (/32), an IPv6 address by its
 * /64, the smallest network one subscriber is given (any address in it is theirs to use), and an
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d, what a dual-stack socket reports) as its IPv4 address.
 */
export function networkOf(ip: string): string {
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return ip;
  const groups = ipv6Groups(ip);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The abuse limits of the design doc (section 6); "Ip" means the address's network (networkOf). */
export const LIMITS = {
  registerPerIp: { limit: 30, windowMs: HOUR },
  /** Wrong passwords for one account from one network: past them that network is refused. */
  loginFailuresPerAccountAndIp: { limit: 10, windowMs: 15 * MINUTE },
  /** From all networks together: past them only networks the account has signed in from may try. */
  loginFailuresPerAccount: { limit: 10, windowMs: 15 * MINUTE },
  loginPerIp: { limit: 100, windowMs: 15 * MINUTE },
  mailsPerAddress: { limit: 5, windowMs: HOUR },
  resetRequestsPerIp: { limit: 30, windowMs: HOUR },
  codeChecksPerIp: { limit: 60, windowMs: 15 * MINUTE },
  /** Wrong pairing codes from one network: past them, only a right code pairs from it. */
  pairingPerIp: { limit: 20, windowMs: 10 * MINUTE },
  /** Wrong guesses naming one live code (its first characters right, the rest wrong): past them it is void. */
  pairingPerCode: { limit: 5, windowMs: 10 * MINUTE },
  /** Wrong guesses naming any of one account's live codes: past them its codes are void until the window ends. */
  pairingPerAccount: { limit: 20, windowMs: 10 * MINUTE },
} satisfies Record<string, Window>;
