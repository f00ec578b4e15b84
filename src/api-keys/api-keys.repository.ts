import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from './api-key.entity';

// The SQL of `api_keys` on the hot path: the lookup of every request and the batched usage counts.

export interface KeyUse {
  id: string;
  count: number;
  lastUsedAt: Date;
}

export const apiKeysRepository = {
  /** The usable key with this hash at `now`: revoked and expired keys are not found. */
  async usableByHash(
    em: EntityManager,
    keyHash: string,
    now: Date,
  ): Promise<{ id: string; userId: string; scopes: Scope[] } | null> {
    const [key] = await em.execute<{ id: string; user_id: string; scopes: Scope[] }[]>(
      `select id, user_id, scopes from api_keys
        where key_hash = ? and revoked_at is null and (expires_at is null or expires_at > ?)`,
      [keyHash, now],
    );
    return key ? { id: key.id, userId: key.user_id, scopes: key.scopes } : null;
  },

  /** Adds the uses of many keys in one statement. */
  async addUses(em: EntityManager, uses: KeyUse[]): Promise<void> {
    if (uses.length === 0) return;
    const values = uses.map(() => '(?::uuid, ?::int, ?::timestamptz)').join(', ');
    await em.execute(
      `update api_keys as k set use_count = k.use_count + v.n, last_used_at = greatest(k.last_used_at, v.at)
         from (values ${values}) as v (id, n, at)
        where k.id = v.id`,
      uses.flatMap((use) => [use.id, use.count, use.lastUsedAt]),
    );
  },
};
