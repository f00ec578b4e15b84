import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp, updatedAt } from '../db/base.entity';

export const BATCH_STATUSES = ['scheduled', 'queued', 'sending', 'completed', 'failed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
export const PRIORITIES = ['normal', 'high'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const Batch = defineEntity({
  name: 'Batch',
  tableName: 'batches',
  properties: {
    id: id(),
    userId: p.uuid(),
    deviceId: p.uuid(),
    body: p.text(),
    // The body and recipients are ciphertext only the owner's phone can read (SMSGate's format).
    encrypted: p.boolean().default(false),
    // A data SMS's application port (its bytes are `body`, base64); null for a text.
    dataPort: p.integer().nullable(),
    status: p.string().$type<BatchStatus>(),
    recipientCount: p.integer(),
    recipientPreview: p.text(),
    segments: p.integer(),
    encoding: p.string(),
    simSubscriptionId: p.integer().nullable(),
    dispatchedCount: p.integer().default(0),
    sentCount: p.integer().default(0),
    deliveredCount: p.integer().default(0),
    failedCount: p.integer().default(0),
    unknownCount: p.integer().default(0),
    // high goes first in its phone's outbox.
    priority: p.string().$type<Priority>().default('normal'),
    // The send's own lifetime from when it became sendable: its messages lapse then at the latest.
    ttlSeconds: p.integer().nullable(),
    scheduledAt: timestamp().nullable(),
    estimatedCompletionAt: timestamp().nullable(),
    completedAt: timestamp().nullable(),
    error: p.text().nullable(),
    cancelledAt: timestamp().nullable(),
    workflowStartedAt: timestamp().nullable(),
    // The batch whose failed texts this send retries (POST /v1/batches/{id}/retry-failed).
    retryOf: p.uuid().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type Batch = InferEntity<typeof Batch>;
