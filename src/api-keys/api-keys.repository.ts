import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import { ApiKey, type Scope } from './api-key.entity';
import { query, sql } from '../db/sql';

// The account's API keys (`api_keys`), and the SQL of the hot path: the lookup of every request and
// the batched usage counts.

export interface KeyUse {
  id: string;
  count: number;
  lastUsedAt: Date;
}

/** What authenticating with a key needs to know of it. */
export interface UsableKey {
  id: string;
  userId: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

export const apiKeysRepository = {
  /** The account's key, or null: another account's key is not found. */
  ownedKey: (em: EntityManager, userId: string, id: string) => em.findOne(ApiKey, { id, userId }),

  async insert(em: EntityManager, data: RequiredEntityData<ApiKey>): Promise<ApiKey> {
    const apiKey = em.create(ApiKey, data);
    await em.flush();
    return apiKey;
  },

  /** The account's keys, newest first; revoked ones only with `includeRevoked`. */
  list: (em: EntityManager, userId: string, includeRevoked: boolean) =>
    em.find(
      ApiKey,
      { userId, ...(includeRevoked ? {} : { revokedAt: null }) },
      { orderBy: { createdAt: 'desc', id: 'desc' } },
    ),

  /** Sets `changes` on the loaded key and writes them. */
  async update(em: EntityManager, key: ApiKey, changes: Partial<Pick<ApiKey, 'name' | 'revokedAt'>>): Promise<void> {
    Object.assign(key, changes);
    await em.flush();
  },

  async delete(em: EntityManager, key: ApiKey): Promise<void> {
    em.remove(key);
    await em.flush();
  },

  /** The usable key with this hash at `now`: revoked and expired keys are not found. */
  async usableByHash(em: EntityManager, keyHash: string, now: Date): Promise<UsableKey | null> {
    // Timestamps come back from a raw query as text.
    const [key] = await query<{ id: string; userId: string; scopes: Scope[]; expiresAt: string | null }>(
      em,
      sql`select id, user_id, scopes, expires_at from api_keys
           where key_hash = ${keyHash} and revoked_at is null and (expires_at is null or expires_at > ${now})`,
    );
    return key ? { ...key, expiresAt: key.expiresAt ? new Date(key.expiresAt) : null } : null;
  },

  /** Adds the uses of many keys in one statement. */
  async addUses(em: EntityManager, uses: KeyUse[]): Promise<void> {
    if (uses.length === 0) return;
    const values = uses.map((use) => sql`(${use.id}::uuid, ${use.count}::int, ${use.lastUsedAt}::timestamptz)`);
    await query(
      em,
      sql`update api_keys as k set use_count = k.use_count + v.n, last_used_at = greatest(k.last_used_at, v.at)
            from (values ${sql.join(values)}) as v (id, n, at)
           where k.id = v.id`,
    );
  },
};
