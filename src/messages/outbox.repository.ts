import type { EntityManager } from '@mikro-orm/postgresql';
import { query, queryRaw, sql, type Sql } from '../db/sql';
import type { ProcessingOrder } from '../devices/device.entity';
import { messageColumns, movedFromRows, type Moved } from './messages.repository';

// A phone's outbox: handing out what it may send now, its pace's counts, and the probes that tell
// it (or its live channel) that there is new work.

// The outbox's order, as its index (messages_outbox_idx) keeps it; newest first (lifo) within a
// priority is the same index read backwards within each priority.
const OUTBOX_ORDER = {
  fifo: sql`priority desc, available_at, created_at, position`,
  lifo: sql`priority desc, available_at desc, created_at desc, position desc`,
};

/**
 * Whether a phone holds handed-out messages not yet reported (and not lapsed): its lease. On
 * messages_leased_idx, which holds only the handed-out messages: the outbox index holds the whole
 * queue, and proving that none of it is dispatched read every queued row.
 */
const leased = (deviceId: Sql, now: Date): Sql =>
  sql`exists (select 1 from messages m
               where m.device_id = ${deviceId} and m.status = 'dispatched' and m.stale_at > ${now} and m.held_at is null)`;

/**
 * Waiting to be handed out for a send: queued, or dispatched and refused by the phone's platform for
 * its limit (held), which is handed out again as a new attempt.
 */
const WAITING = sql`(status = 'queued' or (status = 'dispatched' and held_at is not null))`;

/** The phone's messages a condition selects that it may send now, in the outbox's order; named `due`. */
const dueIn =
  (deviceId: string, now: Date, order: ProcessingOrder) =>
  (status: Sql): Sql =>
    sql`select id, status as old_status, held_at is not null as held from messages
         where device_id = ${deviceId} and ${status} and available_at <= ${now} and stale_at > ${now}
         order by ${OUTBOX_ORDER[order]}`;

/** Marks `due` dispatched; returns each message with the status it came from and whether it goes for a send. */
// A held message's new attempt is a send of its own: handed out now, counted by the pace again.
const dispatch = (now: Date): Sql =>
  sql`update messages m
         set status = 'dispatched', updated_at = ${now}, held_at = null,
             dispatched_at = case when due.held then ${now} else coalesce(m.dispatched_at, ${now}) end
        from due where m.id = due.id
      returning ${messageColumns('m')}, due.old_status, (due.old_status = 'queued' or due.held) as for_send`;

/** Moves in the outbox's order (an UPDATE returns its rows in no order). */
function inOutboxOrder(moves: Moved[], order: ProcessingOrder): Moved[] {
  const later = order === 'lifo' ? -1 : 1;
  return moves.sort(
    (a, b) =>
      b.message.priority - a.message.priority ||
      later *
        (a.message.availableAt!.getTime() - b.message.availableAt!.getTime() ||
          a.message.createdAt.getTime() - b.message.createdAt.getTime() ||
          a.message.position - b.message.position),
  );
}

export const outboxRepository = {
  leased,

  /**
   * Hands out up to `limit` messages the phone may send now, high priority first, then oldest first
   * (newest first when `order` is lifo), marking queued ones dispatched; dispatched ones come again
   * until reported, lapsed ones never. `fresh` bounds how many may be handed out for a send (queued
   * ones, and held ones as a new attempt: a paced phone's allowance); null: no bound. Returns the
   * moves in that order and which of them were for a send.
   */
  async takeOutbox(
    tx: EntityManager,
    deviceId: string,
    now: Date,
    limit: number,
    fresh: number | null = null,
    order: ProcessingOrder = 'fifo',
  ): Promise<{ moves: Moved[]; sends: number; forSend: Set<string> }> {
    const due = dueIn(deviceId, now, order);
    const rows = await queryRaw(
      tx,
      fresh === null
        ? sql`with due as (${due(sql`direction = 'outbound' and status in ('queued', 'dispatched')`)} limit ${limit} for update skip locked)
           ${dispatch(now)}`
        : // Handed out again does not count against the pace; handed out for a send does.
          sql`with again as (${due(sql`direction = 'outbound' and status = 'dispatched' and held_at is null`)} limit ${limit} for update skip locked),
                fresh as (${due(sql`direction = 'outbound' and ${WAITING}`)}
                          limit least(${fresh}::int, greatest(${limit}::int - (select count(*) from again), 0))
                          for update skip locked),
                due as (select * from again union all select * from fresh)
           ${dispatch(now)}`,
      // Planning it costs more than running it for a page of a few texts: each connection plans it once.
      { prepared: true },
    );
    const forSend = new Set(rows.filter((row) => row.for_send === true).map((row) => row.id as string));
    return { moves: inOutboxOrder(movedFromRows(rows), order), sends: forSend.size, forSend };
  },

  /**
   * The fetch of a phone that needs nothing decided between its statements, in one statement outside
   * a transaction: what takeOutbox hands out without a bound, and the batches' counts and statuses
   * that follow. `plain` selects the phone when it is such a phone (devicesRepository.plainOutbox);
   * when it is not, nothing is written and `fits` is false: the transaction decides. A fetch moves
   * messages from queued to dispatched only, so the batches' counters are batchesRepository's
   * `dispatchedFrom` and no batch becomes final.
   */
  async takePlainOutbox(
    em: EntityManager,
    deviceId: string,
    now: Date,
    limit: number,
    order: ProcessingOrder,
    plain: Sql,
    counted: (moved: Sql) => Sql,
  ): Promise<{ fits: boolean; moves: Moved[] }> {
    const due = dueIn(deviceId, now, order);
    const rows = await queryRaw(
      em,
      sql`with plain as (${plain}),
               due as (${due(sql`direction = 'outbound' and status in ('queued', 'dispatched') and exists (select 1 from plain)`)}
                       limit ${limit} for update skip locked),
               moved as (${dispatch(now)}),
               counted as (${counted(sql`moved`)})
          select f.fits, moved.* from (select exists (select 1 from plain) as fits) f left join moved on true`,
      { prepared: true },
    );
    const fits = rows[0]?.fits === true;
    return { fits, moves: inOutboxOrder(movedFromRows(rows.filter((row) => row.id != null)), order) };
  },

  /** Records the SIM each of these messages goes out on (a SIM chosen as they are handed out). */
  async recordSims(tx: EntityManager, sims: { id: string; sim: number }[]): Promise<void> {
    if (sims.length === 0) return;
    await query(
      tx,
      sql`update messages m set sim_subscription_id = s.sim
            from unnest(${sims.map((s) => s.id)}::uuid[], ${sims.map((s) => s.sim)}::int[]) as s (id, sim)
           where m.id = s.id`,
    );
  },

  /**
   * How many messages a phone was handed out (for the first time, or as a new attempt) since each of
   * these instants, in their order.
   */
  async dispatchedSince(tx: EntityManager, deviceId: string, since: Date[]): Promise<number[]> {
    if (since.length === 0) return [];
    const earliest = new Date(Math.min(...since.map((at) => at.getTime())));
    const [row] = await query<{ counts: number[] }>(
      tx,
      sql`select array[${sql.join(since.map((at) => sql`count(*) filter (where dispatched_at > ${at})::int`))}] as counts
            from messages where device_id = ${deviceId} and dispatched_at > ${earliest}`,
    );
    return row.counts;
  },

  /**
   * Per phone, the newest message it may send now of each priority (a change says the phone has new
   * work); one probe of the outbox index per priority.
   */
  async newestDue(em: EntityManager, deviceIds: string[], now: Date): Promise<Map<string, string>> {
    const rows = await query<{ deviceId: string; id: string }>(
      em,
      sql`select d.id as device_id, string_agg(m.id::text, ',' order by p.rank desc) as id
            from unnest(${deviceIds}::uuid[]) as d (id)
           cross join (values (1), (0)) as p (rank)
            join lateral (select id from messages
                           where device_id = d.id and priority = p.rank and direction = 'outbound' and ${WAITING}
                             and available_at <= ${now} and stale_at > ${now}
                           order by available_at desc, created_at desc limit 1) m on true
           group by d.id`,
    );
    return new Map(rows.map((row) => [row.deviceId, row.id]));
  },

  /**
   * The phones among these whose max_sends_per_minute/hour/day or sending capacity allow no new message
   * now (allowance in phone-messages.service), or whose outbox is paused for the platform's limit:
   * their outbox hands out nothing fresh until the trailing window frees or the pause ends.
   */
  async pacedOut(em: EntityManager, deviceIds: string[], now: Date): Promise<Set<string>> {
    const minuteAgo = new Date(now.getTime() - 60_000);
    const hourAgo = new Date(now.getTime() - 3_600_000);
    const dayAgo = new Date(now.getTime() - 86_400_000);
    const rows = await query<{ id: string }>(
      em,
      sql`with paced as (select id, max_sends_per_minute, max_sends_per_hour, max_sends_per_day, sending_capacity,
                                paused_until,
                                ${now}::timestamptz - make_interval(mins => sending_capacity_minutes) as period_start
                           from devices
                          where id = any(${deviceIds}::uuid[])
                            and (max_sends_per_minute is not null or max_sends_per_hour is not null
                                 or max_sends_per_day is not null
                                 or sending_capacity is not null or paused_until > ${now}))
          select p.id from paced p
           cross join lateral (select count(*) filter (where m.dispatched_at > ${minuteAgo})::int as minute,
                                      count(*) filter (where m.dispatched_at > ${hourAgo})::int as hour,
                                      count(*) filter (where m.dispatched_at > ${dayAgo})::int as day,
                                      count(*) filter (where m.dispatched_at > p.period_start)::int as period
                                 from messages m
                                where m.device_id = p.id
                                  and m.dispatched_at > least(${minuteAgo}::timestamptz,
                                        case when p.max_sends_per_hour is not null then ${hourAgo}::timestamptz end,
                                        case when p.max_sends_per_day is not null then ${dayAgo}::timestamptz end,
                                        case when p.sending_capacity is not null then p.period_start end)) c
           where p.paused_until > ${now} or c.minute >= p.max_sends_per_minute or c.hour >= p.max_sends_per_hour
              or c.day >= p.max_sends_per_day or c.period >= p.sending_capacity`,
    );
    return new Set(rows.map((row) => row.id));
  },

  /**
   * Per phone, its lease: whether it holds handed-out messages not yet reported (and not lapsed),
   * and when it was last handed one (a change says it fetched since).
   */
  async leases(
    em: EntityManager,
    deviceIds: string[],
    now: Date,
  ): Promise<Map<string, { leased: boolean; handedOutAt: string | null }>> {
    const rows = await query<{ deviceId: string; leased: boolean; handedOutAt: unknown }>(
      em,
      sql`select d.id as device_id, ${leased(sql`d.id`, now)} as leased,
                 (select max(dispatched_at) from messages m
                   where m.device_id = d.id and m.dispatched_at is not null) as handed_out_at
            from unnest(${deviceIds}::uuid[]) as d (id)`,
    );
    return new Map(
      rows.map((row) => [
        row.deviceId,
        { leased: row.leased, handedOutAt: row.handedOutAt === null ? null : String(row.handedOutAt) },
      ]),
    );
  },

  /**
   * A select that NOTIFYs `channel` with the phone's id, at commit, when it holds no handed-out
   * message and has work it may send now: a phone that fetched a page and reported all of it is told
   * to come back. For another statement's CTE (`addToCounters`), where the report's moves are seen.
   */
  drainedNotice: (channel: string, deviceId: string, now: Date): Sql =>
    sql`select pg_notify(${channel}, ${deviceId})
         where not ${leased(sql`${deviceId}::uuid`, now)}
           and exists (select 1 from messages
                        where device_id = ${deviceId} and direction = 'outbound' and ${WAITING}
                          and available_at <= ${now} and stale_at > ${now})`,
};
