import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../../db/sql';

// The SQL of `smsgate_devices`: the key each SMSGate app signs its webhook calls with (sealed).
export const mobileRepository = {
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

  /**
   * A newly registered phone starts at the platform's sending capacity (a phone that registers again
   * with the same device keeps what its owner set).
   */
  async startAtCapacity(em: EntityManager, deviceId: string, capacity: { count: number; minutes: number }) {
    await query(
      em,
      sql`update devices set sending_capacity = ${capacity.count}, sending_capacity_minutes = ${capacity.minutes}
           where id = ${deviceId} and sending_capacity is null
             and not exists (select 1 from smsgate_devices where device_id = ${deviceId})`,
    );
  },

  /**
   * Which of `ids` (UUIDs) name outbound messages of this phone, by their id or by the id of a new
   * attempt (send_id: the app never sends an id it knows again): each such id → the message's id.
   */
  async ownedOf(em: EntityManager, deviceId: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await query<{ id: string; sendId: string | null }>(
      em,
      sql`select id, send_id from messages where id = any(${ids}::uuid[]) and device_id = ${deviceId} and direction = 'outbound'
          union
          select id, send_id from messages where send_id = any(${ids}::uuid[]) and device_id = ${deviceId}`,
    );
    const owned = new Map<string, string>();
    const asked = new Set(ids.map((id) => id.toLowerCase()));
    for (const row of rows) {
      if (asked.has(row.id)) owned.set(row.id, row.id);
      if (row.sendId && asked.has(row.sendId)) owned.set(row.sendId, row.id);
    }
    return owned;
  },
};
