import type { ApiKey } from './api-key.entity';
import { iso } from '../lib/iso';

/** The only serialiser of keys: the hash never leaves, the full key only in the create response. */
export const apiKeyView = (key: ApiKey) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  scopes: key.scopes,
  use_count: Number(key.useCount),
  created_at: key.createdAt.toISOString(),
  expires_at: iso(key.expiresAt),
  last_used_at: iso(key.lastUsedAt),
  revoked_at: iso(key.revokedAt),
});
