import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, type Page } from '../http/pagination';
import { OptOut, type OptOutSource } from './opt-out.entity';
import { execute, type SqlFragment } from '../db/sql';

// The SQL of `opt_outs`: an account's suppression list, one row per E.164 number.

type Row = Record<string, unknown>;

const fromRow = (row: Row): OptOut =>
  ({
    id: row.id as string,
    userId: row.user_id as string,
    phoneNumber: row.phone_number as string,
    source: row.source as OptOutSource,
    messageId: (row.message_id as string | null) ?? null,
    createdAt: row.created_at instanceof Date ? row.created_at : new Date(row.created_at as string),
  }) as OptOut;

export const optOutsRepository = {
  /** Which of `numbers` the account suppresses (one statement, whatever the size of the send). */
  async suppressedAmong(em: EntityManager, userId: string, numbers: string[]): Promise<Set<string>> {
    if (numbers.length === 0) return new Set();
    const rows = await execute<{ phone_number: string }[]>(
      em,
      `select phone_number from opt_outs where user_id = ? and phone_number = any(string_to_array(?, ','))`,
      [userId, numbers.join(',')],
    );
    return new Set(rows.map((row) => row.phone_number));
  },

  /** A condition that holds when the account suppresses none of `numbers` (a step of a larger statement). */
  noneSuppressed: (userId: string, numbers: string[]): SqlFragment => ({
    sql: `not exists (select 1 from opt_outs where user_id = ? and phone_number = any(string_to_array(?, ',')))`,
    params: [userId, numbers.join(',')],
  }),

  /** Puts a number on the list once: the row added, or null when it was there already. */
  async insert(
    em: EntityManager,
    input: {
      id: string;
      userId: string;
      phoneNumber: string;
      source: OptOutSource;
      messageId: string | null;
      now: Date;
    },
  ): Promise<OptOut | null> {
    const [row] = await execute<Row[]>(
      em,
      `insert into opt_outs (id, user_id, phone_number, source, message_id, created_at)
       values (?, ?, ?, ?, ?, ?)
       on conflict (user_id, phone_number) do nothing
       returning *`,
      [input.id, input.userId, input.phoneNumber, input.source, input.messageId, input.now],
    );
    return row ? fromRow(row) : null;
  },

  find: (em: EntityManager, userId: string, phoneNumber: string) => em.findOne(OptOut, { userId, phoneNumber }),

  /** Takes a number off the list; false when it was not on it. */
  async remove(em: EntityManager, userId: string, phoneNumber: string): Promise<boolean> {
    const rows = await execute<Row[]>(em, 'delete from opt_outs where user_id = ? and phone_number = ? returning id', [
      userId,
      phoneNumber,
    ]);
    return rows.length > 0;
  },

  list: (em: EntityManager, userId: string, page: { cursor?: string; limit: number }): Promise<Page<OptOut>> =>
    findPage(em, OptOut, { userId }, { cursor: page.cursor, limit: page.limit, order: 'desc' }),
};
