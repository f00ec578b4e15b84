import type { AccessToken } from '../../tokens/access-token.entity';

/**
 * SMSGate's TokenResponse. Its server and Go client write snake_case; the Python client 4.3.3 reads
 * camelCase: both are sent. No refresh token: a new token is minted with the key instead.
 */
export const tokenResponseView = (token: AccessToken, secret: string) => ({
  id: token.id,
  token_type: 'Bearer',
  access_token: secret,
  expires_at: token.expiresAt.toISOString(),
  tokenType: 'Bearer',
  accessToken: secret,
  expiresAt: token.expiresAt.toISOString(),
});
