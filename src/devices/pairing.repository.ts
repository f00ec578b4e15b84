import type { EntityManager } from '@mikro-orm/postgresql';
import { execute } from '../db/sql';

// The SQL of `pairing_codes`: a code is consumed by one guarded UPDATE, so it is single use under concurrency.

export const pairingRepository = {
  /** Consumes a live code; returns its row, or nothing for an unknown, used or expired code. */
  async consume(tx: EntityManager, codeHash: string, now: Date): Promise<{ id: string; user_id: string } | undefined> {
    const [row] = await execute<{ id: string; user_id: string }[]>(
      tx,
      `update pairing_codes set consumed_at = ?
        where code_hash = ? and consumed_at is null and expires_at > ?
        returning id, user_id`,
      [now, codeHash, now],
    );
    return row;
  },

  async linkDevice(tx: EntityManager, codeId: string, deviceId: string): Promise<void> {
    await execute(tx, 'update pairing_codes set device_id = ? where id = ?', [deviceId, codeId]);
  },
};
