import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';

// The SQL of received MMS: which inbound messages are MMS (their subject) and their attachments,
// whose bytes are kept within the account's quota until the retention sweep drops them.

export type NotStored = 'over_quota' | 'no_data' | 'expired';

/** An attachment without its bytes. */
export interface AttachmentRow {
  id: string;
  messageId: string;
  partId: number;
  contentType: string;
  name: string | null;
  size: number;
  notStored: NotStored | null;
}

export interface NewAttachment {
  partId: number;
  contentType: string;
  name: string | null;
  size: number;
  data: Buffer | null;
  notStored: NotStored | null;
}

const COLUMNS = sql`id, message_id, part_id::float8 as part_id, content_type, name, size::float8 as size, not_stored`;

export const mmsRepository = {
  /** A condition on a query of `messages`: the message is (or, with false, is not) a received MMS. */
  isMms: (yes: boolean) =>
    yes
      ? sql`exists (select 1 from mms_messages m where m.message_id = messages.id)`
      : sql`not exists (select 1 from mms_messages m where m.message_id = messages.id)`,

  /**
   * The bytes of attachments the account keeps now. Takes the account's MMS lock first, so two MMS
   * arriving at once never both fit in the room one had.
   */
  async storedBytes(tx: EntityManager, userId: string): Promise<number> {
    await query(tx, sql`select pg_advisory_xact_lock(hashtextextended(${`mms:${userId}`}, 0))`);
    const [row] = await query<{ bytes: number }>(
      tx,
      sql`select coalesce(sum(size), 0)::float8 as bytes from mms_attachments where user_id = ${userId} and data is not null`,
    );
    return Number(row.bytes);
  },

  async insert(
    tx: EntityManager,
    input: { messageId: string; userId: string; subject: string | null; attachments: NewAttachment[]; now: Date },
  ): Promise<AttachmentRow[]> {
    await query(
      tx,
      sql`insert into mms_messages (message_id, user_id, subject, created_at)
          values (${input.messageId}, ${input.userId}, ${input.subject}, ${input.now})`,
    );
    if (input.attachments.length === 0) return [];
    const rows = input.attachments.map(
      (a) =>
        sql`(gen_random_uuid(), ${input.messageId}, ${input.userId}, ${a.partId}, ${a.contentType}, ${a.name},
             ${a.size}, ${a.data}::bytea, ${a.notStored}, ${input.now})`,
    );
    return query<AttachmentRow>(
      tx,
      sql`insert into mms_attachments (id, message_id, user_id, part_id, content_type, name, size, data, not_stored, created_at)
          values ${sql.join(rows)}
          on conflict (message_id, part_id) do nothing
          returning ${COLUMNS}`,
    );
  },

  /** The MMS among these messages of the account: subject and attachments (by part) for each. */
  async ofMessages(
    em: EntityManager,
    userId: string,
    messageIds: string[],
  ): Promise<Map<string, { subject: string | null; attachments: AttachmentRow[] }>> {
    const found = new Map<string, { subject: string | null; attachments: AttachmentRow[] }>();
    if (messageIds.length === 0) return found;
    const mms = await query<{ messageId: string; subject: string | null }>(
      em,
      sql`select message_id, subject from mms_messages where user_id = ${userId} and message_id = any(${messageIds}::uuid[])`,
    );
    for (const row of mms) found.set(row.messageId, { subject: row.subject, attachments: [] });
    if (found.size === 0) return found;
    const attachments = await query<AttachmentRow>(
      em,
      sql`select ${COLUMNS} from mms_attachments
          where user_id = ${userId} and message_id = any(${[...found.keys()]}::uuid[]) order by part_id, id`,
    );
    for (const row of attachments) found.get(row.messageId)?.attachments.push(row);
    return found;
  },

  /** One attachment of the account's message with its bytes; null when none (or another account's). */
  async content(
    em: EntityManager,
    userId: string,
    messageId: string,
    by: { id: string } | { partId: number },
  ): Promise<(AttachmentRow & { data: Buffer | null }) | null> {
    const which = 'id' in by ? sql`id = ${by.id}` : sql`part_id = ${by.partId}`;
    const [row] = await query<AttachmentRow & { data: Buffer | null }>(
      em,
      sql`select ${COLUMNS}, data from mms_attachments
          where user_id = ${userId} and message_id = ${messageId} and ${which}`,
    );
    return row ?? null;
  },

  /** Drops the bytes of up to `limit` attachments stored before `before`; the list keeps them as expired. */
  async expire(em: EntityManager, before: Date, limit: number): Promise<number> {
    const rows = await query(
      em,
      sql`update mms_attachments set data = null, not_stored = 'expired'
          where id in (select id from mms_attachments where data is not null and created_at < ${before} limit ${limit})
          returning id`,
    );
    return rows.length;
  },
};
