import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, type Page } from '../http/pagination';
import { query, queryEntities, sql } from '../db/sql';
import { MessageTemplate } from './template.entity';

// The SQL of `message_templates`: an account's saved message texts.

export const templatesRepository = {
  list: (em: EntityManager, userId: string, page: { cursor?: string; limit: number }): Promise<Page<MessageTemplate>> =>
    findPage(em, MessageTemplate, { userId }, { cursor: page.cursor, limit: page.limit, order: 'desc' }),

  find: (em: EntityManager, userId: string, id: string) => em.findOne(MessageTemplate, { id, userId }),

  async insert(em: EntityManager, row: MessageTemplate): Promise<MessageTemplate> {
    const [inserted] = await queryEntities(
      em,
      MessageTemplate,
      sql`insert into message_templates (id, user_id, name, body, created_at, updated_at)
          values (${row.id}, ${row.userId}, ${row.name}, ${row.body}, ${row.createdAt}, ${row.updatedAt})
          returning *`,
    );
    return inserted;
  },

  /** The account's template with the given fields changed; undefined when it is not the account's. */
  async update(
    em: EntityManager,
    userId: string,
    id: string,
    change: { name?: string; body?: string; now: Date },
  ): Promise<MessageTemplate | undefined> {
    const [updated] = await queryEntities(
      em,
      MessageTemplate,
      sql`update message_templates
             set name = coalesce(${change.name ?? null}::text, name),
                 body = coalesce(${change.body ?? null}::text, body),
                 updated_at = ${change.now}
           where id = ${id} and user_id = ${userId}
          returning *`,
    );
    return updated;
  },

  /** Deletes the account's template; false when it was not the account's. */
  async remove(em: EntityManager, userId: string, id: string): Promise<boolean> {
    const rows = await query(
      em,
      sql`delete from message_templates where id = ${id} and user_id = ${userId} returning id`,
    );
    return rows.length > 0;
  },
};
