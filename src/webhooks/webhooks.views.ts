import type { WebhookDelivery } from './delivery.entity';
import type { Webhook } from './webhook.entity';
import { iso } from '../lib/iso';

/** The only serialiser of webhooks: the signing secret is never part of it. */
export const webhookView = (webhook: Webhook) => ({
  id: webhook.id,
  url: webhook.url,
  name: webhook.name ?? null,
  device_id: webhook.deviceId ?? null,
  events: webhook.events,
  enabled: webhook.enabled,
  disabled_reason: webhook.disabledReason ?? null,
  success_count: Number(webhook.successCount),
  failure_count: Number(webhook.failureCount),
  last_attempt_at: iso(webhook.lastAttemptAt),
  last_success_at: iso(webhook.lastSuccessAt),
  last_failure_at: iso(webhook.lastFailureAt),
  created_at: webhook.createdAt.toISOString(),
  updated_at: webhook.updatedAt.toISOString(),
});

/** `redeliveries`: the deliveries that repeat this one, oldest first (webhooks.redeliveriesOf). */
export const deliveryView = (delivery: WebhookDelivery, redeliveries: string[] = []) => ({
  id: delivery.id,
  webhook_id: delivery.webhookId,
  url: delivery.url,
  event: delivery.event,
  status: delivery.status,
  message_id: delivery.messageId ?? null,
  device_id: delivery.deviceId ?? null,
  // What was (or will be) sent, byte for byte, parsed back.
  payload: JSON.parse(delivery.body) as unknown,
  attempt_count: delivery.attemptCount,
  http_status: delivery.httpStatus ?? null,
  response_excerpt: delivery.responseExcerpt ?? null,
  error: delivery.error ?? null,
  created_at: delivery.createdAt.toISOString(),
  last_attempt_at: iso(delivery.lastAttemptAt),
  next_attempt_at: iso(delivery.nextAttemptAt),
  delivered_at: iso(delivery.deliveredAt),
  abandoned_at: iso(delivery.abandonedAt),
  redelivery_of: delivery.redeliveryOf ?? null,
  redeliveries,
  superseded_by: delivery.supersededBy ?? null,
});
