import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';
import { findPage, type Page } from '../http/pagination';
import { PairingCode, PairingRefusal, type PairingRefusalReason } from './device.entity';

// The SQL of `pairing_codes`: a code is consumed by one guarded UPDATE, so it is single use under concurrency.

export const pairingRepository = {
  async insertCode(em: EntityManager, data: RequiredEntityData<PairingCode>): Promise<PairingCode> {
    const code = em.create(PairingCode, data);
    await em.flush();
    return code;
  },

  /** The account's code, or null: another account's code is not found. */
  ownedCode: (em: EntityManager, userId: string, id: string) => em.findOne(PairingCode, { id, userId }),

  async hasCode(em: EntityManager, userId: string, id: string): Promise<boolean> {
    return (await em.count(PairingCode, { id, userId })) > 0;
  },

  /** Consumes a live code; returns its row, or nothing for an unknown, used or expired code. */
  async consume(tx: EntityManager, codeHash: string, now: Date): Promise<{ id: string; userId: string } | undefined> {
    const [row] = await query<{ id: string; userId: string }>(
      tx,
      sql`update pairing_codes set consumed_at = ${now}
           where code_hash = ${codeHash} and consumed_at is null and expires_at > ${now}
          returning id, user_id`,
    );
    return row;
  },

  /** The live codes a guess's first characters name: their ids, accounts and whole hashes. */
  async liveBySelector(
    em: EntityManager,
    selectorHash: string,
    now: Date,
  ): Promise<{ id: string; userId: string; codeHash: string }[]> {
    return query(
      em,
      sql`select id, user_id, code_hash from pairing_codes
           where selector_hash = ${selectorHash} and consumed_at is null and expires_at > ${now}`,
    );
  },

  /** Whether a live code already has this selector (a new code is given another). */
  async selectorTaken(em: EntityManager, selectorHash: string, now: Date): Promise<boolean> {
    const rows = await query(
      em,
      sql`select 1 from pairing_codes where selector_hash = ${selectorHash} and consumed_at is null and expires_at > ${now} limit 1`,
    );
    return rows.length > 0;
  },

  /** The codes, in any state, with this whole hash: a used or expired code is still the account's. */
  async byHash(
    em: EntityManager,
    codeHash: string,
  ): Promise<{ id: string; userId: string; consumedAt: Date | null; expiresAt: Date }[]> {
    return query(
      em,
      sql`select id, user_id, consumed_at, expires_at from pairing_codes where code_hash = ${codeHash} limit 5`,
    );
  },

  /** Counts one refused attempt with a code: one row per code and reason (see the migration). */
  async recordRefusal(
    em: EntityManager,
    refusal: { id: string; userId: string; pairingCodeId: string; reason: PairingRefusalReason; at: Date },
  ): Promise<void> {
    await query(
      em,
      sql`insert into pairing_refusals (id, user_id, pairing_code_id, reason, attempts, created_at, last_attempt_at)
          values (${refusal.id}, ${refusal.userId}, ${refusal.pairingCodeId}, ${refusal.reason}, 1, ${refusal.at}, ${refusal.at})
          on conflict (pairing_code_id, reason) do update
            set attempts = pairing_refusals.attempts + 1,
                last_attempt_at = greatest(pairing_refusals.last_attempt_at, excluded.last_attempt_at)`,
    );
  },

  /** An account's refused attempts (or one code's), newest first: the one pagination. */
  listRefusals(
    em: EntityManager,
    userId: string,
    filter: { pairingCodeId?: string; cursor?: string; limit: number },
  ): Promise<Page<PairingRefusal>> {
    const where = filter.pairingCodeId ? { userId, pairingCodeId: filter.pairingCodeId } : { userId };
    return findPage(em, PairingRefusal, where, { cursor: filter.cursor, limit: filter.limit, order: 'desc' });
  },

  async linkDevice(tx: EntityManager, codeId: string, deviceId: string): Promise<void> {
    await query(tx, sql`update pairing_codes set device_id = ${deviceId} where id = ${codeId}`);
  },
};
