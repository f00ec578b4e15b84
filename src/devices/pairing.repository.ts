import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';

// The SQL of `pairing_codes`: a code is consumed by one guarded UPDATE, so it is single use under concurrency.

export const pairingRepository = {
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

  async linkDevice(tx: EntityManager, codeId: string, deviceId: string): Promise<void> {
    await query(tx, sql`update pairing_codes set device_id = ${deviceId} where id = ${codeId}`);
  },
};
