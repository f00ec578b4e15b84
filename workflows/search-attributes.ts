// The custom search attributes operators filter workflows by (Temporal UI, `temporal workflow list
// --query`). Defined once here: the starter sets them at start (temporal/starter.ts, via each kind's
// start options), each workflow keeps its status current (workflows/searchable.ts), and the dev server,
// the test servers and the worker register them (temporal/search-attributes.ts). Keys only: this
// module imports nothing but @temporalio/common, so src/ may build start options from it.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/**
 * The account a batch, delivery or phone belongs to: its `userId` (users.id). The attribute keeps the
 * name it is registered under in Temporal's visibility store.
 */
export const AccountId = defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD);
/** The phone a batch is sent from, or whose liveness a workflow watches. */
export const DeviceId = defineSearchAttributeKey('DeviceId', SearchAttributeType.KEYWORD);
/** The webhook a queue is for. */
export const WebhookId = defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD);
/** A batch workflow's stage (BATCH_STATUSES). */
export const BatchStatus = defineSearchAttributeKey('BatchStatus', SearchAttributeType.KEYWORD);
/** A webhook queue's state (DELIVERY_STATUSES). */
export const DeliveryStatus = defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD);
/** A phone's liveness (LIVENESS_STATUSES). */
export const LivenessStatus = defineSearchAttributeKey('LivenessStatus', SearchAttributeType.KEYWORD);

export type KeywordKey = typeof AccountId;

/** Every custom search attribute, as registered on a namespace. */
export const SEARCH_ATTRIBUTES = [AccountId, DeviceId, WebhookId, BatchStatus, DeliveryStatus, LivenessStatus] as const;

/**
 * scheduled: waiting for its scheduled_at; sending: released. A closed batch workflow is settled and
 * keeps the stage it closed in; settled was upserted at the end by runs from before the delayed start.
 */
export const BATCH_STATUSES = ['scheduled', 'sending', 'settled'] as const;
export type BatchStatusValue = (typeof BATCH_STATUSES)[number];

/**
 * For a webhook's queue: pending: deliveries wait for their first attempt; retrying: some wait for a
 * retry (the endpoint failing); delivered / failed: nothing open, and the last delivery ended
 * delivered, or failed (the schedule ran out or the endpoint refused it with a 4xx); abandoned: the
 * webhook was paused (automatically or by hand), disabled or deleted. For a delivery from before
 * the queues, the same words about that one delivery.
 */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed', 'abandoned'] as const;
export type DeliveryStatusValue = (typeof DELIVERY_STATUSES)[number];

/** online / offline as the liveness workflow last decided; unpaired: the workflow ended with the pairing. */
export const LIVENESS_STATUSES = ['online', 'offline', 'unpaired'] as const;
export type LivenessStatusValue = (typeof LIVENESS_STATUSES)[number];

/** What a batch workflow is started with. */
export function batchSearchAttributes(batch: {
  userId: string;
  deviceId: string;
  scheduled: boolean;
}): SearchAttributePair[] {
  const status: BatchStatusValue = batch.scheduled ? 'scheduled' : 'sending';
  return [
    { key: AccountId, value: batch.userId },
    { key: DeviceId, value: batch.deviceId },
    { key: BatchStatus, value: status },
  ];
}

/** What a webhook's queue workflow is started with (by the signal of a new delivery). */
export function queueSearchAttributes(delivery: { userId: string; webhookId: string }): SearchAttributePair[] {
  const status: DeliveryStatusValue = 'pending';
  return [
    { key: AccountId, value: delivery.userId },
    { key: WebhookId, value: delivery.webhookId },
    { key: DeliveryStatus, value: status },
  ];
}

/** What a liveness workflow is started with (by a heartbeat: the phone is online). */
export function livenessSearchAttributes(device: { userId: string; deviceId: string }): SearchAttributePair[] {
  const status: LivenessStatusValue = 'online';
  return [
    { key: AccountId, value: device.userId },
    { key: DeviceId, value: device.deviceId },
    { key: LivenessStatus, value: status },
  ];
}
