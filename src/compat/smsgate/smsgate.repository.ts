import type { EntityManager } from '@mikro-orm/postgresql';
import { execute } from '../../db/sql';

// The SQL of `smsgate_devices`: the key each SMSGate app signs its webhook calls with (sealed).
export const smsgateRepository = {
  /** The phone's sealed key, created on first use; a concurrent first use keeps one. */
  async sealedKey(em: EntityManager, deviceId: string, sealIfNew: () => string, at: Date): Promise<string> {
    await execute(
      em,
      `insert into smsgate_devices (device_id, signing_key, created_at) values (?, ?, ?)
       on conflict (device_id) do nothing`,
      [deviceId, sealIfNew(), at],
    );
    const [row] = await execute<{ signing_key: string }[]>(
      em,
      'select signing_key from smsgate_devices where device_id = ?',
      [deviceId],
    );
    return row.signing_key;
  },

  /** The sealed key of a phone that is still paired, with its account; nothing otherwise. */
  async keyOfPaired(em: EntityManager, deviceId: string) {
    const [row] = await execute<{ user_id: string; signing_key: string }[]>(
      em,
      `select d.user_id, s.signing_key from smsgate_devices s join devices d on d.id = s.device_id
        where s.device_id = ? and d.unpaired_at is null`,
      [deviceId],
    );
    return row;
  },
};
