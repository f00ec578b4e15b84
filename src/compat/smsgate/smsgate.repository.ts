import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../../db/sql';

// The SQL of `smsgate_devices`: the key each SMSGate app signs its webhook calls with (sealed).
export const smsgateRepository = {
  /** The phone's sealed key, created on first use; a concurrent first use keeps one. */
  async sealedKey(em: EntityManager, deviceId: string, sealIfNew: () => string, at: Date): Promise<string> {
    await query(
      em,
      sql`insert into smsgate_devices (device_id, signing_key, created_at) values (${deviceId}, ${sealIfNew()}, ${at})
          on conflict (device_id) do nothing`,
    );
    const [row] = await query<{ signingKey: string }>(
      em,
      sql`select signing_key from smsgate_devices where device_id = ${deviceId}`,
    );
    return row.signingKey;
  },

  /** The sealed key of a phone that is still paired, with its account; nothing otherwise. */
  async keyOfPaired(em: EntityManager, deviceId: string) {
    const [row] = await query<{ userId: string; signingKey: string }>(
      em,
      sql`select d.user_id, s.signing_key from smsgate_devices s join devices d on d.id = s.device_id
           where s.device_id = ${deviceId} and d.unpaired_at is null`,
    );
    return row;
  },

  /** Which of `ids` (UUIDs) are outbound messages of this phone. */
  async ownedOf(em: EntityManager, deviceId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await query<{ id: string }>(
      em,
      sql`select id from messages where id = any(${ids}::uuid[]) and device_id = ${deviceId} and direction = 'outbound'`,
    );
    return new Set(rows.map((row) => row.id));
  },
};
