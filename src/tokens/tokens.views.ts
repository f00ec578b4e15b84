import type { AccessToken } from './access-token.entity';

/** The only serialiser of tokens: the hash never leaves, the secret only in the mint response. */
export const tokenView = (token: AccessToken) => ({
  id: token.id,
  prefix: token.prefix,
  scopes: token.scopes,
  api_key_id: token.apiKeyId ?? null,
  created_at: token.createdAt.toISOString(),
  expires_at: token.expiresAt.toISOString(),
});
