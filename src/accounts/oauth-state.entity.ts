import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, timestamp } from '../db/base.entity';

/** A Google sign-in between /start and /callback; only the hash of the state is kept. */
export const OAuthState = defineEntity({
  name: 'OAuthState',
  tableName: 'oauth_states',
  properties: {
    stateHash: p.string().primary(),
    nonce: p.string(),
    codeVerifier: p.string(),
    createdAt: createdAt(),
    expiresAt: timestamp(),
  },
});
export type OAuthState = InferEntity<typeof OAuthState>;
