import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction';
import { notFound } from '../http/errors';
import type { Clock } from '../lib/clock';
import { randomBase62, sha256 } from '../lib/crypto';
import type { Logger } from '../lib/logger';
import { SCOPES, type ApiKey, type Scope } from './api-key.entity';
import { apiKeysRepository, type UsableKey } from './api-keys.repository';
import { createCredentialCache, type ChangeFeed } from '../lib/credential-cache';

/** Told the id of a key whose revocation, expiry, scopes or existence changed (a trigger on api_keys). */
export const API_KEYS_CHANNEL = 'phone_gateway_api_keys';

const KEY_PREFIX = 'sk_';
const KEY_RANDOM_CHARS = 40;
const PREFIX_CHARS = 12;

export interface CreateKeyInput {
  name: string;
  scopes?: Scope[] | null;
  expiresAt?: Date | null;
}

/** Work that ends with a revoked key (the tokens it minted), in the revocation's unit of work. */
export type KeyRevokedHook = (em: EntityManager, keyId: string, at: Date) => Promise<void>;

export function createApiKeysService({ em, clock, feed }: { em: () => EntityManager; clock: Clock; feed: ChangeFeed }) {
  const cache = createCredentialCache<UsableKey>({ feed, channel: API_KEYS_CHANNEL, clock });
  const revokedHooks: KeyRevokedHook[] = [];

  async function owned(userId: string, id: string): Promise<ApiKey> {
    const key = await apiKeysRepository.ownedKey(em(), userId, id);
    if (!key) throw notFound('API key');
    return key;
  }

  return {
    /** The full key is returned here once; only its SHA-256 is stored. */
    async create(userId: string, input: CreateKeyInput): Promise<{ apiKey: ApiKey; key: string }> {
      const key = KEY_PREFIX + randomBase62(KEY_RANDOM_CHARS);
      const apiKey = await apiKeysRepository.insert(em(), {
        userId,
        name: input.name,
        prefix: key.slice(0, PREFIX_CHARS),
        keyHash: sha256(key),
        scopes: input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)] : [...SCOPES],
        expiresAt: input.expiresAt ?? null,
        createdAt: clock.now(),
      });
      return { apiKey, key };
    },

    list: (userId: string, includeRevoked: boolean) => apiKeysRepository.list(em(), userId, includeRevoked),

    async rename(userId: string, id: string, name: string): Promise<void> {
      await apiKeysRepository.update(em(), await owned(userId, id), { name });
    },

    async remove(userId: string, id: string): Promise<void> {
      await apiKeysRepository.delete(em(), await owned(userId, id));
      cache.forget(id);
    },

    async revoke(userId: string, id: string): Promise<void> {
      // The key and what ends with it in one unit of work: never a revoked key whose tokens still work.
      await transaction(em(), async (tx) => {
        const key = await apiKeysRepository.ownedKey(tx, userId, id);
        if (!key) throw notFound('API key');
        const revokedAt = key.revokedAt ?? clock.now();
        await apiKeysRepository.update(tx, key, { revokedAt });
        // Deleting a key deletes its tokens (the table's cascade); revoking one runs the hooks.
        for (const hook of revokedHooks) await hook(tx, id, revokedAt);
      });
      cache.forget(id);
    },

    /** The usable key behind a presented secret: unknown, revoked and expired keys are null. */
    async authenticate(presented: string): Promise<UsableKey | null> {
      if (!presented.startsWith(KEY_PREFIX) || presented.length > 200) return null;
      // Looked up by hash: the secret itself is never compared, so its timing leaks nothing. Every
      // request authenticates: a key in use is remembered (credential-cache.ts), not looked up again.
      const hash = sha256(presented);
      return cache.lookup(hash, () => apiKeysRepository.usableByHash(em(), hash, clock.now()));
    },

    onRevoked(hook: KeyRevokedHook): void {
      revokedHooks.push(hook);
    },

    /** Stops hearing of key changes (process shutdown). */
    stop: () => cache.stop(),
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

/**
 * Counts key uses in memory and writes them in one statement per interval, so a busy key costs one
 * UPDATE every few seconds instead of one per request.
 */
export function createKeyUsageRecorder({
  orm,
  logger,
  intervalMs = 5000,
}: {
  orm: MikroORM;
  logger: Logger;
  intervalMs?: number;
}) {
  let pending = new Map<string, { count: number; lastUsedAt: Date }>();
  let timer: NodeJS.Timeout | undefined;

  async function flush(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await apiKeysRepository.addUses(
        orm.em.fork(),
        [...batch.entries()].map(([id, use]) => ({ id, count: use.count, lastUsedAt: use.lastUsedAt })),
      );
    } catch (error) {
      logger.error({ err: error }, 'could not record API key usage');
    }
  }

  return {
    record(keyId: string, at: Date): void {
      const entry = pending.get(keyId);
      if (entry) {
        entry.count += 1;
        entry.lastUsedAt = at;
      } else pending.set(keyId, { count: 1, lastUsedAt: at });
      timer ??= setTimeout(() => {
        timer = undefined;
        void flush();
      }, intervalMs).unref();
    },
    flush,
    async stop(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      await flush();
    },
  };
}

export type KeyUsageRecorder = ReturnType<typeof createKeyUsageRecorder>;
