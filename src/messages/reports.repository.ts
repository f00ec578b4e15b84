import type { EntityManager } from '@mikro-orm/postgresql';
import { queryRaw, sql, type Sql } from '../db/sql';
import type { Message, MessageStatus } from './message.entity';
import { messageColumns, messageFromRow, movedFromRows, type Moved } from './messages.repository';

// Moving messages: a phone's reports, and the moves of open messages a condition selects (lapsed,
// cancelled, a phone disabled).

export interface StatusChange {
  id: string;
  status: MessageStatus;
  at: Date;
  errorCode?: string | null;
  errorMessage?: string | null;
}

export const reportsRepository = {
  /** The phone's own outbound messages among `ids`, locked for a report. */
  async lockOwned(tx: EntityManager, deviceId: string, ids: string[]): Promise<Message[]> {
    const rows = await queryRaw(
      tx,
      sql`select ${messageColumns('m')} from messages m
           where m.id = any(${ids}::uuid[]) and m.device_id = ${deviceId} and m.direction = 'outbound'
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
      sql`update messages m set status = v.status, updated_at = ${now},
              dispatched_at = case when v.status = 'dispatched' then v.at else m.dispatched_at end,
              sent_at = case when v.status = 'sent' then v.at else m.sent_at end,
              delivered_at = case when v.status = 'delivered' then v.at else m.delivered_at end,
              failed_at = case when v.status = 'failed' then v.at else m.failed_at end,
              error_code = case when v.has_code then v.error_code else m.error_code end,
              error_message = case when v.has_message then v.error_message else m.error_message end
         from unnest(${changes.map((c) => c.id)}::uuid[], ${changes.map((c) => c.status)}::text[],
                     ${changes.map((c) => c.at)}::timestamptz[], ${changes.map((c) => c.errorCode !== undefined)}::boolean[],
                     ${changes.map((c) => c.errorCode ?? null)}::text[], ${changes.map((c) => c.errorMessage !== undefined)}::boolean[],
                     ${changes.map((c) => c.errorMessage ?? null)}::text[])
              as v (id, status, at, has_code, error_code, has_message, error_message)
        where m.id = v.id
       returning ${messageColumns('m')}`,
      { prepared: true },
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
