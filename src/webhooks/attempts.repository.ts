import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';
import type { WebhookFormat } from './webhook.entity';

// The SQL of `webhook_attempts`, and what recording an attempt changes on its delivery and webhook.

/** A delivery with what an attempt needs: its webhook's state and the secret it is signed with. */
export interface AttemptTarget {
  id: string;
  webhookId: string;
  status: string;
  error: string | null;
  attemptCount: number;
  event: string;
  body: string;
  url: string;
  enabled: boolean;
  deletedAt: string | null;
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
    const [row] = await query<AttemptTarget>(
      em,
      sql`select d.id, d.webhook_id, d.status, d.error, d.attempt_count, d.event, d.body, w.url, w.enabled, w.deleted_at, s.secret, w.format
         from webhook_deliveries d
         join webhooks w on w.id = d.webhook_id
         left join webhook_secrets s on s.webhook_id = d.webhook_id and s.version = d.secret_version
        where d.id = ${deliveryId}`,
    );
    return row;
  },

  /** Locks the webhook: the records of its attempts queue with its pause, disable and delete. */
  async lockWebhook(tx: EntityManager, webhookId: string) {
    const [webhook] = await query<{ enabled: boolean; deletedAt: string | null }>(
      tx,
      sql`select enabled, deleted_at from webhooks where id = ${webhookId} for update`,
    );
    return webhook as { enabled: boolean; deletedAt: string | null } | undefined;
  },

  /** Inserts the attempt once per (delivery, attempt number); false when another execution did first. */
  async insert(tx: EntityManager, a: NewAttempt): Promise<boolean> {
    const inserted = await query<{ id: string }>(
      tx,
      sql`insert into webhook_attempts
            (id, delivery_id, webhook_id, attempt_number, url, ok, http_status, response_excerpt, error, started_at, duration_ms)
          values (gen_random_uuid(), ${a.deliveryId}, ${a.webhookId}, ${a.attempt}, ${a.url}, ${a.ok}, ${a.httpStatus},
                  ${a.excerpt}, ${a.error}, ${a.startedAt}, ${a.durationMs})
          on conflict (delivery_id, attempt_number) do nothing returning id`,
    );
    return inserted.length > 0;
  },

  async countOnWebhook(tx: EntityManager, webhookId: string, ok: boolean, at: Date): Promise<void> {
    await query(
      tx,
      sql`update webhooks set last_attempt_at = ${at},
                 success_count = success_count + ${ok ? 1 : 0}, failure_count = failure_count + ${ok ? 0 : 1},
                 last_success_at = case when ${ok}::boolean then ${at}::timestamptz else last_success_at end,
                 last_failure_at = case when ${ok}::boolean then last_failure_at else ${at}::timestamptz end
           where id = ${webhookId}`,
    );
  },

  /** Failed and total attempts of a webhook since `since`, and successes since `recentSince`. */
  async countsOf(tx: EntityManager, webhookId: string, since: Date, recentSince: Date) {
    const [counts] = await query<{ failed: number; total: number; recentOk: number }>(
      tx,
      sql`select count(*) filter (where not ok)::int as failed, count(*)::int as total,
                 count(*) filter (where ok and started_at > ${recentSince})::int as recent_ok
            from webhook_attempts where webhook_id = ${webhookId} and started_at > ${since}`,
    );
    return counts;
  },

  async pauseWebhook(tx: EntityManager, webhookId: string, reason: string, at: Date): Promise<void> {
    await query(
      tx,
      sql`update webhooks set enabled = false, disabled_reason = ${reason}, updated_at = ${at}
           where id = ${webhookId} and enabled`,
    );
  },

  /**
   * Guarded: only the expected next attempt of a delivery still open moves it (a success also
   * closes one that a pause or delete abandoned while the request was in flight).
   */
  async recordOnDelivery(tx: EntityManager, r: DeliveryRecord): Promise<void> {
    await query(
      tx,
      sql`update webhook_deliveries
             set status = ${r.status}, attempt_count = ${r.attempt}, url = ${r.url}, http_status = ${r.httpStatus},
                 response_excerpt = ${r.excerpt}, error = ${r.error}, last_attempt_at = ${r.lastAttemptAt},
                 next_attempt_at = ${r.nextAttemptAt}, delivered_at = ${r.deliveredAt}, abandoned_at = ${r.abandonedAt}
           where id = ${r.deliveryId} and attempt_count = ${r.attempt - 1}
             and (status in ('pending', 'retrying') or (${r.ok}::boolean and status = 'failed'))`,
    );
  },

  async deliveryState(tx: EntityManager, deliveryId: string) {
    const [row] = await query<{ status: string; error: string | null }>(
      tx,
      sql`select status, error from webhook_deliveries where id = ${deliveryId}`,
    );
    return row as { status: string; error: string | null } | undefined;
  },
};
