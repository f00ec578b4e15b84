import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';

// The SQL of `users` and `email_codes` that is not a plain entity read or write.

export const accountsRepository = {
  /** Whether the account's email is verified (every send asks); undefined for an unknown account. */
  async emailVerified(em: EntityManager, userId: string): Promise<boolean | undefined> {
    const [row] = await query<{ verified: boolean }>(
      em,
      sql`select email_verified_at is not null as verified from users where id = ${userId}`,
    );
    return row?.verified;
  },

  /** Counts a wrong try in SQL, so concurrent guesses cannot share one attempt. */
  async countWrongCode(em: EntityManager, codeId: string): Promise<void> {
    await query(em, sql`update email_codes set attempts = attempts + 1 where id = ${codeId}`);
  },

  /** The account's settings (GET /v1/account/settings). */
  async settings(em: EntityManager, userId: string): Promise<{ failover: boolean } | undefined> {
    const [row] = await query<{ failover: boolean }>(em, sql`select failover from users where id = ${userId}`);
    return row;
  },

  async updateSettings(em: EntityManager, userId: string, patch: { failover?: boolean }, at: Date) {
    const [row] = await query<{ failover: boolean }>(
      em,
      sql`update users set failover = coalesce(${patch.failover ?? null}::boolean, failover), updated_at = ${at}
           where id = ${userId} returning failover`,
    );
    return row;
  },
};
