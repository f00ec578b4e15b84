import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';

// The SQL of the auto-pause rule: the webhook's attempts it counts, the webhook row it locks and pauses.

export const attemptsRepository = {
  /** Locks the webhook: the records of its attempts queue with its pause, disable and delete. */
  async lockWebhook(tx: EntityManager, webhookId: string) {
    const [webhook] = await query<{ enabled: boolean; deletedAt: string | null }>(
      tx,
      sql`select enabled, deleted_at from webhooks where id = ${webhookId} for update`,
    );
    return webhook as { enabled: boolean; deletedAt: string | null } | undefined;
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
};
