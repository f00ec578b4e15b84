import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryAttemptInput, DeliveryAttemptOutcome } from '../../workflows/definitions';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import { postOnce, type PostOptions, type PostResult } from './outbound';
import { signatureHeader } from './signature';
import { webhooksRepository } from './webhooks.repository';
import type { SecretBox } from '../lib/secret-box';

/** The auto-pause rule, counted over attempts. */
export const AUTO_PAUSE = {
  windowMs: 7 * 86_400_000,
  minFailures: 20,
  quietMs: 86_400_000,
} as const;

// 4xx answers that say "not now" rather than "never": they keep the full schedule.
const RETRYABLE_4XX = new Set([408, 425, 429]);
const MAX_ATTEMPTS_ON_REJECTION = 3;

export interface AttemptsDeps {
  /** A fresh EntityManager per call (activities never share one). */
  em: () => EntityManager;
  /** Timestamps of the record (tests follow the Temporal test server's time with it). */
  clock: Clock;
  logger: Logger;
  allowPrivateNetworks: boolean;
  /** Opens signing secrets sealed at rest (SECRETS_KEY). */
  secretBox: SecretBox;
  /** 30 s by the interface; shorter in tests of the timeout itself. */
  timeoutMs?: number;
  post?: (options: PostOptions) => Promise<PostResult>;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  status: string;
  attempt_count: number;
  event: string;
  body: string;
  url: string;
  enabled: boolean;
  deleted_at: Date | null;
  secret: string | null;
}

const outcomeOf = (status: string): DeliveryAttemptOutcome =>
  status === 'delivered' ? 'delivered' : status === 'retrying' ? 'retry' : 'stopped';

/**
 * One attempt of one delivery, then its record: the attempt row, the delivery's status and
 * counters, the webhook's counters, and the auto-pause rule after a failure. Idempotent per
 * (delivery, attempt number): an activity retried after the record committed sends nothing again.
 */
export function createAttemptsService(deps: AttemptsDeps) {
  const post = deps.post ?? postOnce;
  const timeoutMs = deps.timeoutMs ?? 30_000;

  /** Pauses the webhook when the rule holds; returns whether it did. Runs with the webhook row locked. */
  async function pauseIfFailing(tx: EntityManager, webhookId: string, deliveryId: string, now: Date) {
    const [counts] = await tx.execute<{ failed: number; total: number; recent_ok: number }[]>(
      `select count(*) filter (where not ok)::int as failed, count(*)::int as total,
              count(*) filter (where ok and started_at > ?)::int as recent_ok
         from webhook_attempts where webhook_id = ? and started_at > ?`,
      [new Date(now.getTime() - AUTO_PAUSE.quietMs), webhookId, new Date(now.getTime() - AUTO_PAUSE.windowMs)],
    );
    const failing =
      counts.failed >= AUTO_PAUSE.minFailures && counts.failed * 2 >= counts.total && counts.recent_ok === 0;
    if (!failing) return false;
    const reason =
      `Paused automatically: ${counts.failed} of ${counts.total} attempts failed in the last 7 days ` +
      'and none succeeded in the last 24 hours.';
    await tx.execute(
      'update webhooks set enabled = false, disabled_reason = ?, updated_at = ? where id = ? and enabled',
      [reason, now, webhookId],
    );
    // The delivery being recorded ends with its own attempt's record.
    await webhooksRepository.abandonOpen(tx, webhookId, 'the webhook was paused automatically', now, deliveryId);
    deps.logger.warn({ webhook_id: webhookId, failed: counts.failed, total: counts.total }, 'webhook paused');
    return true;
  }

  async function record(
    input: DeliveryAttemptInput,
    row: DeliveryRow,
    startedAt: Date,
    result: PostResult,
  ): Promise<DeliveryAttemptOutcome> {
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    return deps.em().transactional(async (tx) => {
      // Serialises the records of one webhook's attempts with its pause, disable and delete.
      const [webhook] = await tx.execute<{ enabled: boolean; deleted_at: Date | null }[]>(
        'select enabled, deleted_at from webhooks where id = ? for update',
        [row.webhook_id],
      );
      const inserted = await tx.execute<{ id: string }[]>(
        `insert into webhook_attempts
           (id, delivery_id, webhook_id, attempt_number, url, ok, http_status, response_excerpt, error, started_at, duration_ms)
         values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (delivery_id, attempt_number) do nothing returning id`,
        [
          row.id,
          row.webhook_id,
          input.attempt,
          row.url,
          ok,
          result.status,
          result.excerpt,
          result.error,
          startedAt,
          result.durationMs,
        ],
      );
      if (inserted.length === 0) {
        // Another execution of this very attempt recorded it first: its outcome stands.
        const [current] = await tx.execute<{ status: string }[]>('select status from webhook_deliveries where id = ?', [
          row.id,
        ]);
        return outcomeOf(current?.status ?? 'failed');
      }

      const now = deps.clock.now();
      await tx.execute(
        `update webhooks set last_attempt_at = ?,
                success_count = success_count + ?, failure_count = failure_count + ?,
                last_success_at = case when ? then ? else last_success_at end,
                last_failure_at = case when ? then last_failure_at else ? end
          where id = ?`,
        [startedAt, ok ? 1 : 0, ok ? 0 : 1, ok, startedAt, ok, startedAt, row.webhook_id],
      );

      let status: 'delivered' | 'retrying' | 'failed';
      let error = result.error;
      if (ok) status = 'delivered';
      else {
        const live = webhook && !webhook.deleted_at && (webhook.enabled || row.event === 'ping');
        const paused =
          webhook?.enabled && !webhook.deleted_at ? await pauseIfFailing(tx, row.webhook_id, row.id, now) : false;
        const rejected =
          result.status !== null &&
          result.status >= 400 &&
          result.status < 500 &&
          !RETRYABLE_4XX.has(result.status) &&
          input.attempt >= MAX_ATTEMPTS_ON_REJECTION;
        status = live && !paused && !rejected && input.nextAttemptAtMs !== null ? 'retrying' : 'failed';
        if (paused) error ??= 'the webhook was paused automatically';
      }

      // Guarded: only the expected next attempt of a delivery still open moves it (a success
      // also closes one that a pause or delete abandoned while the request was in flight).
      await tx.execute(
        `update webhook_deliveries
            set status = ?, attempt_count = ?, url = ?, http_status = ?, response_excerpt = ?, error = ?,
                last_attempt_at = ?, next_attempt_at = ?, delivered_at = ?, abandoned_at = ?
          where id = ? and attempt_count = ?
            and (status in ('pending', 'retrying') or (? and status = 'failed'))`,
        [
          status,
          input.attempt,
          row.url,
          result.status,
          result.excerpt,
          error,
          startedAt,
          status === 'retrying' ? new Date(input.nextAttemptAtMs!) : null,
          status === 'delivered' ? now : null,
          status === 'failed' ? now : null,
          row.id,
          input.attempt - 1,
          ok,
        ],
      );
      const [current] = await tx.execute<{ status: string }[]>('select status from webhook_deliveries where id = ?', [
        row.id,
      ]);
      return outcomeOf(current?.status ?? 'failed');
    });
  }

  return {
    async attempt(input: DeliveryAttemptInput, signal?: AbortSignal): Promise<DeliveryAttemptOutcome> {
      const em = deps.em();
      const [row] = await em.execute<DeliveryRow[]>(
        `select d.id, d.webhook_id, d.status, d.attempt_count, d.event, d.body, w.url, w.enabled, w.deleted_at, s.secret
           from webhook_deliveries d
           join webhooks w on w.id = d.webhook_id
           left join webhook_secrets s on s.webhook_id = d.webhook_id and s.version = d.secret_version
          where d.id = ?`,
        [input.deliveryId],
      );
      if (!row) return 'stopped';
      if (row.status === 'delivered' || row.status === 'failed') return outcomeOf(row.status);
      // Recorded already (the activity is retried after its record committed): nothing is sent twice.
      if (row.attempt_count >= input.attempt) return outcomeOf(row.status);

      const now = deps.clock.now();
      if (row.deleted_at || (!row.enabled && row.event !== 'ping') || !row.secret) {
        const reason = row.deleted_at
          ? 'the webhook was deleted'
          : row.secret
            ? 'the webhook was disabled'
            : 'the signing secret is missing';
        await webhooksRepository.abandonOne(em, row.id, reason, now);
        return 'stopped';
      }

      const startedAt = now;
      // The signature's time is the wall clock's: receivers compare it with theirs (5 minutes).
      const unixSeconds = Math.floor(Date.now() / 1000);
      const result = await post({
        url: row.url,
        body: row.body,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'phone-gateway-webhooks/1',
          'X-Service-Event': row.event,
          'X-Service-Delivery': row.id,
          'X-Service-Signature': signatureHeader(deps.secretBox.open(row.secret), row.body, unixSeconds),
        },
        timeoutMs,
        allowPrivateNetworks: deps.allowPrivateNetworks,
        signal,
      });
      if (signal?.aborted) throw signal.reason ?? new Error('attempt cancelled');
      const outcome = await record(input, row, startedAt, result);
      deps.logger.info(
        { delivery_id: row.id, attempt: input.attempt, http_status: result.status, outcome },
        'webhook attempt',
      );
      return outcome;
    },
  };
}

export type AttemptsService = ReturnType<typeof createAttemptsService>;
