import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';
import type { UsagePeriod } from './usage.schemas';

export interface UsageCounts {
  /** The period's first day, YYYY-MM-DD. */
  start: string;
  sent: number;
  delivered: number;
  failed: number;
  cancelled: number;
  optedOut: number;
  received: number;
  segments: number;
}

export const usageRepository = {
  /**
   * Every day or month from `first`'s to `last`'s in `timezone`, oldest first, each with the account's
   * texts created in it (on messages_user_idx: one range of created_at). Sent texts are those that
   * reached the carrier, as in GET /v1/stats/daily; segments are theirs.
   */
  async counts(
    em: EntityManager,
    userId: string,
    period: UsagePeriod,
    first: string,
    last: string,
    timezone: string,
  ): Promise<UsageCounts[]> {
    const step = sql`('1 ' || ${period}::text)::interval`;
    const start = sql`date_trunc(${period}::text, ${first}::date::timestamp)`;
    const end = sql`date_trunc(${period}::text, ${last}::date::timestamp) + ${step}`;
    const reached = sql`m.direction = 'outbound' and (m.sent_at is not null or m.status = 'delivered')`;
    return query(
      em,
      sql`with periods as (
            select p::date as start from generate_series(${start}, ${end} - ${step}, ${step}) as p
          ), counted as (
            select date_trunc(${period}::text, m.created_at at time zone ${timezone})::date as start,
                   count(*) filter (where ${reached})::int as sent,
                   count(*) filter (where m.direction = 'outbound' and m.status = 'delivered')::int as delivered,
                   count(*) filter (where m.direction = 'outbound' and m.status = 'failed')::int as failed,
                   count(*) filter (where m.direction = 'outbound' and m.status = 'failed'
                                      and m.error_code = 'cancelled')::int as cancelled,
                   count(*) filter (where m.direction = 'outbound' and m.status = 'failed'
                                      and m.error_code = 'opted_out')::int as opted_out,
                   count(*) filter (where m.direction = 'inbound')::int as received,
                   coalesce(sum(m.segments) filter (where ${reached}), 0)::int as segments
              from messages m
             where m.user_id = ${userId}
               and m.created_at >= (${start} at time zone ${timezone})
               and m.created_at < ((${end}) at time zone ${timezone})
             group by 1
          )
          select to_char(p.start, 'YYYY-MM-DD') as start, coalesce(c.sent, 0) as sent,
                 coalesce(c.delivered, 0) as delivered, coalesce(c.failed, 0) as failed,
                 coalesce(c.cancelled, 0) as cancelled, coalesce(c.opted_out, 0) as opted_out,
                 coalesce(c.received, 0) as received, coalesce(c.segments, 0) as segments
            from periods p left join counted c on c.start = p.start
           order by p.start`,
    );
  },
};
