import type { EntityManager } from '@mikro-orm/postgresql';
import { execute } from '../../db/sql';
import { Batch } from '../../messages/batch.entity';
import { Message } from '../../messages/message.entity';
import { Event } from '../../events/event.entity';

// The SQL of the SMSGate integrator API: the ids its clients choose (`smsgate_ids`), the key an
// account's SMSGate webhooks are signed with (`smsgate_accounts`), and its reads of our sends.

export type IdKind = 'message' | 'webhook';

/** A send's SMSGate state from its counts: Failed when all failed, else its least advanced recipient's. */
const STATE = `case
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
    const [row] = await execute<{ our_id: string }[]>(
      em,
      'select our_id from smsgate_ids where user_id = ? and kind = ? and ext_id = ?',
      [userId, kind, extId],
    );
    return row?.our_id;
  },

  /** The ids clients chose for these rows of ours. */
  async extIds(em: EntityManager, ourIds: string[]): Promise<Map<string, string>> {
    if (ourIds.length === 0) return new Map();
    const rows = await execute<{ our_id: string; ext_id: string }[]>(
      em,
      `select our_id, ext_id from smsgate_ids where our_id = any(string_to_array(?, ',')::uuid[])`,
      [ourIds.join(',')],
    );
    return new Map(rows.map((row) => [row.our_id, row.ext_id]));
  },

  async name(em: EntityManager, userId: string, kind: IdKind, extId: string, ourId: string, at: Date): Promise<void> {
    await execute(
      em,
      `insert into smsgate_ids (user_id, kind, ext_id, our_id, created_at) values (?, ?, ?, ?, ?)
       on conflict (user_id, kind, ext_id) do update set our_id = excluded.our_id`,
      [userId, kind, extId, ourId, at],
    );
  },

  async forget(em: EntityManager, ourId: string): Promise<void> {
    await execute(em, 'delete from smsgate_ids where our_id = ?', [ourId]);
  },

  /** The account's sealed signing key, created on first use; a concurrent first use keeps one. */
  async sealedKey(em: EntityManager, userId: string, sealIfNew: () => string, at: Date): Promise<string> {
    await execute(
      em,
      `insert into smsgate_accounts (user_id, signing_key, created_at) values (?, ?, ?)
       on conflict (user_id) do nothing`,
      [userId, sealIfNew(), at],
    );
    const [row] = await execute<{ signing_key: string }[]>(
      em,
      'select signing_key from smsgate_accounts where user_id = ?',
      [userId],
    );
    return row.signing_key;
  },

  /** A page of the account's sends by offset (their list is offset-paginated), with the total. */
  async batches(em: EntityManager, filter: BatchFilter): Promise<{ ids: string[]; total: number }> {
    const where = ['b.user_id = ?'];
    const params: unknown[] = [filter.userId];
    if (filter.from) {
      where.push('b.created_at >= ?');
      params.push(filter.from);
    }
    if (filter.to) {
      where.push('b.created_at < ?');
      params.push(filter.to);
    }
    if (filter.deviceId) {
      where.push('b.device_id::text = ?');
      params.push(filter.deviceId);
    }
    if (filter.state) {
      where.push(`(${STATE}) = ?`);
      params.push(filter.state);
    }
    const rows = await execute<{ id: string; total: number }[]>(
      em,
      `select b.id, count(*) over ()::int as total from batches b where ${where.join(' and ')}
        order by b.created_at ${filter.order}, b.id ${filter.order}
        limit ${filter.limit} offset ${filter.offset}`,
      params,
    );
    if (rows.length > 0 || filter.offset === 0) return { ids: rows.map((row) => row.id), total: rows[0]?.total ?? 0 };
    const [count] = await execute<{ total: number }[]>(
      em,
      `select count(*)::int as total from batches b where ${where.join(' and ')}`,
      params,
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
      { userId, deviceId, direction: 'inbound', receivedAt: { $gte: since, $lte: until } },
      { orderBy: { receivedAt: 'asc' }, limit: 10_000 },
    ),

  /** The account's events within the range, oldest first. */
  events: (em: EntityManager, userId: string, from: Date, to: Date, limit: number) =>
    em.find(Event, { userId, createdAt: { $gte: from, $lte: to } }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit }),
};
