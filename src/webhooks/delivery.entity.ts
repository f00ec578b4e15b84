import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, id, timestamp } from '../db/base.entity';
import type { EventName } from '../events/event.entity';

export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: id(),
    userId: p.uuid(),
    webhookId: p.uuid(),
    eventId: p.uuid(),
    event: p.string().$type<EventName>(),
    url: p.string(),
    messageId: p.uuid().nullable(),
    deviceId: p.uuid().nullable(),
    // The exact bytes every attempt sends and signs: {id, event, created_at, data}.
    body: p.text(),
    secretVersion: p.integer(),
    status: p.string().$type<DeliveryStatus>(),
    attemptCount: p.integer().default(0),
    httpStatus: p.integer().nullable(),
    responseExcerpt: p.text().nullable(),
    error: p.text().nullable(),
    createdAt: createdAt(),
    lastAttemptAt: timestamp().nullable(),
    nextAttemptAt: timestamp().nullable(),
    deliveredAt: timestamp().nullable(),
    abandonedAt: timestamp().nullable(),
    // The W3C traceparent of what queued it, with tracing on: its attempts' spans continue that trace.
    traceParent: p.text().nullable(),
    // A manual redelivery: the delivery it repeats.
    redeliveryOf: p.uuid().nullable(),
    // The redelivery whose success ended this delivery's retries (it is then delivered through it).
    supersededBy: p.uuid().nullable(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;

export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  properties: {
    id: id(),
    deliveryId: p.uuid(),
    webhookId: p.uuid(),
    attemptNumber: p.integer(),
    url: p.string(),
    ok: p.boolean(),
    httpStatus: p.integer().nullable(),
    responseExcerpt: p.text().nullable(),
    error: p.text().nullable(),
    startedAt: timestamp(),
    durationMs: p.integer(),
  },
});
export type WebhookAttempt = InferEntity<typeof WebhookAttempt>;
