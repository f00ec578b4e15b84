import type { ShownBatch } from './batches.repository';
import type { Message } from './message.entity';
import type { DailyCount } from './messages.repository';
import { iso } from '../lib/iso';
import { countSegments } from './segments';

/** A data SMS's bytes and port; its `body` is empty (the bytes are no text). Null for a text. */
const dataOf = (row: { body: string; dataPort?: number | null }) =>
  row.dataPort != null ? { base64: row.body, port: row.dataPort } : null;
const textOf = (row: { body: string; dataPort?: number | null }) => (row.dataPort != null ? '' : row.body);

export const batchView = (batch: ShownBatch) => ({
  id: batch.id,
  body: textOf(batch),
  data: dataOf(batch),
  encrypted: batch.encrypted,
  device_id: batch.deviceId,
  status: batch.status,
  recipient_count: batch.recipientCount,
  recipient_preview: batch.recipientPreview,
  segments: batch.segments,
  encoding: batch.encoding,
  dispatched_count: batch.dispatchedCount,
  sent_count: batch.sentCount,
  delivered_count: batch.deliveredCount,
  failed_count: batch.failedCount,
  cancelled_count: batch.cancelledCount,
  opted_out_count: batch.optedOutCount,
  unknown_count: batch.unknownCount,
  priority: batch.priority,
  ttl_seconds: batch.ttlSeconds ?? null,
  scheduled_at: iso(batch.scheduledAt),
  estimated_completion_at: iso(batch.estimatedCompletionAt),
  completed_at: iso(batch.completedAt),
  error: batch.error ?? null,
  cancelled_at: iso(batch.cancelledAt),
  retry_of: batch.retryOf ?? null,
  retried_by: batch.retriedBy,
  created_at: batch.createdAt.toISOString(),
  updated_at: batch.updatedAt.toISOString(),
});

export const messageView = (message: Message) => ({
  id: message.id,
  batch_id: message.batchId ?? null,
  device_id: message.deviceId,
  direction: message.direction,
  status: message.status,
  body: textOf(message),
  data: dataOf(message),
  encrypted: message.encrypted,
  segments: message.segments,
  encoding: message.encrypted ? 'unknown' : message.dataPort != null ? 'binary' : countSegments(message.body).encoding,
  recipient: message.recipient ?? null,
  sender: message.sender ?? null,
  sim_subscription_id: message.simSubscriptionId ?? null,
  error_code: message.errorCode ?? null,
  error_message: message.errorMessage ?? null,
  dispatched_at: iso(message.dispatchedAt),
  sent_at: iso(message.sentAt),
  delivered_at: iso(message.deliveredAt),
  failed_at: iso(message.failedAt),
  received_at: iso(message.receivedAt),
  created_at: message.createdAt.toISOString(),
  updated_at: message.updatedAt.toISOString(),
});

export const outboxRowView = (message: Message) => ({
  id: message.id,
  batch_id: message.batchId,
  body: textOf(message),
  data: dataOf(message),
  to: message.recipient,
  encrypted: message.encrypted,
  sim_subscription_id: message.simSubscriptionId ?? null,
});

/** GET /v1/devices/{id}/estimate. */
export const estimateView = (estimate: {
  deviceId: string;
  recipients: number;
  ahead: number;
  secondsPerMessage: number;
  pausedUntil: Date | null;
  startsAt: Date;
  finishesAt: Date;
}) => ({
  device_id: estimate.deviceId,
  recipients: estimate.recipients,
  ahead: estimate.ahead,
  seconds_per_message: estimate.secondsPerMessage,
  paused_until: estimate.pausedUntil?.toISOString() ?? null,
  starts_at: estimate.startsAt.toISOString(),
  finishes_at: estimate.finishesAt.toISOString(),
  duration_seconds: Math.max(0, Math.round((estimate.finishesAt.getTime() - estimate.startsAt.getTime()) / 1000)),
});

/** GET /v1/stats/daily. */
export const dailyStatsView = (stats: {
  timezone: string;
  days: DailyCount[];
}) => ({
  timezone: stats.timezone,
  days: stats.days.map((d) => ({
    date: d.date,
    sent: d.sent,
    delivered: d.delivered,
    failed: d.failed,
    cancelled: d.cancelled,
    opted_out: d.optedOut,
    pending: d.pending,
    awaiting_report: d.awaitingReport,
    unknown: d.unknown,
  })),
});
