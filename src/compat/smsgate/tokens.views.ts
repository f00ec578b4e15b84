import type { Minted } from '../../tokens/tokens.service';

/**
 * SMSGate's TokenResponse. Its server and Go client write snake_case; the Python client 4.3.3 reads
 * camelCase: both are sent.
 */
export const tokenResponseView = ({ token, secret, refreshSecret }: Minted) => ({
  id: token.id,
  token_type: 'Bearer',
  access_token: secret,
  refresh_token: refreshSecret,
  expires_at: token.expiresAt.toISOString(),
  tokenType: 'Bearer',
  accessToken: secret,
  refreshToken: refreshSecret,
  expiresAt: token.expiresAt.toISOString(),
});
