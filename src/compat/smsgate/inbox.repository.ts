import type { EntityManager } from '@mikro-orm/postgresql';
import { queryRaw, sql } from '../../db/sql';
import type { Message } from '../../messages/message.entity';
import { messageFromRow } from '../../messages/messages.repository';
import { mmsRepository } from '../../mms/mms.repository';

// The SQL of SMSGate's inbox (GET /inbox): the account's received texts, by offset as their lists are.

export interface InboxFilter {
  userId: string;
  from?: Date;
  to?: Date;
  deviceId?: string;
  /** Only texts (SMS), data SMS or downloaded MMS; every kind when unset. */
  kind?: 'SMS' | 'DATA_SMS' | 'MMS_DOWNLOADED';
  limit: number;
  offset: number;
}

export const inboxRepository = {
  /** A page of the account's received texts, newest first, with the total the filter matches. */
  async received(em: EntityManager, filter: InboxFilter): Promise<{ messages: Message[]; total: number }> {
    const conditions = [sql`user_id = ${filter.userId}`, sql`direction = 'inbound'`];
    if (filter.from) conditions.push(sql`received_at >= ${filter.from}`);
    if (filter.to) conditions.push(sql`received_at < ${filter.to}`);
    // A deviceId is compared as text: one that is no UUID names no phone, and matches nothing.
    if (filter.deviceId) conditions.push(sql`device_id::text = ${filter.deviceId}`);
    if (filter.kind === 'DATA_SMS') conditions.push(sql`data_port is not null`);
    if (filter.kind === 'SMS') conditions.push(sql`data_port is null`, mmsRepository.isMms(false));
    if (filter.kind === 'MMS_DOWNLOADED') conditions.push(mmsRepository.isMms(true));
    const where = sql.join(conditions, sql` and `);
    const rows = await queryRaw(
      em,
      sql`select *, count(*) over ()::int as total from messages where ${where}
          order by received_at desc, id desc
          limit ${filter.limit}::int offset ${filter.offset}::int`,
    );
    if (rows.length > 0 || filter.offset === 0) {
      return {
        messages: rows.map(({ total: _total, ...row }) => messageFromRow(row)),
        total: Number(rows[0]?.total ?? 0),
      };
    }
    const [count] = await queryRaw(em, sql`select count(*)::int as total from messages where ${where}`);
    return { messages: [], total: Number(count.total) };
  },
};
