import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp, updatedAt } from '../db/base.entity';

export const MESSAGE_STATUSES = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'unknown', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const Message = defineEntity({
  name: 'Message',
  tableName: 'messages',
  properties: {
    id: id(),
    userId: p.uuid(),
    batchId: p.uuid().nullable(),
    deviceId: p.uuid(),
    direction: p.string().$type<'outbound' | 'inbound'>(),
    status: p.string().$type<MessageStatus>(),
    body: p.text(),
    // The body is its batch's (searched there, batches_search_idx), not a text of its own.
    bodyFromBatch: p.boolean().default(false),
    // The body and recipients are ciphertext only the owner's phone can read (SMSGate's format).
    encrypted: p.boolean().default(false),
    // A data SMS's application port (its bytes are `body`, base64); null for a text.
    dataPort: p.integer().nullable(),
    recipient: p.string().nullable(),
    sender: p.string().nullable(),
    simSubscriptionId: p.integer().nullable(),
    segments: p.integer().default(1),
    position: p.integer().default(0),
    // The outbox's first sort key: 1 for a high-priority send's messages, 0 otherwise.
    priority: p.smallint().default(0),
    fingerprint: p.string().nullable(),
    errorCode: p.string().nullable(),
    errorMessage: p.text().nullable(),
    availableAt: timestamp().nullable(),
    staleAt: timestamp().nullable(),
    dispatchedAt: timestamp().nullable(),
    // When the phone's platform refused it for its limit (RESULT_ERROR_LIMIT_EXCEEDED): it waits in
    // the outbox, still dispatched, to be handed out again as a new attempt.
    heldAt: timestamp().nullable(),
    // The id the phone knows the current attempt by, after such a refusal (null: the message id).
    sendId: p.uuid().nullable(),
    sentAt: timestamp().nullable(),
    deliveredAt: timestamp().nullable(),
    failedAt: timestamp().nullable(),
    receivedAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type Message = InferEntity<typeof Message>;
