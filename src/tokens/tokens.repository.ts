import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from '../api-keys/api-key.entity';
import { query, sql } from '../db/sql';
import { findPage, type Page } from '../http/pagination';
import { AccessToken } from './access-token.entity';

// The SQL of `access_tokens`: short-lived credentials minted by an API key or a dashboard session.

/** What authenticating with a token needs to know of it. */
export interface UsableToken {
  id: string;
  userId: string;
  apiKeyId: string | null;
  scopes: Scope[];
  expiresAt: Date;
}

export const tokensRepository = {
  async insert(em: EntityManager, token: Omit<AccessToken, 'revokedAt' | 'refreshedAt'>): Promise<void> {
    await query(
      em,
      sql`insert into access_tokens (id, user_id, api_key_id, prefix, token_hash, scopes, expires_at,
                                     refresh_hash, refresh_expires_at, created_at)
          values (${token.id}, ${token.userId}, ${token.apiKeyId}, ${token.prefix}, ${token.tokenHash},
                  ${token.scopes}::text[], ${token.expiresAt}, ${token.refreshHash}, ${token.refreshExpiresAt},
                  ${token.createdAt})`,
    );
  },

  /**
   * Uses a refresh secret, once: the token it came with must not be revoked nor its refresh used or
   * expired, and its key (if any) must be live. Returns what the next token inherits, or null.
   */
  async useRefresh(
    em: EntityManager,
    refreshHash: string,
    now: Date,
  ): Promise<{ userId: string; apiKeyId: string | null; scopes: Scope[]; ttlSeconds: number; refreshExpiresAt: Date } | null> {
    const [row] = await query<{
      userId: string;
      apiKeyId: string | null;
      scopes: Scope[];
      ttlSeconds: number;
      refreshExpiresAt: string;
    }>(
      em,
      sql`update access_tokens t set refreshed_at = ${now}
           where t.refresh_hash = ${refreshHash} and t.refreshed_at is null and t.revoked_at is null
             and t.refresh_expires_at > ${now}
             and (t.api_key_id is null or exists (
                   select 1 from api_keys k where k.id = t.api_key_id and k.revoked_at is null
                      and (k.expires_at is null or k.expires_at > ${now})))
       returning t.user_id, t.api_key_id, t.scopes,
                 round(extract(epoch from t.expires_at - t.created_at))::int as ttl_seconds, t.refresh_expires_at`,
    );
    return row ? { ...row, refreshExpiresAt: new Date(row.refreshExpiresAt) } : null;
  },

  /**
   * The usable token with this hash at `now`: revoked and expired tokens are not found, nor those of a
   * key that is revoked or expired (a deleted key took its tokens with it).
   */
  async usableByHash(em: EntityManager, tokenHash: string, now: Date): Promise<UsableToken | null> {
    const [token] = await query<{
      id: string;
      userId: string;
      apiKeyId: string | null;
      scopes: Scope[];
      expiresAt: string;
    }>(
      em,
      sql`select t.id, t.user_id, t.api_key_id, t.scopes, t.expires_at
            from access_tokens t left join api_keys k on k.id = t.api_key_id
           where t.token_hash = ${tokenHash} and t.revoked_at is null and t.expires_at > ${now}
             and (t.api_key_id is null or (k.revoked_at is null and (k.expires_at is null or k.expires_at > ${now})))`,
    );
    return token ? { ...token, expiresAt: new Date(token.expiresAt) } : null;
  },

  /** The account's live tokens, newest first; only those `apiKeyId` minted when it is given. */
  live: (
    em: EntityManager,
    userId: string,
    apiKeyId: string | undefined,
    now: Date,
    page: { cursor?: string; limit: number },
  ): Promise<Page<AccessToken>> =>
    findPage(
      em,
      AccessToken,
      { userId, revokedAt: null, expiresAt: { $gt: now }, ...(apiKeyId ? { apiKeyId } : {}) },
      { cursor: page.cursor, limit: page.limit, order: 'desc' },
    ),

  /**
   * Revokes one of the account's tokens (one `apiKeyId` minted, when it is given); false when there is
   * no such token. Revoking a revoked or expired token again changes nothing and is not an error.
   */
  async revoke(
    em: EntityManager,
    userId: string,
    id: string,
    apiKeyId: string | undefined,
    now: Date,
  ): Promise<boolean> {
    const rows = await query(
      em,
      sql`update access_tokens set revoked_at = coalesce(revoked_at, ${now})
           where id = ${id} and user_id = ${userId} ${apiKeyId ? sql`and api_key_id = ${apiKeyId}` : sql.empty}
       returning id`,
    );
    return rows.length > 0;
  },

  /** Removes up to `limit` tokens that ended before `before`: revoked, or expired with no refresh left. */
  async removeEnded(em: EntityManager, before: Date, limit: number): Promise<number> {
    const rows = await query(
      em,
      sql`delete from access_tokens where id in
            (select id from access_tokens
              where (expires_at < ${before} and (refresh_expires_at is null or refresh_expires_at < ${before}
                                                 or refreshed_at is not null))
                 or revoked_at < ${before}
              limit ${limit})
          returning id`,
    );
    return rows.length;
  },

  /** Revokes every token a key minted (the key itself was revoked). */
  async revokeMintedBy(em: EntityManager, apiKeyId: string, now: Date): Promise<void> {
    await query(
      em,
      sql`update access_tokens set revoked_at = ${now} where api_key_id = ${apiKeyId} and revoked_at is null`,
    );
  },
};
