import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';
import { Message } from './message.entity';
import type { Deadlines } from './outbox';
import { unevenOf } from './sends.repository';

// Failover: an offline phone's outboxd messages move to another phone.

export const failoverRepository = {
  /** The messages as they are now, not as this EntityManager last saw them (rerouted, for their events). */
  freshMessages: (tx: EntityManager, ids: string[]) => tx.find(Message, { id: { $in: ids } }, { refresh: true }),

  /** Locks an offline phone's outboxd messages of released batches; how many, and how many high priority. */
  async lockReroutable(tx: EntityManager, fromId: string): Promise<{ total: number; high: number }> {
    const rows = await query<{ priority: number }>(
      tx,
      sql`select m.priority from messages m join batches b on b.id = m.batch_id
           where m.device_id = ${fromId} and m.direction = 'outbound' and m.status = 'queued' and b.status <> 'scheduled'
           for update of m`,
    );
    return { total: rows.length, high: rows.filter((row) => row.priority > 0).length };
  },

  /**
   * The queued messages of an offline phone move to another one, in its outbox order, with new
   * deadlines after the `ahead` messages waiting there (never past their send's ttl); batches with
   * nothing left on the old phone move with them; scheduled batches move whole. Returns the moved ids.
   */
  async reroute(
    tx: EntityManager,
    move: { from: string; to: string; now: Date; ahead: number; deadlines: Deadlines },
  ): Promise<string[]> {
    const { deadlines } = move;
    const released = await query<{ id: string }>(
      tx,
      sql`with numbered as (
         select m.id, m.batch_id,
                row_number() over (order by m.priority desc, m.available_at, m.created_at, m.position) as n
           from messages m join batches b on b.id = m.batch_id
          where m.device_id = ${move.from} and m.direction = 'outbound' and m.status = 'queued' and b.status <> 'scheduled'),
       moved as (
         update messages m set device_id = ${move.to}, available_at = ${move.now}, updated_at = ${move.now},
                stale_at = least(coalesce(b.scheduled_at, b.created_at) + make_interval(secs => b.ttl_seconds),
                                 coalesce(to_timestamp(u.at / 1000),
                                          ${deadlines.firstStaleAt}::timestamptz
                                            + make_interval(secs => (n.n - 1) * ${deadlines.perMessageSeconds}::float8)))
           from numbered n
           join batches b on b.id = n.batch_id
           left join unnest(${unevenOf(deadlines)}::float8[]) with ordinality as u (at, i) on u.i = n.n
          where m.id = n.id
         returning m.id, m.batch_id, n.n),
       rebatched as (
         update batches b
            set estimated_completion_at = ${move.now}::timestamptz
                  + make_interval(secs => (${move.ahead}::int + x.last) * ${deadlines.perMessageSeconds}::float8),
                device_id = case when exists (select 1 from messages o
                                               where o.batch_id = b.id and o.device_id = ${move.from} and o.status = 'dispatched')
                                 then b.device_id else ${move.to}::uuid end,
                updated_at = ${move.now}
           from (select batch_id, max(n) as last from moved group by batch_id) x
          where b.id = x.batch_id
         returning b.id)
       select id from moved`,
    );
    const scheduled = await query<{ id: string }>(
      tx,
      sql`with s as (update batches set device_id = ${move.to}, updated_at = ${move.now}
                      where device_id = ${move.from} and status = 'scheduled' returning id)
          update messages m set device_id = ${move.to}, updated_at = ${move.now} from s
           where m.batch_id = s.id and m.status = 'queued' returning m.id`,
    );
    return [...released, ...scheduled].map((row) => row.id);
  },
};
