import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp, updatedAt } from '../db/base.entity';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: id(),
    email: p.string(),
    name: p.string().nullable(),
    avatarUrl: p.string().nullable(),
    role: p.string().default('owner'),
    passwordHash: p.string().nullable(),
    googleSub: p.string().nullable(),
    planId: p.string(),
    emailVerifiedAt: timestamp().nullable(),
    lastLoginAt: timestamp().nullable(),
    deletionRequestedAt: timestamp().nullable(),
    onboarding: p.json<Record<string, unknown>>().default('{}'),
    /** Offline phones' waiting messages move to another online phone of the account. */
    failover: p.boolean().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type User = InferEntity<typeof User>;
