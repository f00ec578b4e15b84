import type { EntityManager } from '@mikro-orm/postgresql';
import { execute } from '../db/sql';
import type { WebhookFormat } from './webhook.entity';

// The SQL of `webhook_attempts`, and what recording an attempt changes on its delivery and webhook.

/** A delivery with what an attempt needs: its webhook's state and the secret it is signed with. */
export interface AttemptTarget {
  id: string;
  webhook_id: string;
  status: string;
  error: string | null;
  attempt_count: number;
  event: string;
  body: string;
  url: string;
  enabled: boolean;
  deleted_at: Date | null;
  secret: string | null;
  format: WebhookFormat;
}

export interface NewAttempt {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  url: string;
  ok: boolean;
  httpStatus: number | null;
  excerpt: string | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
}

/** What an attempt leaves on its delivery. */
export interface DeliveryRecord {
  deliveryId: string;
  status: 'delivered' | 'retrying' | 'failed';
  attempt: number;
  url: string;
  httpStatus: number | null;
  excerpt: string | null;
  error: string | null;
  lastAttemptAt: Date;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  abandonedAt: Date | null;
  ok: boolean;
}

export const attemptsRepository = {
  async target(em: EntityManager, deliveryId: string): Promise<AttemptTarget | undefined> {
    const [row] = await execute<AttemptTarget[]>(
      em,
      `select d.id, d.webhook_id, d.status, d.error, d.attempt_count, d.event, d.body, w.url, w.enabled, w.deleted_at, s.secret, w.format
         from webhook_deliveries d
         join webhooks w on w.id = d.webhook_id
         left join webhook_secrets s on s.webhook_id = d.webhook_id and s.version = d.secret_version
        where d.id = ?`,
      [deliveryId],
    );
    return row;
  },

  /** Locks the webhook: the records of its attempts queue with its pause, disable and delete. */
  async lockWebhook(tx: EntityManager, webhookId: string) {
    const [webhook] = await execute<{ enabled: boolean; deleted_at: Date | null }[]>(
      tx,
      'select enabled, deleted_at from webhooks where id = ? for update',
      [webhookId],
    );
    return webhook as { enabled: boolean; deleted_at: Date | null } | undefined;
  },

  /** Inserts the attempt once per (delivery, attempt number); false when another execution did first. */
  async insert(tx: EntityManager, a: NewAttempt): Promise<boolean> {
    const inserted = await execute<{ id: string }[]>(
      tx,
      `insert into webhook_attempts
         (id, delivery_id, webhook_id, attempt_number, url, ok, http_status, response_excerpt, error, started_at, duration_ms)
       values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (delivery_id, attempt_number) do nothing returning id`,
      [a.deliveryId, a.webhookId, a.attempt, a.url, a.ok, a.httpStatus, a.excerpt, a.error, a.startedAt, a.durationMs],
    );
    return inserted.length > 0;
  },

  async countOnWebhook(tx: EntityManager, webhookId: string, ok: boolean, at: Date): Promise<void> {
    await execute(
      tx,
      `update webhooks set last_attempt_at = ?,
              success_count = success_count + ?, failure_count = failure_count + ?,
              last_success_at = case when ? then ? else last_success_at end,
              last_failure_at = case when ? then last_failure_at else ? end
        where id = ?`,
      [at, ok ? 1 : 0, ok ? 0 : 1, ok, at, ok, at, webhookId],
    );
  },

  /** Failed and total attempts of a webhook since `since`, and successes since `recentSince`. */
  async countsOf(tx: EntityManager, webhookId: string, since: Date, recentSince: Date) {
    const [counts] = await execute<{ failed: number; total: number; recent_ok: number }[]>(
      tx,
      `select count(*) filter (where not ok)::int as failed, count(*)::int as total,
              count(*) filter (where ok and started_at > ?)::int as recent_ok
         from webhook_attempts where webhook_id = ? and started_at > ?`,
      [recentSince, webhookId, since],
    );
    return counts;
  },

  async pauseWebhook(tx: EntityManager, webhookId: string, reason: string, at: Date): Promise<void> {
    await execute(
      tx,
      'update webhooks set enabled = false, disabled_reason = ?, updated_at = ? where id = ? and enabled',
      [reason, at, webhookId],
    );
  },

  /**
   * Guarded: only the expected next attempt of a delivery still open moves it (a success also
   * closes one that a pause or delete abandoned while the request was in flight).
   */
  async recordOnDelivery(tx: EntityManager, r: DeliveryRecord): Promise<void> {
    await execute(
      tx,
      `update webhook_deliveries
          set status = ?, attempt_count = ?, url = ?, http_status = ?, response_excerpt = ?, error = ?,
              last_attempt_at = ?, next_attempt_at = ?, delivered_at = ?, abandoned_at = ?
        where id = ? and attempt_count = ?
          and (status in ('pending', 'retrying') or (? and status = 'failed'))`,
      [
        r.status,
        r.attempt,
        r.url,
        r.httpStatus,
        r.excerpt,
        r.error,
        r.lastAttemptAt,
        r.nextAttemptAt,
        r.deliveredAt,
        r.abandonedAt,
        r.deliveryId,
        r.attempt - 1,
        r.ok,
      ],
    );
  },

  async deliveryState(tx: EntityManager, deliveryId: string) {
    const [row] = await execute<{ status: string; error: string | null }[]>(
      tx,
      'select status, error from webhook_deliveries where id = ?',
      [deliveryId],
    );
    return row as { status: string; error: string | null } | undefined;
  },
};
