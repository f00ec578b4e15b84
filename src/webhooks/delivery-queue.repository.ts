import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';
import type { WebhookFormat } from './webhook.entity';

// The SQL of a webhook's queue: its open deliveries in the order they fall due, and the
// record of a batch of attempts in a few set-based statements.

/** The webhook a queue pass works for. */
export interface DeliveryQueueWebhook {
  id: string;
  url: string;
  enabled: boolean;
  deletedAt: string | null;
}

/** An open delivery with what its attempt needs: the body and the secret it is signed with. */
export interface QueuedDelivery {
  id: string;
  status: 'pending' | 'retrying';
  attemptCount: number;
  event: string;
  body: string;
  /** When the attempt about to be made was due (null for the first one). */
  nextAttemptAt: string | null;
  secret: string | null;
  format: WebhookFormat;
  /** The trace that queued it (tracing on). */
  traceParent: string | null;
  /** A manual redelivery: the delivery it repeats. */
  redeliveryOf: string | null;
  /** A redelivery of a delivery still open: one attempt, the original keeps its own retries. */
  repeatsOpen: boolean;
}

/** One attempt (when it started, how long it took) and what it leaves on its delivery. */
export interface AttemptRecord {
  deliveryId: string;
  status: 'delivered' | 'retrying' | 'failed';
  attempt: number;
  url: string;
  ok: boolean;
  httpStatus: number | null;
  excerpt: string | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  abandonedAt: Date | null;
}

// Rows travel as one JSON parameter (json_to_recordset): a statement per batch, not per delivery.
const asJson = (records: AttemptRecord[]) =>
  JSON.stringify(
    records.map((r) => ({
      delivery_id: r.deliveryId,
      attempt: r.attempt,
      url: r.url,
      ok: r.ok,
      http_status: r.httpStatus,
      excerpt: r.excerpt,
      error: r.error,
      started_at: r.startedAt.toISOString(),
      duration_ms: r.durationMs,
      status: r.status,
      next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
      delivered_at: r.deliveredAt?.toISOString() ?? null,
      abandoned_at: r.abandonedAt?.toISOString() ?? null,
    })),
  );

const RECORD_COLUMNS = sql`delivery_id uuid, attempt int, url text, ok boolean, http_status int, excerpt text, error text,
  started_at timestamptz, duration_ms int, status text, next_attempt_at timestamptz, delivered_at timestamptz,
  abandoned_at timestamptz`;

export const deliveryQueueRepository = {
  async webhook(em: EntityManager, webhookId: string): Promise<DeliveryQueueWebhook | undefined> {
    const [row] = await query<DeliveryQueueWebhook>(
      em,
      sql`select id, url, enabled, deleted_at from webhooks where id = ${webhookId}`,
    );
    return row;
  },

  /**
   * The open deliveries due at `now`, oldest due first; a pending one is due whatever the clocks say.
   * One that a redelivery waits to repeat is held: the receiver gets the event once from the two,
   * and the original retries only if the redelivery fails.
   */
  due(em: EntityManager, webhookId: string, now: Date, limit: number): Promise<QueuedDelivery[]> {
    return query<QueuedDelivery>(
      em,
      sql`select d.id, d.status, d.attempt_count, d.event, d.body, d.next_attempt_at, s.secret, d.trace_parent, w.format,
              d.redelivery_of,
              (d.redelivery_of is not null and exists (
                select 1 from webhook_deliveries o where o.id = d.redelivery_of and o.status in ('pending', 'retrying')
              )) as repeats_open
         from webhook_deliveries d
         join webhooks w on w.id = d.webhook_id
         left join webhook_secrets s on s.webhook_id = d.webhook_id and s.version = d.secret_version
        where d.webhook_id = ${webhookId} and d.status in ('pending', 'retrying')
          and (d.status = 'pending' or d.next_attempt_at <= ${now})
          and not exists (
            select 1 from webhook_deliveries r where r.redelivery_of = d.id and r.status = 'pending'
          )
        order by coalesce(d.next_attempt_at, d.created_at), d.id
        limit ${limit}`,
    );
  },

  /** What is left open: deliveries waiting for their first attempt, and the next retry due. */
  async open(em: EntityManager, webhookId: string): Promise<{ pending: number; nextRetryAt: Date | null }> {
    const [row] = await query<{ pending: number; nextRetryAt: string | null }>(
      em,
      sql`select count(*) filter (where status = 'pending')::int as pending,
              min(next_attempt_at) filter (where status = 'retrying') as next_retry_at
         from webhook_deliveries
        where webhook_id = ${webhookId} and status in ('pending', 'retrying')`,
    );
    return { pending: row.pending, nextRetryAt: row.nextRetryAt ? new Date(row.nextRetryAt) : null };
  },

  /** Inserts the attempts once per (delivery, attempt number); returns the deliveries whose attempt it inserted. */
  async insertAttempts(tx: EntityManager, webhookId: string, records: AttemptRecord[]): Promise<Set<string>> {
    const inserted = await query<{ deliveryId: string }>(
      tx,
      sql`insert into webhook_attempts
            (id, delivery_id, webhook_id, attempt_number, url, ok, http_status, response_excerpt, error, started_at, duration_ms)
          select gen_random_uuid(), delivery_id, ${webhookId}::uuid, attempt, url, ok, http_status, excerpt, error,
                 started_at, duration_ms
            from json_to_recordset(${asJson(records)}::json) as x (${RECORD_COLUMNS})
          on conflict (delivery_id, attempt_number) do nothing returning delivery_id`,
    );
    return new Set(inserted.map((row) => row.deliveryId));
  },

  /** The webhook's counters and last times, for a batch of attempts at once. */
  async countOnWebhook(tx: EntityManager, webhookId: string, records: AttemptRecord[]): Promise<void> {
    const latest = (rs: AttemptRecord[]) =>
      rs.length ? new Date(Math.max(...rs.map((r) => r.startedAt.getTime()))) : null;
    const ok = records.filter((r) => r.ok);
    const failed = records.filter((r) => !r.ok);
    await query(
      tx,
      sql`update webhooks set last_attempt_at = greatest(last_attempt_at, ${latest(records)}),
                 success_count = success_count + ${ok.length}, failure_count = failure_count + ${failed.length},
                 last_success_at = greatest(last_success_at, ${latest(ok)}),
                 last_failure_at = greatest(last_failure_at, ${latest(failed)})
           where id = ${webhookId}`,
    );
  },

  /**
   * The originals still open of these redeliveries, which reached the receiver: delivered through
   * them, their own retries ended. A retried record finds them settled already.
   */
  async settleOriginals(tx: EntityManager, settled: Array<{ original: string; redelivery: string }>, at: Date) {
    if (settled.length === 0) return;
    await query(
      tx,
      sql`update webhook_deliveries d
          set status = 'delivered', superseded_by = x.redelivery, delivered_at = ${at}, next_attempt_at = null
         from json_to_recordset(${JSON.stringify(settled)}::json) as x (original uuid, redelivery uuid)
        where d.id = x.original and d.status in ('pending', 'retrying')`,
    );
  },

  /**
   * Guarded: only the expected next attempt of a delivery still open moves it, and a success also
   * closes one that a pause or delete abandoned while the request was in flight.
   */
  async recordOnDeliveries(tx: EntityManager, records: AttemptRecord[]): Promise<void> {
    await query(
      tx,
      sql`update webhook_deliveries d
          set status = x.status, attempt_count = x.attempt, url = x.url, http_status = x.http_status,
              response_excerpt = x.excerpt, error = x.error, last_attempt_at = x.started_at,
              next_attempt_at = x.next_attempt_at, delivered_at = x.delivered_at, abandoned_at = x.abandoned_at
         from json_to_recordset(${asJson(records)}::json) as x (${RECORD_COLUMNS})
        where d.id = x.delivery_id and d.attempt_count = x.attempt - 1
          and (d.status in ('pending', 'retrying') or (x.ok and d.status = 'failed'))`,
    );
  },
};
