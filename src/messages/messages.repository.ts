import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { createdWithin, findPage, type Page } from '../http/pagination';
import { Batch, type BatchStatus, type Priority } from './batch.entity';
import { Message, type MessageStatus } from './message.entity';
import { countSegments } from './segments';
import type { Deadlines } from './queue';
import { OPTED_OUT, type BatchCounter } from './transitions';
import { execute, query, sql, type SqlFragment } from '../db/sql';

// The SQL of `batches` and `messages`. Everything that writes many messages is one statement.

type Row = Record<string, unknown>;

/** A message row as Postgres returns it, as the entity type the views render. */
export function messageFromRow(row: Row): Message {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    batchId: (row.batch_id as string | null) ?? null,
    deviceId: row.device_id as string,
    direction: row.direction as Message['direction'],
    status: row.status as MessageStatus,
    body: row.body as string,
    recipient: (row.recipient as string | null) ?? null,
    sender: (row.sender as string | null) ?? null,
    simSubscriptionId: (row.sim_subscription_id as number | null) ?? null,
    segments: row.segments as number,
    position: row.position as number,
    priority: (row.priority as number | undefined) ?? 0,
    fingerprint: (row.fingerprint as string | null) ?? null,
    errorCode: (row.error_code as string | null) ?? null,
    errorMessage: (row.error_message as string | null) ?? null,
    availableAt: date(row.available_at),
    staleAt: date(row.stale_at),
    dispatchedAt: date(row.dispatched_at),
    sentAt: date(row.sent_at),
    deliveredAt: date(row.delivered_at),
    failedAt: date(row.failed_at),
    receivedAt: date(row.received_at),
    createdAt: date(row.created_at)!,
    updatedAt: date(row.updated_at)!,
  } as Message;
}

const date = (value: unknown): Date | null =>
  value == null ? null : value instanceof Date ? value : new Date(value as string);

/** A message and the status it had before a statement moved it. */
export interface Moved {
  message: Message;
  from: MessageStatus;
}

const moved = (rows: Array<Row & { old_status: MessageStatus }>): Moved[] =>
  rows.map(({ old_status, ...row }) => ({ message: messageFromRow(row), from: old_status }));

export interface NewSend {
  batch: Batch;
  messageIds: string[];
  recipients: string[];
  /** Per recipient, whether it is on the suppression list: its message is created failed, `opted_out`. */
  optedOut?: boolean[];
  /** The sendable messages' stale deadlines, null while scheduled (they get theirs when released). */
  deadlines: Deadlines | null;
}

/** A send placed by the statement that writes it: its first stale deadline is SQL there. */
export type PlacedSend = Omit<NewSend, 'deadlines'> & { deadlines: Omit<Deadlines, 'firstStaleAt'> };

/** The sort key of a priority in messages.priority (the outbox orders by it, descending). */
export const PRIORITY_RANK: Record<Priority, number> = { normal: 0, high: 1 };

// The n-th (from 1) message's stale deadline from Deadlines: the uneven list when there is one,
// else the even stagger from the first deadline (a parameter, or SQL when the statement places the
// send itself), never past the ttl (least() ignores a null ttl).
const staleAtOf = (n: string, uneven: string, first = '?::timestamptz') =>
  `least(?::timestamptz, coalesce(to_timestamp(${uneven}::float8 / 1000),
                                  ${first} + make_interval(secs => (${n} - 1) * ?::float8)))`;
const deadlineParams = (d: Deadlines | null) => [d?.ttlAt ?? null, d?.firstStaleAt ?? null, d?.perMessageSeconds ?? 0];
/** The uneven deadlines as one parameter (epoch ms, comma-separated); empty when they are even. */
const unevenParam = (d: Pick<Deadlines, 'staleAts'> | null) => (d?.staleAts ? d.staleAts.map((at) => at.getTime()).join(',') : '');

const BATCH_COLUMNS = `id, user_id, device_id, body, status, recipient_count, recipient_preview, segments, encoding,
  sim_subscription_id, priority, ttl_seconds, failed_count, scheduled_at, estimated_completion_at, completed_at, error,
  created_at, updated_at`;
const batchValues = (batch: Batch, estimate: SqlFragment): SqlFragment => ({
  sql: `?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${estimate.sql}, ?, ?, ?, ?`,
  params: [
    batch.id,
    batch.userId,
    batch.deviceId,
    batch.body,
    batch.status,
    batch.recipientCount,
    batch.recipientPreview,
    batch.segments,
    batch.encoding,
    batch.simSubscriptionId,
    batch.priority,
    batch.ttlSeconds,
    batch.failedCount,
    batch.scheduledAt,
    ...estimate.params,
    batch.completedAt,
    batch.error,
    batch.createdAt,
    batch.updatedAt,
  ],
});

/**
 * The INSERT of a send's messages (one row per recipient, each with its place and deadline), reading
 * `from` beside the recipients; `first` is the first stale deadline.
 */
function messagesInsert(send: NewSend | PlacedSend, first: SqlFragment, from = ''): SqlFragment {
  const { batch } = send;
  // Per recipient: its place among the sendable ones, or -1 when it opted out (none: places in order).
  let slot = 0;
  const places = send.optedOut ? send.optedOut.map((out) => (out ? -1 : slot++)) : null;
  const slots = places ? places.join(',') : '';
  // Uneven deadlines (a send window) are per sendable message: spread over the recipients by place.
  const staleAts = send.deadlines?.staleAts;
  const uneven = !staleAts
    ? ''
    : places
      ? places.map((place) => (place < 0 ? '' : String(staleAts[place].getTime()))).join(',')
      : unevenParam(send.deadlines);
  return {
    sql: `insert into messages (id, user_id, batch_id, device_id, direction, status, body, recipient, sim_subscription_id,
                             segments, position, priority, available_at, stale_at, failed_at, error_code,
                             error_message, created_at, updated_at)
       select r.id::uuid, ?, ?, ?, 'outbound', case when r.out then 'failed' else 'queued' end, ?, r.recipient, ?, ?,
              (r.n - 1)::int, ?,
              case when r.out then null else ?::timestamptz end,
              case when r.out then null
                   else ${staleAtOf('(coalesce(r.slot::int, r.n - 1) + 1)', "nullif(r.at, '')", first.sql)} end,
              case when r.out then ?::timestamptz end,
              case when r.out then ?::text end,
              case when r.out then ?::text end,
              ?, ?
         from (select u.*, coalesce(u.slot = '-1', false) as out
                 from unnest(string_to_array(?, ','), string_to_array(?, ','), string_to_array(?, ','),
                             string_to_array(?, ','))
                      with ordinality as u (id, recipient, slot, at, n)) r${from}`,
    params: [
      batch.userId,
      batch.id,
      batch.deviceId,
      batch.body,
      batch.simSubscriptionId,
      batch.segments,
      PRIORITY_RANK[batch.priority as Priority],
      batch.scheduledAt ? null : batch.createdAt,
      send.deadlines?.ttlAt ?? null,
      ...first.params,
      send.deadlines?.perMessageSeconds ?? 0,
      batch.createdAt,
      OPTED_OUT.code,
      OPTED_OUT.message,
      batch.createdAt,
      batch.updatedAt,
      send.messageIds.join(','),
      send.recipients.join(','),
      slots,
      uneven,
    ],
  };
}

/** What `acceptSend` needs beyond the send: the steps of other features, as SQL with their values. */
export interface AcceptSteps {
  /** Locks the phone (one row with its id) when the send may go to it as placed; named `d`. */
  lockDevice: SqlFragment;
  /** The plan's admission, one row when admitted, given a condition it needs; named `a`. */
  admit: (guard: SqlFragment) => SqlFragment;
  /** The phone of `d` takes the send's places once `when` holds; returns `ahead`. Named `q`. */
  takePlaces: (locked: string, when: string) => SqlFragment;
  /** The first stale deadline and the estimate as SQL of `q.ahead`. */
  firstStaleAt: SqlFragment;
  estimate: SqlFragment;
}

export interface StatusChange {
  id: string;
  status: MessageStatus;
  at: Date;
  errorCode?: string | null;
  errorMessage?: string | null;
}

export interface BatchCounts {
  id: string;
  status: BatchStatus;
  recipient_count: number;
  dispatched_count: number;
  sent_count: number;
  delivered_count: number;
  failed_count: number;
  unknown_count: number;
}

const OPEN = `direction = 'outbound' and status in ('queued', 'dispatched')`;
// The outbox's order, as its index (messages_outbox_idx) keeps it.
const OUTBOX_ORDER = 'priority desc, available_at, created_at, position';
const DISPATCH = `update messages m
          set status = 'dispatched', dispatched_at = coalesce(m.dispatched_at, ?), updated_at = ?
         from due where m.id = due.id
       returning m.*, due.old_status`;

export const messagesRepository = {
  /**
   * A send: the batch and every message with its final place and deadline, in one statement. An
   * opted-out recipient's message is created failed (`opted_out`) and takes no place: the others'
   * deadlines follow one another as if it were not there.
   */
  async insertSend(tx: EntityManager, send: NewSend): Promise<void> {
    const batch = batchValues(send.batch, { sql: '?', params: [send.batch.estimatedCompletionAt] });
    const messages = messagesInsert(send, { sql: '?::timestamptz', params: [send.deadlines?.firstStaleAt ?? null] });
    await execute(tx, `with b as (insert into batches (${BATCH_COLUMNS}) values (${batch.sql})) ${messages.sql}`, [
      ...batch.params,
      ...messages.params,
    ]);
  },

  /**
   * A send in one statement, outside any transaction: the phone locked while it is as the send was
   * placed by, the plan's admission, the phone's queue places, the batch and its messages. Each step
   * needs the one before: when the phone is not as expected or the plan refuses, nothing is
   * written. Returns what happened: `device` false (write nothing; the caller takes the long way),
   * `admitted` false (refused), else the batch's estimated completion.
   */
  async acceptSend(
    em: EntityManager,
    send: PlacedSend,
    steps: AcceptSteps,
  ): Promise<{ device: boolean; admitted: boolean; estimatedCompletionAt: Date | null }> {
    const d = steps.lockDevice;
    const a = steps.admit({ sql: 'exists (select 1 from d)', params: [] });
    const q = steps.takePlaces('d', 'exists (select 1 from a)');
    const batch = batchValues(send.batch, steps.estimate);
    const messages = messagesInsert(send, steps.firstStaleAt, ' cross join q');
    const [row] = await execute<{ device: boolean; admitted: boolean; estimated_completion_at: unknown }[]>(
      em,
      `with d as (${d.sql}), a as (${a.sql}), q as (${q.sql}),
            b as (insert into batches (${BATCH_COLUMNS}) select ${batch.sql} from q returning estimated_completion_at),
            m as (${messages.sql})
       select exists (select 1 from d) as device, exists (select 1 from a) as admitted,
              (select estimated_completion_at from b) as estimated_completion_at`,
      [...d.params, ...a.params, ...q.params, ...batch.params, ...messages.params],
      // Planning this statement costs Postgres more than running it for a few recipients.
      { prepared: true },
    );
    return { device: row.device, admitted: row.admitted, estimatedCompletionAt: date(row.estimated_completion_at) };
  },

  /**
   * Hands out up to `limit` messages the phone may send now, high priority first, then oldest first,
   * marking queued ones dispatched; dispatched ones come again until reported, lapsed ones never.
   * `fresh` bounds how many queued ones may be handed out for the first time (a paced phone's
   * allowance); null: no bound.
   */
  async takeOutbox(
    tx: EntityManager,
    deviceId: string,
    now: Date,
    limit: number,
    fresh: number | null = null,
  ): Promise<Moved[]> {
    const due = (status: string) =>
      `select id, status as old_status from messages
        where device_id = ? and ${status} and available_at <= ? and stale_at > ?
        order by ${OUTBOX_ORDER}`;
    const rows = await execute<Array<Row & { old_status: MessageStatus }>>(
      tx,
      fresh === null
        ? `with due as (${due(OPEN)} limit ? for update skip locked)
           ${DISPATCH}`
        : // Handed out again does not count against the pace; handed out for the first time does.
          `with again as (${due(`direction = 'outbound' and status = 'dispatched'`)} limit ? for update skip locked),
                fresh as (${due(`direction = 'outbound' and status = 'queued'`)}
                          limit least(?::int, greatest(?::int - (select count(*) from again), 0))
                          for update skip locked),
                due as (select * from again union all select * from fresh)
           ${DISPATCH}`,
      fresh === null
        ? [deviceId, now, now, limit, now, now]
        : [deviceId, now, now, limit, deviceId, now, now, fresh, limit, now, now],
    );
    return moved(rows).sort(
      (a, b) =>
        b.message.priority - a.message.priority ||
        a.message.availableAt!.getTime() - b.message.availableAt!.getTime() ||
        a.message.createdAt.getTime() - b.message.createdAt.getTime() ||
        a.message.position - b.message.position,
    );
  },

  /** How many messages a phone was handed out for the first time since each of two instants. */
  async dispatchedSince(tx: EntityManager, deviceId: string, minuteAgo: Date, hourAgo: Date) {
    const [row] = await execute<{ minute: number; hour: number }[]>(
      tx,
      `select count(*) filter (where dispatched_at > ?)::int as minute, count(*)::int as hour
         from messages where device_id = ? and dispatched_at > ?`,
      [minuteAgo, deviceId, hourAgo],
    );
    return row;
  },

  /**
   * Per phone, the newest message it may send now of each priority (a change says the phone has new
   * work); one probe of the outbox index per priority.
   */
  async newestDue(em: EntityManager, deviceIds: string[], now: Date): Promise<Map<string, string>> {
    const rows = await execute<{ device_id: string; id: string }[]>(
      em,
      `select d.id as device_id, string_agg(m.id::text, ',' order by p.rank desc) as id
         from unnest(string_to_array(?, ',')::uuid[]) as d (id)
        cross join (values (1), (0)) as p (rank)
         join lateral (select id from messages
                        where device_id = d.id and priority = p.rank and direction = 'outbound' and status = 'queued'
                          and available_at <= ? and stale_at > ?
                        order by available_at desc, created_at desc limit 1) m on true
        group by d.id`,
      [deviceIds.join(','), now, now],
    );
    return new Map(rows.map((row) => [row.device_id, row.id]));
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
    const rows = await execute<{ device_id: string; leased: boolean; handed_out_at: unknown }[]>(
      em,
      `select d.id as device_id,
              exists (select 1 from messages m
                       where m.device_id = d.id and m.direction = 'outbound' and m.status = 'dispatched'
                         and m.stale_at > ?) as leased,
              (select max(dispatched_at) from messages m
                where m.device_id = d.id and m.dispatched_at is not null) as handed_out_at
         from unnest(string_to_array(?, ',')::uuid[]) as d (id)`,
      [now, deviceIds.join(',')],
    );
    return new Map(
      rows.map((row) => [
        row.device_id,
        { leased: row.leased, handedOutAt: row.handed_out_at === null ? null : String(row.handed_out_at) },
      ]),
    );
  },

  /**
   * NOTIFYs `channel` with the phone's id, at commit, when it holds no handed-out message and has
   * work it may send now: a phone that fetched a page and reported all of it is told to come back.
   */
  async announceWhenDrained(tx: EntityManager, channel: string, deviceId: string, now: Date): Promise<void> {
    await execute(
      tx,
      `select pg_notify(?, ?)
        where not exists (select 1 from messages
                           where device_id = ? and direction = 'outbound' and status = 'dispatched' and stale_at > ?)
          and exists (select 1 from messages
                       where device_id = ? and direction = 'outbound' and status = 'queued'
                         and available_at <= ? and stale_at > ?)`,
      [channel, deviceId, deviceId, now, deviceId, now, now],
    );
  },

  /** The phone's own outbound messages among `ids`, locked for a report. */
  async lockOwned(tx: EntityManager, deviceId: string, ids: string[]): Promise<Message[]> {
    const rows = await execute<Row[]>(
      tx,
      `select * from messages where id = any(string_to_array(?, ',')::uuid[]) and device_id = ? and direction = 'outbound'
        order by id for update`,
      [ids.join(','), deviceId],
    );
    return rows.map(messageFromRow);
  },

  /** Applies reported moves, each with its timestamp column and any error it carries, in one statement. */
  async applyChanges(tx: EntityManager, changes: StatusChange[], now: Date): Promise<Message[]> {
    if (changes.length === 0) return [];
    const values = changes
      .map(() => '(?::uuid, ?::text, ?::timestamptz, ?::boolean, ?::text, ?::boolean, ?::text)')
      .join(', ');
    const rows = await execute<Row[]>(
      tx,
      `update messages m set status = v.status, updated_at = ?,
              dispatched_at = case when v.status = 'dispatched' then v.at else m.dispatched_at end,
              sent_at = case when v.status = 'sent' then v.at else m.sent_at end,
              delivered_at = case when v.status = 'delivered' then v.at else m.delivered_at end,
              failed_at = case when v.status = 'failed' then v.at else m.failed_at end,
              error_code = case when v.has_code then v.error_code else m.error_code end,
              error_message = case when v.has_message then v.error_message else m.error_message end
         from (values ${values}) as v (id, status, at, has_code, error_code, has_message, error_message)
        where m.id = v.id
       returning m.*`,
      [
        now,
        ...changes.flatMap((c) => [
          c.id,
          c.status,
          c.at,
          c.errorCode !== undefined,
          c.errorCode ?? null,
          c.errorMessage !== undefined,
          c.errorMessage ?? null,
        ]),
      ],
    );
    return rows.map(messageFromRow);
  },

  /**
   * Moves every open message a condition selects to unknown or failed, in one statement. Open is
   * the status alone (only outbound messages are ever queued or dispatched): a batch's condition
   * then does not also match the outbox index's predicate, which a planner with stale statistics
   * (a young table, its partial indexes counted empty) took for a cheap full scan of a phone's whole
   * queue on every sweep (`npm run bench:profile -- --pg-stats`). A phone's condition says outbound
   * itself, to use that index.
   */
  async moveOpen(
    tx: EntityManager,
    where: { sql: string; params: unknown[] },
    to: 'unknown' | 'failed',
    now: Date,
    error?: { code: string; message: string },
  ): Promise<Moved[]> {
    const rows = await execute<Array<Row & { old_status: MessageStatus }>>(
      tx,
      `with target as (
         select id, status as old_status from messages where status in ('queued', 'dispatched') and ${where.sql}
          for update)
       update messages m
          set status = ?, updated_at = ?${to === 'failed' ? ', failed_at = ?, error_code = ?, error_message = ?' : ''}
         from target where m.id = target.id
       returning m.*, target.old_status`,
      [...where.params, to, now, ...(to === 'failed' ? [now, error?.code ?? null, error?.message ?? null] : [])],
    );
    return moved(rows);
  },

  lapsedIn: (batchId: string, now: Date) => ({ sql: 'batch_id = ? and stale_at <= ?', params: [batchId, now] }),
  queuedOn: (deviceId: string) => ({
    sql: "device_id = ? and direction = 'outbound' and status = 'queued'",
    params: [deviceId],
  }),
  queuedIn: (batchId: string) => ({ sql: "batch_id = ? and status = 'queued'", params: [batchId] }),

  /**
   * Marks the account's batch cancelled (the first time) unless it is final, locking it for the rest
   * of the cancel; undefined when it is final or not the account's (`batchStatusOf` tells which).
   */
  async markCancelled(tx: EntityManager, userId: string, batchId: string, now: Date) {
    const [row] = await execute<{ status: BatchStatus; created_at: Date }[]>(
      tx,
      `update batches set cancelled_at = coalesce(cancelled_at, ?), updated_at = ?
        where id = ? and user_id = ? and status not in ('completed', 'failed')
       returning status, created_at`,
      [now, now, batchId, userId],
    );
    return row ? { status: row.status, createdAt: date(row.created_at)! } : undefined;
  },

  async batchStatusOf(em: EntityManager, userId: string, batchId: string): Promise<BatchStatus | undefined> {
    const [row] = await execute<{ status: BatchStatus }[]>(
      em,
      'select status from batches where id = ? and user_id = ?',
      [batchId, userId],
    );
    return row?.status;
  },

  /** Moves batches' counters by per-counter deltas in one statement; returns their counts after. */
  async addToCounters(tx: EntityManager, deltas: Map<string, Partial<Record<BatchCounter, number>>>, now: Date) {
    if (deltas.size === 0) return [];
    const counters: BatchCounter[] = [
      'dispatched_count',
      'sent_count',
      'delivered_count',
      'failed_count',
      'unknown_count',
    ];
    const entries = [...deltas.entries()];
    return execute<BatchCounts[]>(
      tx,
      `update batches b set ${counters.map((c) => `${c} = b.${c} + v.${c}`).join(', ')}, updated_at = ?
         from (values ${entries.map(() => `(?::uuid${', ?::int'.repeat(counters.length)})`).join(', ')})
              as v (id, ${counters.join(', ')})
        where b.id = v.id
       returning b.id, b.status, b.recipient_count, ${counters.map((c) => `b.${c}`).join(', ')}`,
      [now, ...entries.flatMap(([id, d]) => [id, ...counters.map((c) => Math.trunc(d[c] ?? 0))])],
    );
  },

  async countsOf(tx: EntityManager, batchId: string): Promise<BatchCounts | undefined> {
    const [row] = await execute<BatchCounts[]>(
      tx,
      `select id, status, recipient_count, dispatched_count, sent_count, delivered_count, failed_count, unknown_count
         from batches where id = ?`,
      [batchId],
    );
    return row;
  },

  /** Sets batches' statuses; final ones get completed_at and, when every message failed, an error. */
  async setStatuses(tx: EntityManager, changes: Array<{ id: string; status: BatchStatus }>, now: Date) {
    if (changes.length === 0) return;
    await execute(
      tx,
      `update batches b set status = v.status, updated_at = ?,
              completed_at = case when v.status in ('completed', 'failed') then coalesce(b.completed_at, ?) else b.completed_at end,
              error = case when v.status = 'failed'
                           then coalesce(b.error, case when b.cancelled_at is not null then 'The send was cancelled.'
                                                       else 'Every message failed.' end)
                           else b.error end
         from (values ${changes.map(() => '(?::uuid, ?::text)').join(', ')}) as v (id, status)
        where b.id = v.id`,
      [now, now, ...changes.flatMap((c) => [c.id, c.status])],
    );
  },

  /** Locks an offline phone's queued messages of released batches; how many, and how many high priority. */
  async lockReroutable(tx: EntityManager, fromId: string): Promise<{ total: number; high: number }> {
    const rows = await execute<{ priority: number }[]>(
      tx,
      `select m.priority from messages m join batches b on b.id = m.batch_id
        where m.device_id = ? and m.direction = 'outbound' and m.status = 'queued' and b.status <> 'scheduled'
        for update of m`,
      [fromId],
    );
    return { total: rows.length, high: rows.filter((row) => row.priority > 0).length };
  },

  /**
   * Failover: the queued messages of an offline phone move to another one, in its outbox order, with
   * new deadlines after the `ahead` messages waiting there (never past their send's ttl); batches with
   * nothing left on the old phone move with them; scheduled batches move whole. Returns the moved ids.
   */
  async reroute(
    tx: EntityManager,
    move: { from: string; to: string; now: Date; ahead: number; deadlines: Deadlines },
  ): Promise<string[]> {
    const { deadlines } = move;
    const released = await execute<{ id: string }[]>(
      tx,
      `with numbered as (
         select m.id, m.batch_id,
                row_number() over (order by m.priority desc, m.available_at, m.created_at, m.position) as n
           from messages m join batches b on b.id = m.batch_id
          where m.device_id = ? and m.direction = 'outbound' and m.status = 'queued' and b.status <> 'scheduled'),
       moved as (
         update messages m set device_id = ?, available_at = ?, updated_at = ?,
                stale_at = least(coalesce(b.scheduled_at, b.created_at) + make_interval(secs => b.ttl_seconds),
                                 coalesce(to_timestamp(nullif(u.at, '')::float8 / 1000),
                                          ?::timestamptz + make_interval(secs => (n.n - 1) * ?::float8)))
           from numbered n
           join batches b on b.id = n.batch_id
           left join unnest(string_to_array(?, ',')) with ordinality as u (at, i) on u.i = n.n
          where m.id = n.id
         returning m.id, m.batch_id, n.n),
       rebatched as (
         update batches b set estimated_completion_at = ?::timestamptz + make_interval(secs => (? + x.last) * ?::float8),
                device_id = case when exists (select 1 from messages o
                                               where o.batch_id = b.id and o.device_id = ? and o.status = 'dispatched')
                                 then b.device_id else ? end,
                updated_at = ?
           from (select batch_id, max(n) as last from moved group by batch_id) x
          where b.id = x.batch_id
         returning b.id)
       select id from moved`,
      [
        move.from,
        move.to,
        move.now,
        move.now,
        deadlines.firstStaleAt,
        deadlines.perMessageSeconds,
        unevenParam(deadlines),
        move.now,
        move.ahead,
        deadlines.perMessageSeconds,
        move.from,
        move.to,
        move.now,
      ],
    );
    const scheduled = await execute<{ id: string }[]>(
      tx,
      `with s as (update batches set device_id = ?, updated_at = ? where device_id = ? and status = 'scheduled' returning id)
       update messages m set device_id = ?, updated_at = ? from s
        where m.batch_id = s.id and m.status = 'queued' returning m.id`,
      [move.to, move.now, move.from, move.to, move.now],
    );
    return [...released, ...scheduled].map((row) => row.id);
  },

  /** Locks a scheduled batch for its release; null when it is not (or no longer) scheduled. */
  async lockScheduled(
    tx: EntityManager,
    batchId: string,
  ): Promise<{ device_id: string; queued: number; priority: Priority; ttl_seconds: number | null } | null> {
    const [batch] = await execute<
      { device_id: string; status: BatchStatus; priority: Priority; ttl_seconds: number | null }[]
    >(tx, 'select device_id, status, priority, ttl_seconds from batches where id = ? for update', [batchId]);
    if (!batch || batch.status !== 'scheduled') return null;
    const [{ queued }] = await execute<{ queued: number }[]>(
      tx,
      `select count(*)::int as queued from messages where batch_id = ? and status = 'queued'`,
      [batchId],
    );
    return { device_id: batch.device_id, queued, priority: batch.priority, ttl_seconds: batch.ttl_seconds };
  },

  /** A released batch's queued messages take their places from `sendableAt`, with their deadlines. */
  async place(
    tx: EntityManager,
    batchId: string,
    placement: { sendableAt: Date; deadlines: Deadlines; estimate: Date },
  ): Promise<void> {
    await execute(
      tx,
      `with placed as (
         update messages m set available_at = ?, stale_at = ${staleAtOf('p.n', 's.at')}
           from (select id, row_number() over (order by position) as n from messages
                  where batch_id = ? and status = 'queued') p
           left join unnest(string_to_array(?, ',')) with ordinality as s (at, k) on s.k = p.n
          where m.id = p.id
         returning 1)
       update batches set status = 'queued', estimated_completion_at = ?, updated_at = ? where id = ?`,
      [
        placement.sendableAt,
        ...deadlineParams(placement.deadlines),
        batchId,
        unevenParam(placement.deadlines),
        placement.estimate,
        placement.sendableAt,
        batchId,
      ],
    );
  },

  /** What is still open in a batch: how many, and its earliest and latest stale deadlines. */
  async openDeadlines(tx: EntityManager, batchId: string) {
    const [row] = await execute<{ pending: number; next: Date | null; last: Date | null }[]>(
      tx,
      `select count(*)::int as pending, min(stale_at) as next, max(stale_at) as last from messages
        where batch_id = ? and status in ('queued', 'dispatched')`,
      [batchId],
    );
    return row;
  },

  async batchStatusAndDevice(em: EntityManager, batchId: string) {
    const [row] = await execute<{ status: BatchStatus; device_id: string }[]>(
      em,
      'select status, device_id from batches where id = ?',
      [batchId],
    );
    return row;
  },

  async unstartedBatches(em: EntityManager, before: Date, limit: number) {
    const rows = await execute<{ id: string; scheduled_at: Date | null; user_id: string; device_id: string }[]>(
      em,
      `select id, scheduled_at, user_id, device_id from batches where workflow_started_at is null and created_at < ?
        order by created_at limit ?`,
      [before, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      scheduledAt: date(row.scheduled_at),
      accountId: row.user_id,
      deviceId: row.device_id,
    }));
  },

  async markBatchesStarted(em: EntityManager, ids: string[], at: Date): Promise<void> {
    await execute(
      em,
      `update batches set workflow_started_at = ?
        where id = any(string_to_array(?, ',')::uuid[]) and workflow_started_at is null`,
      [at, ids.join(',')],
    );
  },

  /** Stores an inbound text once per phone and fingerprint; null when it was known already. */
  async insertInbound(
    tx: EntityManager,
    input: {
      userId: string;
      deviceId: string;
      body: string;
      sender: string;
      simSubscriptionId: number | null;
      fingerprint: string;
      receivedAt: Date;
      now: Date;
    },
  ): Promise<Message | null> {
    const [row] = await execute<Row[]>(
      tx,
      `insert into messages (id, user_id, device_id, direction, status, body, segments, sender, sim_subscription_id,
                             fingerprint, received_at, created_at, updated_at)
       values (gen_random_uuid(), ?, ?, 'inbound', 'received', ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (device_id, fingerprint) where fingerprint is not null do nothing
       returning *`,
      [
        input.userId,
        input.deviceId,
        input.body,
        countSegments(input.body).segments,
        input.sender,
        input.simSubscriptionId,
        input.fingerprint,
        input.receivedAt,
        input.now,
        input.now,
      ],
    );
    return row ? messageFromRow(row) : null;
  },

  inboundByFingerprint: (em: EntityManager, deviceId: string, fingerprint: string) =>
    em.findOneOrFail(Message, { deviceId, fingerprint }),

  getBatch: (em: EntityManager, userId: string, id: string) => em.findOne(Batch, { id, userId }),
  messagesOfBatch: (em: EntityManager, userId: string, batchId: string) =>
    em.find(Message, { batchId, userId }, { orderBy: { position: 'asc' } }),
  getMessage: (em: EntityManager, userId: string, id: string) => em.findOne(Message, { id, userId }),

  listBatches: (em: EntityManager, userId: string, page: { cursor?: string; limit: number }) =>
    findPage(em, Batch, { userId }, { cursor: page.cursor, limit: page.limit, order: 'desc' }),

  /** GET /v1/messages and GET /v1/device/messages: every filter, keyset-paginated over (created_at, id). */
  list(
    em: EntityManager,
    filter: {
      userId?: string;
      deviceIds?: string[];
      direction?: string;
      status?: string;
      batchId?: string;
      from?: Date;
      to?: Date;
      q?: string;
    },
    page: { cursor?: string; limit: number; order?: 'asc' | 'desc' },
  ): Promise<Page<Message>> {
    const where: FilterQuery<Message> = createdWithin(filter.from, filter.to);
    if (filter.userId) where.userId = filter.userId;
    if (filter.deviceIds)
      where.deviceId = filter.deviceIds.length === 1 ? filter.deviceIds[0] : { $in: filter.deviceIds };
    if (filter.direction) where.direction = filter.direction as Message['direction'];
    if (filter.status) where.status = filter.status as MessageStatus;
    if (filter.batchId) where.batchId = filter.batchId;
    if (filter.q) {
      // The same expression as the trigram index (messages_search_idx), so the index serves it.
      const text = raw(
        (alias) => `(${alias}.body || ' ' || coalesce(${alias}.recipient, '') || ' ' || coalesce(${alias}.sender, ''))`,
      );
      (where as Record<string, unknown>)[text] = { $ilike: `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` };
    }
    return findPage(em, Message, where, page);
  },

  /**
   * The last `days` calendar days in `timezone` up to `now`'s, oldest first, each with the account's
   * outbound texts created that day by outcome (on messages_user_idx: one range of created_at).
   */
  async dailyCounts(
    em: EntityManager,
    userId: string,
    now: Date,
    days: number,
    timezone: string,
  ): Promise<Array<{ date: string; sent: number; delivered: number; failed: number }>> {
    const today = sql`(${now}::timestamptz at time zone ${timezone})::date`;
    return query(
      em,
      sql`with days as (
            select day::date as day
              from generate_series(${today} - ${days - 1}::int, ${today}, interval '1 day') as day
          ), counted as (
            select (m.created_at at time zone ${timezone})::date as day,
                   count(*) filter (where m.sent_at is not null or m.status = 'delivered')::int as sent,
                   count(*) filter (where m.status = 'delivered')::int as delivered,
                   count(*) filter (where m.status = 'failed')::int as failed
              from messages m
             where m.user_id = ${userId} and m.direction = 'outbound'
               and m.created_at >= ((select min(day) from days)::timestamp at time zone ${timezone})
             group by 1
          )
          select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(c.sent, 0) as sent,
                 coalesce(c.delivered, 0) as delivered, coalesce(c.failed, 0) as failed
            from days d left join counted c on c.day = d.day
           order by d.day`,
    );
  },
};
