import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../http/errors';
import type { Clock } from '../lib/clock';
import { randomDigits, safeEqual, sha256 } from '../lib/crypto';
import { emailCodesRepository } from './email-codes.repository';

export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
// A new code for the same purpose is not mailed more often than this.
export const RESEND_INTERVAL_MS = 60_000;

export type CodePurpose = 'verify' | 'reset';

export const invalidCode = () => new ApiError(400, 'invalid_code', 'The code is wrong, expired or already used.');

const hashCode = (userId: string, purpose: CodePurpose, code: string) => sha256(`${purpose}:${userId}:${code}`);

/** Six-digit codes for email verification and password reset: single use, 10 minutes, 5 tries. */
export function createEmailCodesService({ em, clock }: { em: () => EntityManager; clock: Clock }) {
  return {
    /**
     * A fresh code (earlier ones for the same purpose stop working), or null when one was issued less
     * than a minute ago (the resend throttle).
     */
    async issue(userId: string, purpose: CodePurpose): Promise<string | null> {
      const now = clock.now();
      const latest = await emailCodesRepository.latest(em(), userId, purpose);
      if (latest && now.getTime() - latest.createdAt.getTime() < RESEND_INTERVAL_MS) return null;
      const code = randomDigits(6);
      await emailCodesRepository.replace(
        em(),
        {
          userId,
          purpose,
          codeHash: hashCode(userId, purpose, code),
          expiresAt: new Date(now.getTime() + CODE_TTL_MS),
          createdAt: now,
        },
        now,
      );
      return code;
    },

    /** Burns the code on success; counts a wrong try (the fifth burns it). Throws invalid_code. */
    async consume(userId: string, purpose: CodePurpose, code: string): Promise<void> {
      const now = clock.now();
      const current = await emailCodesRepository.usable(em(), userId, purpose, now, CODE_MAX_ATTEMPTS);
      if (!current) throw invalidCode();
      if (!safeEqual(current.codeHash, hashCode(userId, purpose, code))) {
        await emailCodesRepository.countWrongCode(em(), current.id);
        throw invalidCode();
      }
      if (!(await emailCodesRepository.burn(em(), current.id, now, CODE_MAX_ATTEMPTS))) throw invalidCode();
    },
  };
}

export type EmailCodesService = ReturnType<typeof createEmailCodesService>;
