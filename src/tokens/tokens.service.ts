import { newId } from '../lib/ids';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SCOPES, type Scope } from '../api-keys/api-key.entity';
import { transaction } from '../db/transaction';
import { forbidden, insufficientScope, notFound, unauthenticated } from '../http/errors';
import type { Clock } from '../lib/clock';
import type { Sweep } from '../reconciler/reconciler.service';
import { randomBase62, sha256 } from '../lib/crypto';
import type { AccessToken } from './access-token.entity';
import { tokensRepository, type UsableToken } from './tokens.repository';

export const TOKEN_PREFIX = 'tk_';
const REFRESH_PREFIX = 'tr_';
const TOKEN_RANDOM_CHARS = 40;
const PREFIX_CHARS = 12;

/** Ended tokens (expired or revoked) are removed this long after they end. */
const KEEP_ENDED_MS = 24 * 60 * 60 * 1000;
const SWEEP_LIMIT = 1000;

/** A token's lifetime: one hour unless asked, one minute to one day. */
export const TOKEN_TTL = { defaultSeconds: 3600, minSeconds: 60, maxSeconds: 86_400 } as const;
/** How long a refresh secret (and the chain of tokens it starts) lasts: SMSGate's server's default. */
const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Who mints, lists or revokes tokens: a dashboard session (no key), an API key, or a token (refused). */
export interface TokenOwner {
  userId: string;
  /** The API key calling; null for a dashboard session. */
  keyId: string | null;
  /** Set when the caller is itself a token. */
  tokenId?: string;
  /** What the caller may do: a token gets at most these. */
  scopes: readonly Scope[];
}

/** A token as minted: the row, its secret and, for a token pair, its refresh secret (each shown once). */
export interface Minted {
  token: AccessToken;
  secret: string;
  refreshSecret: string | null;
}

const refusedRefresh = () =>
  unauthenticated('The refresh token is unknown, used, revoked or expired: mint a new token with the API key.');

export function createTokensService({ em, clock }: { em: () => EntityManager; clock: Clock }) {
  function notAToken(owner: TokenOwner) {
    if (owner.tokenId) {
      throw forbidden(
        'token_cannot_manage_tokens',
        'A token cannot mint, list or revoke tokens: use an API key or the dashboard.',
      );
    }
  }

  async function insertToken(
    tx: EntityManager,
    from: { userId: string; apiKeyId: string | null; scopes: readonly Scope[]; ttlSeconds: number },
    refreshUntil: Date | null,
  ): Promise<Minted> {
    const secret = TOKEN_PREFIX + randomBase62(TOKEN_RANDOM_CHARS);
    const refreshSecret = refreshUntil ? REFRESH_PREFIX + randomBase62(TOKEN_RANDOM_CHARS) : null;
    const now = clock.now();
    const token: AccessToken = {
      id: newId(),
      userId: from.userId,
      apiKeyId: from.apiKeyId,
      prefix: secret.slice(0, PREFIX_CHARS),
      tokenHash: sha256(secret),
      scopes: SCOPES.filter((scope) => from.scopes.includes(scope)),
      expiresAt: new Date(now.getTime() + from.ttlSeconds * 1000),
      revokedAt: null,
      refreshHash: refreshSecret ? sha256(refreshSecret) : null,
      refreshExpiresAt: refreshUntil,
      refreshedAt: null,
      createdAt: now,
    };
    await tokensRepository.insert(tx, token);
    return { token, secret, refreshSecret };
  }

  return {
    /** A revoked key's tokens end with it. */
    endWithKey: (tx: EntityManager, keyId: string, at: Date) => tokensRepository.revokeMintedBy(tx, keyId, at),
    /**
     * A new token with `scopes` (all of the caller's when none are named) for `ttlSeconds` (bounded
     * by the caller's route). The secret is returned here once; only its SHA-256 is stored.
     */
    async mint(
      owner: TokenOwner,
      input: { scopes?: Scope[] | null; ttlSeconds: number; refresh?: boolean },
    ): Promise<Minted> {
      notAToken(owner);
      const scopes = input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)] : [...owner.scopes];
      // Never more than the creator holds: a key cannot mint its way to another scope.
      const missing = scopes.find((scope) => !owner.scopes.includes(scope));
      if (missing) throw insufficientScope(missing);
      const now = clock.now();
      const refreshUntil = input.refresh ? new Date(now.getTime() + REFRESH_TTL_MS) : null;
      return insertToken(
        em(),
        { userId: owner.userId, apiKeyId: owner.keyId, scopes, ttlSeconds: input.ttlSeconds },
        refreshUntil,
      );
    },

    /**
     * The next token of a refresh secret (SMSGate's POST /auth/token/refresh): the same scopes and
     * lifetime, a new refresh secret good until the first one's end. Each refresh secret works once;
     * one that is unknown, used, expired, or whose token was revoked or key ended is refused with 401.
     */
    async refresh(presented: string): Promise<Minted> {
      if (!presented.startsWith(REFRESH_PREFIX) || presented.length > 200) throw refusedRefresh();
      return transaction(em(), async (tx) => {
        const used = await tokensRepository.useRefresh(tx, sha256(presented), clock.now());
        if (!used) throw refusedRefresh();
        return insertToken(tx, used, used.refreshExpiresAt);
      });
    },

    /** The live tokens the caller may see: a session every one of the account's, a key those it minted. */
    list(owner: TokenOwner, page: { cursor?: string; limit: number }) {
      notAToken(owner);
      return tokensRepository.live(em(), owner.userId, owner.keyId ?? undefined, clock.now(), page);
    },

    /** Refused from the next request on, in every process: nothing caches a token. */
    async revoke(owner: TokenOwner, id: string): Promise<void> {
      notAToken(owner);
      if (!(await tokensRepository.revoke(em(), owner.userId, id, owner.keyId ?? undefined, clock.now()))) {
        throw notFound('token');
      }
    },

    /** The usable token behind a presented secret: unknown, revoked and expired ones are null. */
    async authenticate(presented: string): Promise<UsableToken | null> {
      if (!presented.startsWith(TOKEN_PREFIX) || presented.length > 200) return null;
      // Looked up by hash on every request, so a revocation holds from the moment it commits.
      return tokensRepository.usableByHash(em(), sha256(presented), clock.now());
    },

    /** The reconciler's pass that removes tokens a day after they expired or were revoked. */
    sweep(): Sweep {
      return {
        name: 'ended-tokens',
        routine: true,
        run: () =>
          tokensRepository.removeEnded(em().fork(), new Date(clock.now().getTime() - KEEP_ENDED_MS), SWEEP_LIMIT),
      };
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
