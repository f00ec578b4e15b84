import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { createdWithin, findPage, findPageOfAny, type Page } from '../http/pagination';
import { toDate } from '../db/sql';
import { Message, type MessageStatus } from './message.entity';
import { query, sql, type Sql } from '../db/sql';

// Reading messages: one, a batch's, and the keyset-paginated lists; and the message row's mapping,
// shared by the statements of the other messages repositories (send, outbox, reports, failover,
// inbound, batches) that return whole rows.

type Row = Record<string, unknown>;

// The columns messageFromRow reads. A prepared statement names them rather than `m.*`: Postgres
// refuses to run a prepared statement whose result's columns changed since it was planned, which a
// migration adding a column would do under a running process.
export const MESSAGE_COLUMNS: readonly string[] =
  `id user_id batch_id device_id direction status body encrypted data_port recipient sender sim_subscription_id
  segments position priority fingerprint error_code error_message available_at stale_at dispatched_at held_at send_id sent_at
  delivered_at failed_at received_at created_at updated_at`.split(/\s+/);
const columnLists = new Map<string, Sql>();

/** `alias.id, alias.user_id, …`: a message row's columns, as messageFromRow reads them. */
export function messageColumns(alias: string): Sql {
  let list = columnLists.get(alias);
  if (!list) {
    list = sql.join(MESSAGE_COLUMNS.map((column) => sql`${sql.identifier(alias)}.${sql.identifier(column)}`));
    columnLists.set(alias, list);
  }
  return list;
}

/** A message row as Postgres returns it (`messageColumns`), as the entity type the views render. */
export function messageFromRow(row: Row): Message {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    batchId: (row.batch_id as string | null) ?? null,
    deviceId: row.device_id as string,
    direction: row.direction as Message['direction'],
    status: row.status as MessageStatus,
    body: row.body as string,
    encrypted: (row.encrypted as boolean | undefined) ?? false,
    dataPort: (row.data_port as number | null | undefined) ?? null,
    recipient: (row.recipient as string | null) ?? null,
    sender: (row.sender as string | null) ?? null,
    simSubscriptionId: (row.sim_subscription_id as number | null) ?? null,
    segments: row.segments as number,
    position: row.position as number,
    priority: (row.priority as number | undefined) ?? 0,
    fingerprint: (row.fingerprint as string | null) ?? null,
    errorCode: (row.error_code as string | null) ?? null,
    errorMessage: (row.error_message as string | null) ?? null,
    availableAt: toDate(row.available_at),
    staleAt: toDate(row.stale_at),
    dispatchedAt: toDate(row.dispatched_at),
    heldAt: toDate(row.held_at),
    sendId: (row.send_id as string | null | undefined) ?? null,
    sentAt: toDate(row.sent_at),
    deliveredAt: toDate(row.delivered_at),
    failedAt: toDate(row.failed_at),
    receivedAt: toDate(row.received_at),
    createdAt: toDate(row.created_at)!,
    updatedAt: toDate(row.updated_at)!,
  } as Message;
}

/** A message and the status it had before a statement moved it. */
export interface Moved {
  message: Message;
  from: MessageStatus;
}

/** Rows of a message's columns and the status before (`old_status`), as moves. */
export const movedFromRows = (rows: Row[]): Moved[] =>
  rows.map(({ old_status, ...row }) => ({ message: messageFromRow(row), from: old_status as MessageStatus }));

/** One calendar day's outbound texts of an account, by outcome. */
export interface DailyCount {
  date: string;
  sent: number;
  delivered: number;
  failed: number;
  cancelled: number;
  optedOut: number;
  pending: number;
  awaitingReport: number;
  unknown: number;
}

/**
 * What `q` searches in a text of its own (inbound, personalised): the expression of
 * messages_search_idx, so that index serves it.
 */
export const ownTextOf = (alias: string) =>
  `(${alias}.body || ' ' || coalesce(${alias}.recipient, '') || ' ' || coalesce(${alias}.sender, ''))`;

export const messagesRepository = {
  messagesOfBatch: (em: EntityManager, userId: string, batchId: string) =>
    em.find(Message, { batchId, userId }, { orderBy: { position: 'asc' } }),
  getMessage: (em: EntityManager, userId: string, id: string) => em.findOne(Message, { id, userId }),

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
    if (!filter.q) return findPage(em, Message, where, page);
    const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const ownText = raw(ownTextOf);
    // A send's shared text is searched once, in its batch (batches_search_idx).
    const batchScope = filter.userId ? ' and b.user_id = ?' : '';
    const batchText = raw(
      (alias) =>
        `${alias}.batch_id in (select b.id from batches b where not b.encrypted and b.body ilike ?${batchScope})`,
      filter.userId ? [pattern, filter.userId] : [pattern],
    );
    // Ciphertext is not searched (nor in either index): only readable text can match. A send's number
    // is in no trigram index (docs/architecture.md): its branch reads the sent texts newest first.
    return findPageOfAny(
      em,
      Message,
      [
        { ...where, encrypted: false, bodyFromBatch: false, [ownText]: { $ilike: pattern } },
        { ...where, encrypted: false, bodyFromBatch: true, [batchText]: [] },
        { ...where, encrypted: false, bodyFromBatch: true, recipient: { $ilike: pattern } },
      ] as Array<FilterQuery<Message>>,
      page,
    );
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
  ): Promise<DailyCount[]> {
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
                   count(*) filter (where m.status = 'failed')::int as failed,
                   count(*) filter (where m.status = 'failed' and m.error_code = 'cancelled')::int as cancelled,
                   count(*) filter (where m.status = 'failed' and m.error_code = 'opted_out')::int as opted_out,
                   count(*) filter (where m.status in ('queued', 'dispatched'))::int as pending,
                   count(*) filter (where m.status = 'sent')::int as awaiting_report,
                   count(*) filter (where m.status = 'unknown')::int as unknown
              from messages m
             where m.user_id = ${userId} and m.direction = 'outbound'
               and m.created_at >= ((select min(day) from days)::timestamp at time zone ${timezone})
             group by 1
          )
          select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(c.sent, 0) as sent,
                 coalesce(c.delivered, 0) as delivered, coalesce(c.failed, 0) as failed,
                 coalesce(c.cancelled, 0) as cancelled, coalesce(c.opted_out, 0) as opted_out,
                 coalesce(c.pending, 0) as pending, coalesce(c.awaiting_report, 0) as awaiting_report,
                 coalesce(c.unknown, 0) as unknown
            from days d left join counted c on c.day = d.day
           order by d.day`,
    );
  },
};
