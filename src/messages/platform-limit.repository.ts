import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';
import type { PacingRow } from '../devices/devices.repository';

// The statements of holding back texts a phone's platform refused for its limit (./platform-limit.ts).

export const platformLimitRepository = {
  /** Holds the phone's dispatched, not yet held messages among `ids` as new attempts (a new send_id); the held ids. */
  holdDispatched: (tx: EntityManager, deviceId: string, ids: string[], now: Date) =>
    query<{ id: string }>(
      tx,
      sql`update messages set held_at = ${now}, send_id = gen_random_uuid(), updated_at = ${now}
           where id = any(${ids}::uuid[]) and device_id = ${deviceId} and status = 'dispatched' and held_at is null
       returning id`,
    ),

  /** Pauses the phone's outbox for its period (sending_capacity_minutes) from `now`; its pacing and the pause's end. */
  async pauseForCapacity(tx: EntityManager, deviceId: string, now: Date): Promise<PacingRow & { pausedUntil: string }> {
    const [device] = await query<PacingRow & { pausedUntil: string }>(
      tx,
      sql`update devices
             set paused_until = greatest(coalesce(paused_until, ${now}),
                                         ${now}::timestamptz + make_interval(mins => sending_capacity_minutes))
           where id = ${deviceId}
       returning paused_until, send_delay_seconds, send_delay_jitter_seconds, max_sends_per_minute,
                 max_sends_per_hour, max_sends_per_day, sending_capacity, sending_capacity_minutes, send_window`,
    );
    return device;
  },

  /**
   * Moves the stale deadlines of what waits on the phone, and its batches' estimates, past `resume`
   * at `per` seconds a message.
   */
  async moveDeadlinesPast(
    tx: EntityManager,
    deviceId: string,
    resume: Date,
    staleWindowSeconds: number,
    per: number,
    now: Date,
  ): Promise<void> {
    // What waits to be handed out, in outbox order, goes from the pause on at the phone's pace
    // (never earlier than it was placed, nor past its send's ttl).
    await query(
      tx,
      sql`with waiting as (
           select m.id, m.batch_id,
                  row_number() over (order by m.priority desc, m.available_at, m.created_at, m.position) as n
             from messages m
            where m.device_id = ${deviceId} and m.direction = 'outbound' and m.stale_at is not null
              and (m.status = 'queued' or (m.status = 'dispatched' and m.held_at is not null))),
         moved as (
           update messages m
              set stale_at = greatest(m.stale_at,
                                      least(coalesce(b.scheduled_at, b.created_at) + make_interval(secs => b.ttl_seconds),
                                            ${resume}::timestamptz + make_interval(secs => ${staleWindowSeconds}::float8
                                              + (w.n - 1) * ${per}::float8)))
             from waiting w join batches b on b.id = w.batch_id
            where m.id = w.id
           returning m.batch_id, w.n)
         update batches b
            set estimated_completion_at = greatest(b.estimated_completion_at,
                  ${resume}::timestamptz + make_interval(secs => x.last * ${per}::float8)),
                updated_at = ${now}
           from (select batch_id, max(n) as last from moved group by batch_id) x
          where b.id = x.batch_id`,
    );
  },
};
