import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql, toDate } from '../db/sql';

// The SQL of `idempotency_keys`. Plain SQL rather than an entity: the stored answers may hold
// secrets shown once (an API key, a webhook's signing secret), and an ORM error would print them.

/** The advisory-lock class of idempotency keys: (this, hash of account and key). */
const LOCK_CLASS = 0x1de3;

export interface StoredAnswer {
  requestHash: string;
  responseStatus: number;
  responseBody: string;
  createdAt: Date;
}

export interface NewKey {
  userId: string;
  key: string;
  requestHash: string;
  status: number;
  body: string;
  createdAt: Date;
}

export const idempotencyRepository = {
  /**
   * Takes the (account, key) lock until `tx` ends, without waiting: false when another request
   * with the same key holds it (it is still running).
   */
  async tryLock(tx: EntityManager, userId: string, key: string): Promise<boolean> {
    const [row] = await query<{ locked: boolean }>(
      tx,
      sql`select pg_try_advisory_xact_lock(${LOCK_CLASS}::int, hashtext(${userId}::text || ':' || ${key}::text)) as locked`,
    );
    return row.locked;
  },

  async find(tx: EntityManager, userId: string, key: string): Promise<StoredAnswer | undefined> {
    const [row] = await query<StoredAnswer>(
      tx,
      sql`select request_hash, response_status, response_body, created_at
            from idempotency_keys where user_id = ${userId} and key = ${key}`,
    );
    return row ? { ...row, createdAt: toDate(row.createdAt)! } : undefined;
  },

  async remove(tx: EntityManager, userId: string, key: string): Promise<void> {
    await query(tx, sql`delete from idempotency_keys where user_id = ${userId} and key = ${key}`);
  },

  async insert(tx: EntityManager, row: NewKey): Promise<void> {
    await query(
      tx,
      sql`insert into idempotency_keys (user_id, key, request_hash, response_status, response_body, created_at)
          values (${row.userId}, ${row.key}, ${row.requestHash}, ${row.status}, ${row.body}, ${row.createdAt})`,
    );
  },

  /** Deletes up to `limit` keys created before `before`, oldest first; returns how many. */
  async removeExpired(em: EntityManager, before: Date, limit: number): Promise<number> {
    const rows = await query(
      em,
      sql`delete from idempotency_keys where (user_id, key) in
            (select user_id, key from idempotency_keys where created_at < ${before} order by created_at limit ${limit})
          returning user_id`,
    );
    return rows.length;
  },
};
