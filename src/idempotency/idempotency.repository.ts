import type { EntityManager } from '@mikro-orm/postgresql';
import { execute } from '../db/sql';

// The SQL of `idempotency_keys`. Plain SQL rather than an entity: the stored answers may hold
// secrets shown once (an API key, a webhook's signing secret), and an ORM error would print them.

/** The advisory-lock class of idempotency keys: (this, hash of account and key). */
const LOCK_CLASS = 0x1de3;

export interface StoredAnswer {
  request_hash: string;
  response_status: number;
  response_body: string;
  created_at: Date;
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
    const [row] = await execute<{ locked: boolean }[]>(
      tx,
      `select pg_try_advisory_xact_lock(${LOCK_CLASS}, hashtext(? || ':' || ?)) as locked`,
      [userId, key],
    );
    return row.locked;
  },

  async find(tx: EntityManager, userId: string, key: string): Promise<StoredAnswer | undefined> {
    const [row] = await execute<StoredAnswer[]>(
      tx,
      `select request_hash, response_status, response_body, created_at
         from idempotency_keys where user_id = ? and key = ?`,
      [userId, key],
    );
    return row ? { ...row, created_at: new Date(row.created_at) } : undefined;
  },

  async remove(tx: EntityManager, userId: string, key: string): Promise<void> {
    await execute(tx, 'delete from idempotency_keys where user_id = ? and key = ?', [userId, key]);
  },

  async insert(tx: EntityManager, row: NewKey): Promise<void> {
    await execute(
      tx,
      `insert into idempotency_keys (user_id, key, request_hash, response_status, response_body, created_at)
       values (?, ?, ?, ?, ?, ?)`,
      [row.userId, row.key, row.requestHash, row.status, row.body, row.createdAt],
    );
  },

  /** Deletes up to `limit` keys created before `before`, oldest first; returns how many. */
  async removeExpired(em: EntityManager, before: Date, limit: number): Promise<number> {
    const rows = await execute<{ user_id: string }[]>(
      em,
      `delete from idempotency_keys where (user_id, key) in
         (select user_id, key from idempotency_keys where created_at < ? order by created_at limit ?)
       returning user_id`,
      [before, limit],
    );
    return rows.length;
  },
};
