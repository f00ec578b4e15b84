import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';
import { EmailCode } from './email-code.entity';

// The mailed codes (`email_codes`) of email verification and password reset.

export const emailCodesRepository = {
  latest: (em: EntityManager, userId: string, purpose: EmailCode['purpose']) =>
    em.findOne(EmailCode, { userId, purpose }, { orderBy: { createdAt: 'desc' } }),

  /** The newest code still usable at `now`: unconsumed, unexpired, with tries left. */
  usable: (em: EntityManager, userId: string, purpose: EmailCode['purpose'], now: Date, maxAttempts: number) =>
    em.findOne(
      EmailCode,
      { userId, purpose, consumedAt: null, expiresAt: { $gt: now }, attempts: { $lt: maxAttempts } },
      { orderBy: { createdAt: 'desc' } },
    ),

  /** Ends the unconsumed codes of the purpose, then writes the new one. */
  async replace(em: EntityManager, data: RequiredEntityData<EmailCode>, now: Date): Promise<void> {
    await em.nativeUpdate(
      EmailCode,
      { userId: data.userId, purpose: data.purpose, consumedAt: null },
      { consumedAt: now },
    );
    em.create(EmailCode, data);
    await em.flush();
  },

  /** Counts a wrong try in SQL, so concurrent guesses cannot share one attempt. */
  async countWrongCode(em: EntityManager, codeId: string): Promise<void> {
    await query(em, sql`update email_codes set attempts = attempts + 1 where id = ${codeId}`);
  },

  /** Consumes the code if it is still unconsumed with tries left; false when another try got there first. */
  async burn(em: EntityManager, codeId: string, now: Date, maxAttempts: number): Promise<boolean> {
    const burned = await em.nativeUpdate(
      EmailCode,
      { id: codeId, consumedAt: null, attempts: { $lt: maxAttempts } },
      { consumedAt: now },
    );
    return burned > 0;
  },
};
