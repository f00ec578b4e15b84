import type { EntityManager } from '@mikro-orm/postgresql';
import { queryRaw, sql, type Sql } from '../db/sql';
import type { Message, MessageStatus } from './message.entity';
import { messageColumns, messageFromRow, movedFromRows, type Moved } from './messages.repository';
import { FINAL_MESSAGE_STATUSES, STATUS_RANK } from './transitions';

// Moving messages: a phone's reports, and the moves of open messages a condition selects (lapsed,
// cancelled, a phone disabled).

export interface StatusChange {
  id: string;
  status: MessageStatus;
  at: Date;
  errorCode?: string | null;
  errorMessage?: string | null;
}

/**
 * reportMoves() (./transitions.ts) as SQL, of a locked message `o` and its report `v`: the same rule
 * from the same ranks. Built once: it is the same fragment at every report.
 */
const REPORT_MOVES: Sql = (() => {
  const rank = (status: Sql) =>
    sql`case ${status} ${sql.join(
      Object.entries(STATUS_RANK).map(([name, n]) => sql`when ${name}::text then ${n}::int`),
      sql` `,
    )} end`;
  return sql`(not o.status = any(${[...FINAL_MESSAGE_STATUSES]}::text[])
              and (v.status = 'failed' or ${rank(sql`v.status`)} > ${rank(sql`o.status`)}))`;
})();

/**
 * A message `m` is the phone's own outbound one: a filter on the rows the ids find, never an index
 * condition. Given `device_id = $n` beside `id = any($m)`, the planner may take messages_device_idx,
 * whose third column is the id, and read every message the phone ever had to find the few reported
 * (seen in `npm run bench:profile -- --explain`); `is true` is not a condition an index serves.
 */
const ownedBy = (deviceId: string): Sql => sql`(m.device_id = ${deviceId}::uuid) is true and m.direction = 'outbound'`;

/**
 * The changes as a table `v`: columns of arrays, so a prepared statement's text fits any number. A
 * report's `send_id` is the attempt it names, if any.
 */
const changesTable = (changes: Array<StatusChange & { sendId?: string }>): Sql =>
  sql`unnest(${changes.map((c) => c.id)}::uuid[], ${changes.map((c) => c.status)}::text[],
             ${changes.map((c) => c.at)}::timestamptz[], ${changes.map((c) => c.errorCode !== undefined)}::boolean[],
             ${changes.map((c) => c.errorCode ?? null)}::text[], ${changes.map((c) => c.errorMessage !== undefined)}::boolean[],
             ${changes.map((c) => c.errorMessage ?? null)}::text[], ${changes.map((c) => c.sendId ?? null)}::text[])
      as v (id, status, at, has_code, error_code, has_message, error_message, send_id)`;

/** A message `m` moved to `v`'s status: its timestamp column, and the error a change carries. */
const reportedSet = (now: Date): Sql =>
  sql`status = v.status, updated_at = ${now},
      dispatched_at = case when v.status = 'dispatched' then v.at else m.dispatched_at end,
      sent_at = case when v.status = 'sent' then v.at else m.sent_at end,
      delivered_at = case when v.status = 'delivered' then v.at else m.delivered_at end,
      failed_at = case when v.status = 'failed' then v.at else m.failed_at end,
      error_code = case when v.has_code then v.error_code else m.error_code end,
      error_message = case when v.has_message then v.error_message else m.error_message end`;

export const reportsRepository = {
  /** The phone's own outbound messages among `ids`, locked for a report. */
  async lockOwned(tx: EntityManager, deviceId: string, ids: string[]): Promise<Message[]> {
    const rows = await queryRaw(
      tx,
      sql`select ${messageColumns('m')} from messages m
           where m.id = any(${ids}::uuid[]) and ${ownedBy(deviceId)}
           order by m.id for update`,
      { prepared: true },
    );
    return rows.map(messageFromRow);
  },

  /**
   * Applies reported moves, each with its timestamp column and any error it carries, in one statement.
   * The changes are columns of arrays: the statement's text is the same for any number of them, so it
   * is prepared (parsed and planned once per connection) and binds seven values, not seven per change.
   */
  async applyChanges(tx: EntityManager, changes: StatusChange[], now: Date): Promise<Message[]> {
    if (changes.length === 0) return [];
    const rows = await queryRaw(
      tx,
      sql`update messages m set ${reportedSet(now)}
         from ${changesTable(changes)}
        where m.id = v.id
       returning ${messageColumns('m')}`,
      { prepared: true },
    );
    return rows.map(messageFromRow);
  },

  /**
   * A phone's reports of its own outbound messages, each id once, in one statement: the messages
   * locked (in id order, as lockOwned locks them), each moved when reportMoves() says it moves and
   * the report is of its open attempt (`sendId`, when named), with its timestamp and error. Returns
   * the moves, each with the status it came from, and every other message named as it is.
   */
  async applyReports(
    tx: EntityManager,
    deviceId: string,
    reports: Array<StatusChange & { sendId?: string }>,
    now: Date,
  ): Promise<{ moved: Moved[]; unmoved: Message[] }> {
    if (reports.length === 0) return { moved: [], unmoved: [] };
    const rows = await queryRaw(
      tx,
      sql`with o as (select ${messageColumns('m')} from messages m
                      where m.id = any(${reports.map((r) => r.id)}::uuid[]) and ${ownedBy(deviceId)}
                      order by m.id for update),
               u as (update messages m set ${reportedSet(now)}
                       from ${changesTable(reports)}
                       join o on o.id = v.id
                      where m.id = v.id
                        and (v.send_id is null or v.send_id = coalesce(o.send_id, o.id)::text)
                        and ${REPORT_MOVES}
                     returning ${messageColumns('m')}, o.status as old_status)
       select ${messageColumns('u')}, u.old_status from u
       union all
       select ${messageColumns('o')}, null from o where not exists (select 1 from u where u.id = o.id)`,
      { prepared: true },
    );
    const moved = rows.filter((row) => row.old_status !== null);
    return { moved: movedFromRows(moved), unmoved: rows.filter((row) => row.old_status === null).map(messageFromRow) };
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
    where: Sql,
    to: 'unknown' | 'failed',
    now: Date,
    error?: { code: string; message: string },
  ): Promise<Moved[]> {
    const failed =
      to === 'failed'
        ? sql`, failed_at = ${now}, error_code = ${error?.code ?? null}::text, error_message = ${error?.message ?? null}::text`
        : sql.empty;
    const rows = await queryRaw(
      tx,
      sql`with target as (
         select id, status as old_status from messages where status in ('queued', 'dispatched') and ${where}
          for update)
       update messages m
          set status = ${to}, updated_at = ${now}${failed}
         from target where m.id = target.id
       returning m.*, target.old_status`,
    );
    return movedFromRows(rows);
  },

  lapsedIn: (batchId: string, now: Date): Sql => sql`batch_id = ${batchId} and stale_at <= ${now}`,
  // Queued, or held back by the phone's platform (dispatched, but not to be handed out again once these fail).
  queuedOn: (deviceId: string): Sql =>
    sql`device_id = ${deviceId} and direction = 'outbound' and (status = 'queued' or held_at is not null)`,
  queuedIn: (batchId: string): Sql => sql`batch_id = ${batchId} and (status = 'queued' or held_at is not null)`,
  // One outbound message of the account, as long as it is not the phone's.
  queuedOne: (userId: string, messageId: string): Sql =>
    sql`id = ${messageId} and user_id = ${userId} and direction = 'outbound' and (status = 'queued' or held_at is not null)`,
};
