import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp } from '../db/base.entity';

export const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: id(),
    userId: p.uuid(),
    tokenHash: p.string().unique(),
    ip: p.string().nullable(),
    userAgent: p.string().nullable(),
    createdAt: createdAt(),
    lastSeenAt: timestamp(),
    expiresAt: timestamp(),
    absoluteExpiresAt: timestamp(),
    revokedAt: timestamp().nullable(),
  },
});
export type Session = InferEntity<typeof Session>;
