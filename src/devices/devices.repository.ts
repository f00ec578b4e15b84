import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProcessingOrder, Sim, SimSelection } from './device.entity';
import type { SendWindow } from './send-window';
import { query, sql, toDate, type Sql } from '../db/sql';

// The SQL other features need on `devices`: where a send goes, its place in the phone's outbox, and
// the counters that messages moving through the queue keep.

export interface SendingDevice extends PacingRow {
  id: string;
  preferredSimSubscriptionId: number | null;
  sims: Sim[] | null;
  simSelection: SimSelection;
}

/** Per phone: messages that left its outbox (of them, high-priority ones), and messages that reached the carrier. */
export interface OutboxSettlement {
  deviceId: string;
  left: number;
  leftHigh?: number;
  sent: number;
}

/** A phone's pace, as the outbox and the estimates read it. */
export interface PacingRow {
  sendDelaySeconds: number;
  sendDelayJitterSeconds: number;
  maxSendsPerMinute: number | null;
  maxSendsPerHour: number | null;
  maxSendsPerDay: number | null;
  sendingCapacity: number | null;
  sendingCapacityMinutes: number;
  sendWindow: SendWindow | null;
}

/** What a fetch of a phone's outbox reads: its pace, its order and how it picks SIMs. */
export interface OutboxSettings extends PacingRow {
  processingOrder: ProcessingOrder;
  simSelection: SimSelection;
}

/** Its place at the end of a phone's outbox, the phone's pace, and until when its outbox is paused. */
export interface OutboxPlace extends PacingRow {
  ahead: number;
  pausedUntil: Date | null;
}

/** A row of `returning …, paused_until` as an OutboxPlace. */
const placeFrom = (row: (Omit<OutboxPlace, 'pausedUntil'> & { pausedUntil: unknown }) | undefined) =>
  row && { ...row, pausedUntil: toDate(row.pausedUntil) };

const PACING = sql`send_delay_seconds, send_delay_jitter_seconds, max_sends_per_minute, max_sends_per_hour,
  max_sends_per_day, sending_capacity, sending_capacity_minutes, send_window`;
// Advisory lock class of a paced phone's outbox (the second key is the phone's): one fetch at a time
// counts what the phone was handed, so two concurrent fetches never hand out more than the pace.
const PACED_OUTBOX_LOCK = 0x50414345;

const sending = (
  userId: string,
) => sql`select id, preferred_sim_subscription_id, sims, sim_selection, ${PACING} from devices
                  where user_id = ${userId} and unpaired_at is null and enabled`;

export const devicesRepository = {
  /** What a phone's live channel compares between two looks: paired or not, its settings, receiving, its window. */
  channelStates: (em: EntityManager, deviceIds: string[]) =>
    query<{ id: string; live: boolean; settings: string; receiving: boolean; sendWindow: SendWindow | null }>(
      em,
      sql`select id, unpaired_at is null and token_hash is not null as live, send_window,
              concat_ws(':', enabled, heartbeat_interval_minutes, send_delay_seconds, preferred_sim_subscription_id,
                        send_delay_jitter_seconds, max_sends_per_minute, max_sends_per_hour, send_window::text,
                        max_sends_per_day, sim_selection, processing_order)
                as settings,
              receive_enabled as receiving
         from devices where id = any(${deviceIds}::uuid[])`,
    ),

  /** The paired phone behind a device token's hash (runs on every phone request). */
  async byToken(em: EntityManager, tokenHash: string): Promise<{ userId: string; deviceId: string } | null> {
    const [row] = await query<{ id: string; userId: string }>(
      em,
      sql`select id, user_id from devices where token_hash = ${tokenHash} and unpaired_at is null`,
      { prepared: true },
    );
    return row ? { userId: row.userId, deviceId: row.id } : null;
  },

  /** device_id when given, else the default device, else the most recently online one; enabled and paired only. */
  async sendingDevice(em: EntityManager, userId: string, deviceId?: string | null): Promise<SendingDevice | undefined> {
    const [device] = deviceId
      ? await query<SendingDevice>(em, sql`${sending(userId)} and id = ${deviceId}`, { prepared: true })
      : await query<SendingDevice>(
          em,
          sql`${sending(userId)} order by is_default desc, online desc, last_heartbeat_at desc nulls last, created_at desc limit 1`,
          { prepared: true },
        );
    return device;
  },

  /**
   * Takes `count` places at the end of a phone's outbox. Returns how many were ahead (for a
   * high-priority send, only the high-priority ones) and the phone's pace, or nothing when the phone
   * was disabled or unpaired meanwhile. The row lock orders concurrent sends to one phone.
   */
  async reserveOutbox(
    tx: EntityManager,
    deviceId: string,
    count: number,
    high = false,
  ): Promise<OutboxPlace | undefined> {
    const [row] = await query<Omit<OutboxPlace, 'pausedUntil'> & { pausedUntil: unknown }>(
      tx,
      sql`update devices set queue_depth = queue_depth + ${count}, queue_depth_high = queue_depth_high + ${high ? count : 0}
        where id = ${deviceId} and enabled and unpaired_at is null
       returning case when ${high}::boolean then queue_depth_high else queue_depth end - ${count}::int as ahead, ${PACING},
                 paused_until`,
    );
    return placeFrom(row);
  },

  /**
   * A step of a send written in one statement: locks the phone while it is still enabled, paired,
   * without a send window, not paused for its platform's limit at `now`, paced as `pace` says (what
   * the send was placed by), and `guard` holds; one row (its id), or none.
   */
  lockForSend: (deviceId: string, pace: PacingRow, guard: Sql, now: Date): Sql =>
    sql`select id from devices
         where id = ${deviceId} and enabled and unpaired_at is null and send_window is null
           and (paused_until is null or paused_until <= ${now})
           and send_delay_seconds = ${pace.sendDelaySeconds} and send_delay_jitter_seconds = ${pace.sendDelayJitterSeconds}
           and max_sends_per_minute is not distinct from ${pace.maxSendsPerMinute}::int
           and max_sends_per_hour is not distinct from ${pace.maxSendsPerHour}::int
           and max_sends_per_day is not distinct from ${pace.maxSendsPerDay}::int
           and sending_capacity is not distinct from ${pace.sendingCapacity}::int
           and sending_capacity_minutes = ${pace.sendingCapacityMinutes}
           and ${guard}
         for update`,

  /**
   * reserveOutbox as a step of a larger statement: the phone of the step `locked` takes `count`
   * places when `when` holds; returns `ahead`.
   */
  takePlaces: (locked: Sql, count: number, high: boolean, when: Sql): Sql =>
    sql`update devices set queue_depth = queue_depth + ${count}, queue_depth_high = queue_depth_high + ${high ? count : 0}
         where id = (select id from ${locked}) and ${when}
        returning case when ${high}::boolean then queue_depth_high else queue_depth end - ${count}::int as ahead`,

  /**
   * Where an offline phone's waiting messages go (failover): another paired, enabled, online phone of
   * the account, the default first, then the one heard from last. Locked until the move commits.
   */
  async failoverTarget(tx: EntityManager, userId: string, fromId: string): Promise<{ id: string } | undefined> {
    const [row] = await query<{ id: string }>(
      tx,
      sql`select id from devices
        where user_id = ${userId} and id <> ${fromId} and enabled and online and unpaired_at is null and token_hash is not null
        order by is_default desc, last_heartbeat_at desc nulls last, created_at
        limit 1 for update`,
    );
    return row;
  },

  /** Moved messages join the end of a phone's outbox: `count` places, `high` of them high priority. */
  async takeOver(tx: EntityManager, deviceId: string, count: number, high: number): Promise<OutboxPlace | undefined> {
    const [row] = await query<Omit<OutboxPlace, 'pausedUntil'> & { pausedUntil: unknown }>(
      tx,
      sql`update devices set queue_depth = queue_depth + ${count}, queue_depth_high = queue_depth_high + ${high}
        where id = ${deviceId} returning queue_depth - ${count}::int as ahead, ${PACING}, paused_until`,
    );
    return placeFrom(row);
  },

  /** An account's paired phone's place at the end of its outbox and its pace, for an estimate. */
  async placeOf(em: EntityManager, userId: string, deviceId: string, high: boolean) {
    const [row] = await query<Omit<OutboxPlace, 'pausedUntil'> & { pausedUntil: unknown }>(
      em,
      sql`select case when ${high}::boolean then queue_depth_high else queue_depth end as ahead, paused_until, ${PACING}
            from devices where id = ${deviceId} and user_id = ${userId} and unpaired_at is null`,
    );
    return placeFrom(row);
  },

  /**
   * The phone (its id) when its outbox needs nothing of a transaction: no pace, send window or
   * platform pause, no SIM to choose, and (unless the fetch names one) handed out oldest first.
   */
  plainOutbox: (deviceId: string, now: Date, orderNamed: boolean): Sql =>
    sql`select id from devices
         where id = ${deviceId} and send_window is null and (paused_until is null or paused_until <= ${now})
           and max_sends_per_minute is null and max_sends_per_hour is null and max_sends_per_day is null
           and sending_capacity is null and sim_selection = 'os_default'
           ${orderNamed ? sql.empty : sql`and processing_order = 'fifo'`}`,

  /** A phone's pace, and until when its outbox is paused for the platform's limit, read by its outbox. */
  async pacingOf(
    tx: EntityManager,
    deviceId: string,
  ): Promise<(OutboxSettings & { pausedUntil: Date | null }) | undefined> {
    const [row] = await query<OutboxSettings & { pausedUntil: unknown }>(
      tx,
      sql`select ${PACING}, paused_until, processing_order, sim_selection from devices where id = ${deviceId}`,
      { prepared: true },
    );
    return row && { ...row, pausedUntil: toDate(row.pausedUntil) };
  },

  /**
   * Takes `count` turns of the phone's SIM rotation: returns the first turn and its SIMs. The row
   * lock holds a concurrent fetch until this one commits, so no two messages take the same turn.
   */
  async takeSimTurns(tx: EntityManager, deviceId: string, count: number): Promise<{ first: number; sims: Sim[] }> {
    const [row] = await query<{ first: string; sims: Sim[] }>(
      tx,
      sql`update devices set sim_rotation = sim_rotation + ${count}::int where id = ${deviceId}
          returning sim_rotation - ${count}::int as first, sims`,
    );
    return { first: Number(row.first), sims: row.sims ?? [] };
  },

  /** The SIMs the phone reported. */
  async simsOf(tx: EntityManager, deviceId: string): Promise<Sim[]> {
    const [row] = await query<{ sims: Sim[] | null }>(tx, sql`select sims from devices where id = ${deviceId}`);
    return row?.sims ?? [];
  },

  /** Until the transaction ends, this is the only fetch of the phone's paced outbox. */
  async lockPacedOutbox(tx: EntityManager, deviceId: string): Promise<void> {
    await query(tx, sql`select pg_advisory_xact_lock(${PACED_OUTBOX_LOCK}::int, hashtext(${deviceId}))`);
  },

  /** Messages left phones' queues (an outcome, a lapse, a failure) and some reached the carrier. */
  async settle(tx: EntityManager, settlements: OutboxSettlement[]): Promise<void> {
    const settled = devicesRepository.settled(settlements, sql`true`);
    if (settled) await query(tx, settled, { prepared: true });
  },

  /**
   * `settle` as a statement for another's CTE, run once `after` holds (which orders it after what
   * `after` reads); null when no phone's counts change.
   */
  settled(settlements: OutboxSettlement[], after: Sql): Sql | null {
    const changed = settlements.filter((s) => s.left !== 0 || s.sent !== 0);
    if (changed.length === 0) return null;
    return sql`update devices d set queue_depth = greatest(d.queue_depth - v.left_n, 0),
              queue_depth_high = greatest(d.queue_depth_high - v.left_high_n, 0), sent_count = d.sent_count + v.sent_n
         from unnest(${changed.map((s) => s.deviceId)}::uuid[], ${changed.map((s) => s.left)}::int[],
                     ${changed.map((s) => s.leftHigh ?? 0)}::int[], ${changed.map((s) => s.sent)}::int[])
              as v (id, left_n, left_high_n, sent_n)
        where d.id = v.id and ${after}`;
  },

  async receiver(tx: EntityManager, deviceId: string): Promise<{ userId: string; receiveEnabled: boolean }> {
    const [row] = await query<{ userId: string; receiveEnabled: boolean }>(
      tx,
      sql`select user_id, receive_enabled from devices where id = ${deviceId}`,
    );
    return row;
  },

  async addReceived(tx: EntityManager, deviceId: string): Promise<void> {
    await query(tx, sql`update devices set received_count = received_count + 1 where id = ${deviceId}`);
  },

  async pushTarget(em: EntityManager, deviceId: string) {
    const [row] = await query<{ id: string; pushToken: string | null; pushTokenInvalidReason: string | null }>(
      em,
      sql`select id, push_token, push_token_invalid_reason from devices where id = ${deviceId}`,
    );
    return row;
  },

  /** GET /v1/stats: paired phones, and texts received and sent (reached the carrier) over all phones, ever. */
  async statsOf(em: EntityManager, userId: string): Promise<{ devices: number; received: number; sent: number }> {
    const [row] = await query<{ devices: number; received: number; sent: number }>(
      em,
      sql`select count(*) filter (where unpaired_at is null)::int as devices,
              coalesce(sum(received_count), 0)::int as received,
              coalesce(sum(sent_count), 0)::int as sent
         from devices where user_id = ${userId}`,
    );
    return row;
  },

  /** Only the token that was refused: a newer one the phone sent meanwhile stays valid. */
  async invalidatePushToken(em: EntityManager, deviceId: string, token: string, reason: string, at: Date) {
    await query(
      em,
      sql`update devices set push_token_invalid_reason = ${reason}, push_token_invalidated_at = ${at}
        where id = ${deviceId} and push_token = ${token} and push_token_invalid_reason is null`,
    );
  },

  async markSignalled(em: EntityManager, ids: string[], at: Date): Promise<void> {
    await query(em, sql`update devices set last_signal_at = ${at} where id = any(${ids}::uuid[])`);
  },

  /** Paired phones whose liveness workflow was never signalled. */
  unsignalled: (em: EntityManager, before: Date, limit: number) =>
    query<{ id: string; userId: string; heartbeatIntervalMinutes: number }>(
      em,
      sql`select id, user_id, heartbeat_interval_minutes from devices
        where unpaired_at is null and last_signal_at is null and paired_at < ${before} order by paired_at limit ${limit}`,
    ),

  /** Locks every paired phone of an account, in one order: changes of the default queue, never deadlock. */
  async lockAllOf(tx: EntityManager, userId: string): Promise<void> {
    await query(
      tx,
      sql`select id from devices where user_id = ${userId} and unpaired_at is null order by id for update`,
    );
  },

  async clearDefaultExcept(tx: EntityManager, userId: string, deviceId: string, at: Date): Promise<void> {
    await query(
      tx,
      sql`update devices set is_default = false, updated_at = ${at}
           where user_id = ${userId} and is_default and id <> ${deviceId}`,
    );
  },

  /**
   * Offline only when neither the caller (`lastHeartbeatAt`) nor the row knows of a heartbeat within
   * `missed` × the row's interval before `now`; true when this call moved it.
   */
  async markOffline(
    tx: EntityManager,
    deviceId: string,
    lastHeartbeatAt: Date,
    now: Date,
    missed: number,
    at: Date,
  ): Promise<boolean> {
    const rows = await query<{ id: string }>(
      tx,
      sql`update devices set online = false, updated_at = ${at}
        where id = ${deviceId} and online and unpaired_at is null
          and greatest(coalesce(last_heartbeat_at, '-infinity'::timestamptz), ${lastHeartbeatAt}::timestamptz)
              <= ${now}::timestamptz - make_interval(mins => heartbeat_interval_minutes * ${missed}::int)
        returning id`,
    );
    return rows.length > 0;
  },

  /** True when this call moved a paired, offline phone online. */
  async markOnline(tx: EntityManager, deviceId: string, at: Date): Promise<boolean> {
    const rows = await query<{ id: string }>(
      tx,
      sql`update devices set online = true, updated_at = ${at}
        where id = ${deviceId} and not online and unpaired_at is null
        returning id`,
    );
    return rows.length > 0;
  },

  /** Paired phones that are online, over every account (the metrics' gauge, read at scrape time). */
  async countOnline(em: EntityManager): Promise<number> {
    const [row] = await query<{ online: string }>(
      em,
      sql`select count(*) as online from devices where online and unpaired_at is null`,
    );
    return Number(row.online);
  },
};
