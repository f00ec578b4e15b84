import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from './api-key.entity';
import { execute } from '../db/sql';

// The SQL of `api_keys` on the hot path: the lookup of every request and the batched usage counts.

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
  /** The usable key with this hash at `now`: revoked and expired keys are not found. */
  async usableByHash(em: EntityManager, keyHash: string, now: Date): Promise<UsableKey | null> {
    // Timestamps come back from a raw query as text.
    const [key] = await execute<{ id: string; user_id: string; scopes: Scope[]; expires_at: string | null }[]>(
      em,
      `select id, user_id, scopes, expires_at from api_keys
        where key_hash = ? and revoked_at is null and (expires_at is null or expires_at > ?)`,
      [keyHash, now],
    );
    return key
      ? {
          id: key.id,
          userId: key.user_id,
          scopes: key.scopes,
          expiresAt: key.expires_at ? new Date(key.expires_at) : null,
        }
      : null;
  },

  /** Adds the uses of many keys in one statement. */
  async addUses(em: EntityManager, uses: KeyUse[]): Promise<void> {
    if (uses.length === 0) return;
    const values = uses.map(() => '(?::uuid, ?::int, ?::timestamptz)').join(', ');
    await execute(
      em,
      `update api_keys as k set use_count = k.use_count + v.n, last_used_at = greatest(k.last_used_at, v.at)
         from (values ${values}) as v (id, n, at)
        where k.id = v.id`,
      uses.flatMap((use) => [use.id, use.count, use.lastUsedAt]),
    );
  },
};
