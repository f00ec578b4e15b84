import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { Scope } from '../api-keys/api-key.entity';
import { createdAt, id, timestamp } from '../db/base.entity';

/** A short-lived credential with some of its creator's scopes; the secret is stored as its SHA-256. */
export const AccessToken = defineEntity({
  name: 'AccessToken',
  tableName: 'access_tokens',
  properties: {
    id: id(),
    userId: p.uuid(),
    /** The API key that minted it (null: a dashboard session did); it lives no longer than that key. */
    apiKeyId: p.uuid().nullable(),
    prefix: p.string(),
    tokenHash: p.string().unique(),
    scopes: p.array<Scope>(),
    expiresAt: timestamp(),
    revokedAt: timestamp().nullable(),
    /** The refresh secret's SHA-256 (SMSGate's token pairs); null when none was issued. */
    refreshHash: p.string().unique().nullable(),
    refreshExpiresAt: timestamp().nullable(),
    /** When its refresh secret was used (once) for the next token. */
    refreshedAt: timestamp().nullable(),
    createdAt: createdAt(),
  },
});
export type AccessToken = InferEntity<typeof AccessToken>;
