import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp, updatedAt } from '../db/base.entity';
import type { EventName } from '../events/event.entity';

/** How deliveries are written and signed: ours, or the SMSGate app's (src/compat/smsgate). */
export const WEBHOOK_FORMATS = ['service', 'smsgate'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  properties: {
    id: id(),
    userId: p.uuid(),
    url: p.string(),
    // The one phone whose events it receives; null: every event of the account.
    deviceId: p.uuid().nullable(),
    name: p.string().nullable(),
    events: p.array<EventName>(),
    enabled: p.boolean().default(true),
    format: p.string().$type<WebhookFormat>().default('service'),
    disabledReason: p.string().nullable(),
    // The version of webhook_secrets that deliveries queued from now on sign with.
    secretVersion: p.integer().default(1),
    successCount: p.bigint('number').default(0),
    failureCount: p.bigint('number').default(0),
    lastAttemptAt: timestamp().nullable(),
    lastSuccessAt: timestamp().nullable(),
    lastFailureAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamp().nullable(),
  },
});
export type Webhook = InferEntity<typeof Webhook>;

export const WebhookSecret = defineEntity({
  name: 'WebhookSecret',
  tableName: 'webhook_secrets',
  properties: {
    webhookId: p.uuid().primary(),
    version: p.integer().primary(),
    secret: p.string(),
    createdAt: createdAt(),
  },
});
export type WebhookSecret = InferEntity<typeof WebhookSecret>;
