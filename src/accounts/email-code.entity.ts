import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp } from '../db/base.entity';

export const EmailCode = defineEntity({
  name: 'EmailCode',
  tableName: 'email_codes',
  properties: {
    id: id(),
    userId: p.uuid(),
    purpose: p.enum(['verify', 'reset'] as const),
    codeHash: p.string(),
    attempts: p.integer().default(0),
    expiresAt: timestamp(),
    consumedAt: timestamp().nullable(),
    createdAt: createdAt(),
  },
});
export type EmailCode = InferEntity<typeof EmailCode>;
