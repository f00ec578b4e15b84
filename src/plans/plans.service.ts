import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, planLimit } from '../http/errors';
import type { Clock } from '../lib/clock';
import { Plan } from './plan.entity';

export interface Usage {
  sentToday: number;
  sentThisMonth: number;
  receivedToday: number;
  receivedThisMonth: number;
}

/** UTC calendar day and first day of its month, as SQL dates. */
function utcDays(now: Date): { today: string; monthStart: string } {
  const today = now.toISOString().slice(0, 10);
  return { today, monthStart: `${today.slice(0, 8)}01` };
}

export interface PlansDeps {
  em: () => EntityManager;
  clock: Clock;
}

export function createPlansService({ em, clock }: PlansDeps) {
  async function planOf(userId: string): Promise<Plan> {
    const rows = await em().execute<{ plan_id: string }[]>('select plan_id from users where id = ?', [userId]);
    if (rows.length === 0) throw notFound('account');
    return em().findOneOrFail(Plan, { id: rows[0].plan_id });
  }

  async function usage(userId: string, at = clock.now()): Promise<Usage> {
    const { today, monthStart } = utcDays(at);
    const [row] = await em().execute<
      { sent_today: number; sent_month: number; received_today: number; received_month: number }[]
    >(
      `select coalesce(sum(sent) filter (where day = ?), 0)::int as sent_today,
                coalesce(sum(sent), 0)::int as sent_month,
                coalesce(sum(received) filter (where day = ?), 0)::int as received_today,
                coalesce(sum(received), 0)::int as received_month
           from usage_days where user_id = ? and day >= ? and day <= ?`,
      [today, today, userId, monthStart, today],
    );
    return {
      sentToday: row.sent_today,
      sentThisMonth: row.sent_month,
      receivedToday: row.received_today,
      receivedThisMonth: row.received_month,
    };
  }

  /** Locks the account's row until the surrounding transaction ends: plan checks serialise per account. */
  async function lockAccount(tx: EntityManager, userId: string): Promise<void> {
    await tx.execute('select 1 from users where id = ? for update', [userId]);
  }

  return {
    planOf,
    usage,
    lockAccount,

    /** Public catalogue: active plans, cheapest first. */
    list: () => em().find(Plan, { active: true }, { orderBy: { sortOrder: 'asc' } }),

    /**
     * Admits `count` outbound messages against the batch, daily and monthly limits and counts them,
     * atomically: must run inside the transaction that writes the messages (`tx`). Concurrent sends of
     * one account queue on its row, so 50 parallel sends against an allowance of 50 admit exactly 50.
     */
    async admitSends(tx: EntityManager, userId: string, count: number): Promise<void> {
      const plan = await planOf(userId);
      if (count > plan.batchLimit) {
        throw planLimit(
          'plan_limit_batch',
          `A send may have at most ${plan.batchLimit} recipients on the ${plan.name} plan.`,
        );
      }
      await lockAccount(tx, userId);
      const now = clock.now();
      const { today, monthStart } = utcDays(now);
      const [row] = await tx.execute<{ today: number; month: number }[]>(
        `select coalesce(sum(sent) filter (where day = ?), 0)::int as today, coalesce(sum(sent), 0)::int as month
             from usage_days where user_id = ? and day >= ? and day <= ?`,
        [today, userId, monthStart, today],
      );
      if (row.today + count > plan.dailyLimit) {
        throw planLimit('plan_limit_daily', `The daily limit of ${plan.dailyLimit} messages is reached.`);
      }
      if (row.month + count > plan.monthlyLimit) {
        throw planLimit('plan_limit_monthly', `The monthly limit of ${plan.monthlyLimit} messages is reached.`);
      }
      await tx.execute(
        `insert into usage_days (user_id, day, sent) values (?, ?, ?)
             on conflict (user_id, day) do update set sent = usage_days.sent + excluded.sent`,
        [userId, today, count],
        'run',
      );
    },

    /** Counts inbound texts (no limit applies to receiving). */
    async countReceived(tx: EntityManager, userId: string, count = 1): Promise<void> {
      const { today } = utcDays(clock.now());
      await tx.execute(
        `insert into usage_days (user_id, day, received) values (?, ?, ?)
             on conflict (user_id, day) do update set received = usage_days.received + excluded.received`,
        [userId, today, count],
        'run',
      );
    },

    /**
     * Checks a count-based limit (devices, webhooks) under the account lock; `current` counts the
     * existing rows inside the same transaction.
     */
    async admitOneMore(
      tx: EntityManager,
      userId: string,
      kind: 'devices' | 'webhooks',
      current: () => Promise<number>,
    ): Promise<void> {
      const plan = await planOf(userId);
      await lockAccount(tx, userId);
      const limit = kind === 'devices' ? plan.deviceLimit : plan.webhookLimit;
      if ((await current()) >= limit) {
        throw planLimit(
          kind === 'devices' ? 'plan_limit_devices' : 'plan_limit_webhooks',
          `The ${plan.name} plan allows ${limit} ${kind === 'devices' ? 'paired devices' : 'webhooks'}.`,
        );
      }
    },
  };
}

export type PlansService = ReturnType<typeof createPlansService>;
