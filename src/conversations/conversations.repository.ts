import type { EntityManager } from '@mikro-orm/postgresql';
import { queryRaw, sql, toDate } from '../db/sql';
import { decodeCursor, toPage, type Page } from '../http/pagination';
import { messageFromRow } from '../messages/messages.repository';
import type { Message } from '../messages/message.entity';

export interface Conversation {
  contact: string;
  /** The conversation's latest text, either way: its (created_at, id) is the page's keyset. */
  last: Message;
  createdAt: Date;
  id: string;
  texts: number;
  received: number;
  lastReceivedAt: Date;
}

export const conversationsRepository = {
  /**
   * The account's conversations: one per number that texted one of its phones, with every text to
   * and from that number, ordered by their latest text, newest first. `q` keeps those whose number
   * or any text holds it. Encrypted texts are left out: their numbers are ciphertext.
   */
  async page(
    em: EntityManager,
    userId: string,
    options: { q?: string; cursor?: string | null; limit: number },
  ): Promise<Page<Conversation>> {
    const pattern = options.q ? `%${options.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    const cursor = options.cursor ? decodeCursor(options.cursor) : null;
    const rows = await queryRaw(
      em,
      sql`with texts as (
            select m.*, case when m.direction = 'inbound' then m.sender else m.recipient end as contact
              from messages m
             where m.user_id = ${userId} and m.encrypted = false
          ), talks as (
            select contact, count(*)::int as texts,
                   count(*) filter (where direction = 'inbound')::int as received,
                   max(created_at) filter (where direction = 'inbound') as last_received_at,
                   bool_or(${pattern}::text is null or contact ilike ${pattern} or body ilike ${pattern}) as matches
              from texts
             where contact is not null
             group by contact
            having count(*) filter (where direction = 'inbound') > 0
          ), latest as (
            select distinct on (t.contact) t.*
              from texts t join talks k on k.contact = t.contact
             order by t.contact, t.created_at desc, t.id desc
          )
          select l.*, k.texts, k.received, k.last_received_at
            from latest l join talks k on k.contact = l.contact
           where k.matches
             and ${cursor ? sql`(l.created_at, l.id) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)` : sql`true`}
           order by l.created_at desc, l.id desc
           limit ${options.limit + 1}::int`,
    );
    const conversations = rows.map((row) => {
      const last = messageFromRow(row);
      return {
        contact: row.contact as string,
        last,
        createdAt: last.createdAt,
        id: last.id,
        texts: row.texts as number,
        received: row.received as number,
        lastReceivedAt: toDate(row.last_received_at)!,
      };
    });
    return toPage(conversations, options.limit);
  },
};
