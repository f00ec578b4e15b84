import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryAttemptInput, DeliveryAttemptOutcome } from '../../workflows/definitions';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import { statusClass, type Metrics } from '../metrics/metrics';
import { postOnce, type PostOptions, type PostResult } from './outbound';
import { attemptsRepository, type AttemptTarget } from './attempts.repository';
import { webhooksRepository } from './webhooks.repository';
import type { SecretBox } from '../lib/secret-box';
import { ABANDONED, answered2xx, outcomeOf, pauseIfFailing, refused, signedHeaders } from './attempt-rules';

export interface AttemptsDeps {
  /** A fresh EntityManager per call (activities never share one). */
  em: () => EntityManager;
  /** Timestamps of the record (tests follow the Temporal test server's time with it). */
  clock: Clock;
  logger: Logger;
  allowPrivateNetworks: boolean;
  /** Opens signing secrets sealed at rest (SECRETS_KEY). */
  secretBox: SecretBox;
  metrics: Metrics['webhooks'];
  /** 30 s by the interface; shorter in tests of the timeout itself. */
  timeoutMs?: number;
  post?: (options: PostOptions) => Promise<PostResult>;
}

/**
 * One attempt of one delivery (the workflow per delivery of rows from before the queues,
 * workflows/webhook-delivery.ts), then its record: the attempt row, the delivery's status and
 * counters, the webhook's counters, and the auto-pause rule after a failure. Idempotent per
 * (delivery, attempt number): an activity retried after the record committed sends nothing again.
 */
export function createAttemptsService(deps: AttemptsDeps) {
  const post = deps.post ?? postOnce;
  const timeoutMs = deps.timeoutMs ?? 30_000;

  async function record(
    input: DeliveryAttemptInput,
    row: AttemptTarget,
    startedAt: Date,
    result: PostResult,
  ): Promise<DeliveryAttemptOutcome> {
    const ok = answered2xx(result.status);
    return deps.em().transactional(async (tx) => {
      // Serialises the records of one webhook's attempts with its pause, disable and delete.
      const webhook = await attemptsRepository.lockWebhook(tx, row.webhookId);
      const inserted = await attemptsRepository.insert(tx, {
        deliveryId: row.id,
        webhookId: row.webhookId,
        attempt: input.attempt,
        url: row.url,
        ok,
        httpStatus: result.status,
        excerpt: result.excerpt,
        error: result.error,
        startedAt,
        durationMs: result.durationMs,
      });
      if (!inserted) {
        // Another execution of this very attempt recorded it first: its outcome stands.
        return outcomeOf(await attemptsRepository.deliveryState(tx, row.id));
      }

      const now = deps.clock.now();
      await attemptsRepository.countOnWebhook(tx, row.webhookId, ok, startedAt);

      let status: 'delivered' | 'retrying' | 'failed';
      let error = result.error;
      // Ended by its webhook (paused by this very failure, or disabled or deleted meanwhile).
      let endedByWebhook = false;
      if (ok) status = 'delivered';
      else {
        const live = webhook && !webhook.deletedAt && (webhook.enabled || row.event === 'ping');
        const paused =
          webhook?.enabled && !webhook.deletedAt
            ? await pauseIfFailing(tx, deps.logger, row.webhookId, [row.id], now)
            : false;
        const rejected = refused(result.status, input.attempt);
        status = live && !paused && !rejected && input.nextAttemptAtMs !== null ? 'retrying' : 'failed';
        endedByWebhook = !live || paused;
        if (paused) error ??= ABANDONED.paused;
      }

      await attemptsRepository.recordOnDelivery(tx, {
        deliveryId: row.id,
        status,
        attempt: input.attempt,
        url: row.url,
        httpStatus: result.status,
        excerpt: result.excerpt,
        error,
        lastAttemptAt: startedAt,
        nextAttemptAt: status === 'retrying' ? new Date(input.nextAttemptAtMs!) : null,
        deliveredAt: status === 'delivered' ? now : null,
        abandonedAt: status === 'failed' ? now : null,
        ok,
      });
      const final = await attemptsRepository.deliveryState(tx, row.id);
      return final?.status === 'failed' && endedByWebhook ? 'abandoned' : outcomeOf(final);
    });
  }

  return {
    async attempt(input: DeliveryAttemptInput, signal?: AbortSignal): Promise<DeliveryAttemptOutcome> {
      const em = deps.em();
      const row = await attemptsRepository.target(em, input.deliveryId);
      if (!row) return 'stopped';
      if (row.status === 'delivered' || row.status === 'failed') return outcomeOf(row);
      // Recorded already (the activity is retried after its record committed): nothing is sent twice.
      if (row.attemptCount >= input.attempt) return outcomeOf(row);

      const now = deps.clock.now();
      if (row.deletedAt || (!row.enabled && row.event !== 'ping') || !row.secret) {
        const reason = row.deletedAt
          ? ABANDONED.deleted
          : row.secret
            ? ABANDONED.disabled
            : 'the signing secret is missing';
        await webhooksRepository.abandonOne(em, row.id, reason, now);
        deps.metrics.attempts.inc({ outcome: 'stopped', response: 'not_sent' });
        return row.secret ? 'abandoned' : 'stopped';
      }

      const startedAt = now;
      const result = await post({
        url: row.url,
        body: row.body,
        headers: signedHeaders({ ...row, secret: row.secret }, deps.secretBox),
        timeoutMs,
        allowPrivateNetworks: deps.allowPrivateNetworks,
        signal,
      });
      if (signal?.aborted) throw signal.reason ?? new Error('attempt cancelled');
      const outcome = await record(input, row, startedAt, result);
      const response = result.status === null ? 'error' : statusClass(result.status);
      deps.metrics.attempts.inc({ outcome, response });
      deps.metrics.attemptDuration.observe({ response }, result.durationMs / 1000);
      deps.logger.info(
        { delivery_id: row.id, attempt: input.attempt, http_status: result.status, outcome },
        'webhook attempt',
      );
      return outcome;
    },
  };
}

export type AttemptsService = ReturnType<typeof createAttemptsService>;
