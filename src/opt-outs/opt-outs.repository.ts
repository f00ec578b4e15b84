import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, type Page } from '../http/pagination';
import { OptOut, type OptOutSource } from './opt-out.entity';
import { query, queryEntities, sql, type Sql } from '../db/sql';

// The SQL of `opt_outs`: an account's suppression list, one row per E.164 number.

export const optOutsRepository = {
  /** Which of `numbers` the account suppresses (one statement, whatever the size of the send). */
  async suppressedAmong(em: EntityManager, userId: string, numbers: string[]): Promise<Set<string>> {
    if (numbers.length === 0) return new Set();
    const rows = await query<{ phoneNumber: string }>(
      em,
      sql`select phone_number from opt_outs where user_id = ${userId} and phone_number = any(${numbers}::text[])`,
    );
    return new Set(rows.map((row) => row.phoneNumber));
  },

  /** A condition that holds when the account suppresses none of `numbers` (a step of a larger statement). */
  noneSuppressed: (userId: string, numbers: string[]): Sql =>
    sql`not exists (select 1 from opt_outs where user_id = ${userId} and phone_number = any(${numbers}::text[]))`,

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
    const [row] = await queryEntities(
      em,
      OptOut,
      sql`insert into opt_outs (id, user_id, phone_number, source, message_id, created_at)
          values (${input.id}, ${input.userId}, ${input.phoneNumber}, ${input.source}, ${input.messageId}, ${input.now})
          on conflict (user_id, phone_number) do nothing
          returning *`,
    );
    return row ?? null;
  },

  find: (em: EntityManager, userId: string, phoneNumber: string) => em.findOne(OptOut, { userId, phoneNumber }),

  /** Takes a number off the list; false when it was not on it. */
  async remove(em: EntityManager, userId: string, phoneNumber: string): Promise<boolean> {
    const rows = await query(
      em,
      sql`delete from opt_outs where user_id = ${userId} and phone_number = ${phoneNumber} returning id`,
    );
    return rows.length > 0;
  },

  list: (
    em: EntityManager,
    userId: string,
    page: { cursor?: string; limit: number },
    phoneNumber?: string,
  ): Promise<Page<OptOut>> =>
    findPage(em, OptOut, phoneNumber ? { userId, phoneNumber } : { userId }, {
      cursor: page.cursor,
      limit: page.limit,
      order: 'desc',
    }),
};
