import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../../db/sql';
import { Batch } from '../../messages/batch.entity';
import { Message } from '../../messages/message.entity';
import { Event } from '../../events/event.entity';

// The SQL of the SMSGate integrator API: the ids its clients choose (`smsgate_ids`), the key an
// account's SMSGate webhooks are signed with (`smsgate_accounts`), and its reads of our sends.

export type IdKind = 'message' | 'webhook';

/** A send's SMSGate state from its counts: Failed when all failed, else its least advanced recipient's. */
const STATE = sql`case
    when b.failed_count = b.recipient_count then 'Failed'
    when b.recipient_count - b.dispatched_count - b.sent_count - b.delivered_count - b.failed_count - b.unknown_count > 0 then 'Pending'
    when b.dispatched_count + b.unknown_count > 0 then 'Processed'
    when b.sent_count > 0 then 'Sent'
    else 'Delivered' end`;

export interface BatchFilter {
  userId: string;
  from?: Date;
  to?: Date;
  state?: string;
  deviceId?: string;
  limit: number;
  offset: number;
  order: 'asc' | 'desc';
}

export const integratorRepository = {
  /** Our row that an id a client chose names, if any. */
  async ourId(em: EntityManager, userId: string, kind: IdKind, extId: string): Promise<string | undefined> {
    const [row] = await query<{ ourId: string }>(
      em,
      sql`select our_id from smsgate_ids where user_id = ${userId} and kind = ${kind} and ext_id = ${extId}`,
    );
    return row?.ourId;
  },

  /** The ids clients chose for these rows of ours. */
  async extIds(em: EntityManager, ourIds: string[]): Promise<Map<string, string>> {
    if (ourIds.length === 0) return new Map();
    const rows = await query<{ ourId: string; extId: string }>(
      em,
      sql`select our_id, ext_id from smsgate_ids where our_id = any(${ourIds}::uuid[])`,
    );
    return new Map(rows.map((row) => [row.ourId, row.extId]));
  },

  async name(em: EntityManager, userId: string, kind: IdKind, extId: string, ourId: string, at: Date): Promise<void> {
    await query(
      em,
      sql`insert into smsgate_ids (user_id, kind, ext_id, our_id, created_at)
          values (${userId}, ${kind}, ${extId}, ${ourId}, ${at})
          on conflict (user_id, kind, ext_id) do update set our_id = excluded.our_id`,
    );
  },

  async forget(em: EntityManager, ourId: string): Promise<void> {
    await query(em, sql`delete from smsgate_ids where our_id = ${ourId}`);
  },

  /** The account's sealed signing key, created on first use; a concurrent first use keeps one. */
  async sealedKey(em: EntityManager, userId: string, sealIfNew: () => string, at: Date): Promise<string> {
    await query(
      em,
      sql`insert into smsgate_accounts (user_id, signing_key, created_at) values (${userId}, ${sealIfNew()}, ${at})
          on conflict (user_id) do nothing`,
    );
    const [row] = await query<{ signingKey: string }>(
      em,
      sql`select signing_key from smsgate_accounts where user_id = ${userId}`,
    );
    return row.signingKey;
  },

  /** Replaces the account's sealed signing key. */
  async setKey(em: EntityManager, userId: string, sealed: string, at: Date): Promise<void> {
    await query(
      em,
      sql`insert into smsgate_accounts (user_id, signing_key, created_at) values (${userId}, ${sealed}, ${at})
          on conflict (user_id) do update set signing_key = excluded.signing_key`,
    );
  },

  /** A page of the account's sends by offset (their list is offset-paginated), with the total. */
  async batches(em: EntityManager, filter: BatchFilter): Promise<{ ids: string[]; total: number }> {
    const conditions = [sql`b.user_id = ${filter.userId}`];
    if (filter.from) conditions.push(sql`b.created_at >= ${filter.from}`);
    if (filter.to) conditions.push(sql`b.created_at < ${filter.to}`);
    if (filter.deviceId) conditions.push(sql`b.device_id::text = ${filter.deviceId}`);
    if (filter.state) conditions.push(sql`(${STATE}) = ${filter.state}`);
    const where = sql.join(conditions, sql` and `);
    const order = filter.order === 'asc' ? sql`asc` : sql`desc`;
    const rows = await query<{ id: string; total: number }>(
      em,
      sql`select b.id, count(*) over ()::int as total from batches b where ${where}
          order by b.created_at ${order}, b.id ${order}
          limit ${filter.limit}::int offset ${filter.offset}::int`,
    );
    if (rows.length > 0 || filter.offset === 0) return { ids: rows.map((row) => row.id), total: rows[0]?.total ?? 0 };
    const [count] = await query<{ total: number }>(
      em,
      sql`select count(*)::int as total from batches b where ${where}`,
    );
    return { ids: [], total: count.total };
  },

  sendsOf: (em: EntityManager, userId: string, ids: string[]) => em.find(Batch, { userId, id: { $in: ids } }),

  messagesOf: (em: EntityManager, userId: string, batchIds: string[]) =>
    em.find(Message, { userId, batchId: { $in: batchIds } }, { orderBy: { position: 'asc' } }),

  /** Received texts of one phone of the account within [since, until]. */
  received: (em: EntityManager, userId: string, deviceId: string, since: Date, until: Date) =>
    em.find(
      Message,
      // Texts only: the export goes to sms:received webhooks, which a data SMS never reaches.
      { userId, deviceId, direction: 'inbound', dataPort: null, receivedAt: { $gte: since, $lte: until } },
      { orderBy: { receivedAt: 'asc' }, limit: 10_000 },
    ),

  /** The account's events within the range, oldest first. */
  events: (em: EntityManager, userId: string, from: Date, to: Date, limit: number) =>
    em.find(
      Event,
      { userId, createdAt: { $gte: from, $lte: to } },
      { orderBy: { createdAt: 'asc', id: 'asc' }, limit },
    ),
};
