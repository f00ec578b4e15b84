import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../lib/logger';
import type { SecretBox } from '../lib/secret-box';
import { attemptsRepository } from './attempts.repository';
import { signatureHeader, smsgateSignature } from './signature';
import type { WebhookFormat } from './webhook.entity';
import { webhooksRepository } from './webhooks.repository';

// What an attempt's answer means for its delivery and its webhook (delivery-queue.service.ts).

/** The auto-pause rule, counted over attempts. */
export const AUTO_PAUSE = {
  windowMs: 7 * 86_400_000,
  minFailures: 20,
  quietMs: 86_400_000,
} as const;

// 4xx answers that say "not now" rather than "never": they keep the full schedule.
const RETRYABLE_4XX = new Set([408, 425, 429]);
const MAX_ATTEMPTS_ON_REJECTION = 3;

/** The endpoint refused the delivery for good: a 4xx other than 408, 425, 429, at the third attempt. */
export const refused = (status: number | null, attempt: number) =>
  status !== null &&
  status >= 400 &&
  status < 500 &&
  !RETRYABLE_4XX.has(status) &&
  attempt >= MAX_ATTEMPTS_ON_REJECTION;

export const answered2xx = (status: number | null) => status !== null && status >= 200 && status < 300;

// Why a delivery ended other than by its endpoint's answers (webhooksRepository.abandonOpen/abandonOne):
// its workflow reports it `abandoned` (the DeliveryStatus search attribute).
export const ABANDONED = {
  paused: 'the webhook was paused automatically',
  disabled: 'the webhook was disabled',
  deleted: 'the webhook was deleted',
} as const;

/** The headers of one attempt, signed with the delivery's secret at the wall clock's time. */
export function signedHeaders(
  row: { id: string; event: string; body: string; secret: string; format: WebhookFormat },
  secretBox: SecretBox,
): Record<string, string> {
  // The signature's time is the wall clock's: receivers compare it with theirs (5 minutes).
  const unixSeconds = Math.floor(Date.now() / 1000);
  if (row.format === 'smsgate') {
    return {
      'Content-Type': 'application/json',
      'User-Agent': 'phone-gateway-webhooks/1',
      'X-Service-Delivery': row.id,
      ...smsgateSignature(secretBox.open(row.secret), row.body, unixSeconds),
    };
  }
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'phone-gateway-webhooks/1',
    'X-Service-Event': row.event,
    'X-Service-Delivery': row.id,
    'X-Service-Signature': signatureHeader(secretBox.open(row.secret), row.body, unixSeconds),
  };
}

/**
 * Pauses the webhook when the rule holds, and ends its other open deliveries; returns whether it
 * did. Runs with the webhook row locked. `recording` are the deliveries whose attempts are being
 * recorded: they end with their own record.
 */
export async function pauseIfFailing(
  tx: EntityManager,
  logger: Logger,
  webhookId: string,
  recording: string[],
  now: Date,
): Promise<boolean> {
  const counts = await attemptsRepository.countsOf(
    tx,
    webhookId,
    new Date(now.getTime() - AUTO_PAUSE.windowMs),
    new Date(now.getTime() - AUTO_PAUSE.quietMs),
  );
  const failing = counts.failed >= AUTO_PAUSE.minFailures && counts.failed * 2 >= counts.total && counts.recentOk === 0;
  if (!failing) return false;
  const reason =
    `Paused automatically: ${counts.failed} of ${counts.total} attempts failed in the last 7 days ` +
    'and none succeeded in the last 24 hours.';
  await attemptsRepository.pauseWebhook(tx, webhookId, reason, now);
  await webhooksRepository.abandonOpen(tx, webhookId, ABANDONED.paused, now, recording);
  logger.warn({ webhook_id: webhookId, failed: counts.failed, total: counts.total }, 'webhook paused');
  return true;
}
