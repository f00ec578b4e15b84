import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp } from '../db/base.entity';

import { SCOPES, type Scope } from '../http/scopes';

export { SCOPES, type Scope };

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: id(),
    userId: p.uuid(),
    name: p.string(),
    prefix: p.string(),
    keyHash: p.string().unique(),
    scopes: p.array<Scope>(),
    useCount: p.bigint('number').default(0),
    lastUsedAt: timestamp().nullable(),
    expiresAt: timestamp().nullable(),
    revokedAt: timestamp().nullable(),
    createdAt: createdAt(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
