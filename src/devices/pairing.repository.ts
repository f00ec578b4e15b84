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

  async linkDevice(tx: EntityManager, codeId: string, deviceId: string): Promise<void> {
    await query(tx, sql`update pairing_codes set device_id = ${deviceId} where id = ${codeId}`);
  },
};
