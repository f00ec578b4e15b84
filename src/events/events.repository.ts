import type { EntityManager } from '@mikro-orm/postgresql';
import type { Event } from './event.entity';
import { query, sql, type Sql } from '../db/sql';

// The SQL of `events`.
export const eventsRepository = {
  /** Many events in one statement: their rows travel as one JSON parameter. */
  async insertMany(tx: EntityManager, events: Event[]): Promise<void> {
    if (events.length === 0) return;
    await query(tx, eventsRepository.inserted(events, sql`true`), { prepared: true });
  },

  /**
   * `insertMany` as a statement for another's CTE, run once `after` holds (which orders it after what
   * `after` reads).
   */
  inserted: (events: Event[], after: Sql): Sql => {
    const rows = JSON.stringify(
      events.map((e) => ({
        id: e.id,
        user_id: e.userId,
        name: e.name,
        data: e.data,
        message_id: e.messageId ?? null,
        device_id: e.deviceId ?? null,
        created_at: e.createdAt.toISOString(),
      })),
    );
    return sql`insert into events (id, user_id, name, data, message_id, device_id, created_at)
          select id, user_id, name, data, message_id, device_id, created_at
            from json_to_recordset(${rows}::json)
              as x (id uuid, user_id uuid, name text, data jsonb, message_id uuid, device_id uuid, created_at timestamptz)
           where ${after}`;
  },
};
