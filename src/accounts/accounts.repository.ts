import type { EntityManager } from '@mikro-orm/postgresql';
import { execute } from '../db/sql';

// The SQL of `users` and `email_codes` that is not a plain entity read or write.

export const accountsRepository = {
  /** The plan an account is on; undefined for an unknown account. */
  async planIdOf(em: EntityManager, userId: string): Promise<string | undefined> {
    const [row] = await execute<{ plan_id: string }[]>(em, 'select plan_id from users where id = ?', [userId]);
    return row?.plan_id;
  },

  /** Whether the account's email is verified (every send asks); undefined for an unknown account. */
  async emailVerified(em: EntityManager, userId: string): Promise<boolean | undefined> {
    const [row] = await execute<{ verified: boolean }[]>(
      em,
      'select email_verified_at is not null as verified from users where id = ?',
      [userId],
    );
    return row?.verified;
  },

  /** Counts a wrong try in SQL, so concurrent guesses cannot share one attempt. */
  async countWrongCode(em: EntityManager, codeId: string): Promise<void> {
    await execute(em, 'update email_codes set attempts = attempts + 1 where id = ?', [codeId]);
  },

  /** The account's settings (GET /v1/account/settings). */
  async settings(em: EntityManager, userId: string): Promise<{ failover: boolean } | undefined> {
    const [row] = await execute<{ failover: boolean }[]>(em, 'select failover from users where id = ?', [userId]);
    return row;
  },

  async updateSettings(em: EntityManager, userId: string, patch: { failover?: boolean }, at: Date) {
    const [row] = await execute<{ failover: boolean }[]>(
      em,
      'update users set failover = coalesce(?, failover), updated_at = ? where id = ? returning failover',
      [patch.failover ?? null, at, userId],
    );
    return row;
  },
};
