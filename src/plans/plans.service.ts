import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, planLimit } from '../http/errors';
import type { Sql } from '../db/sql';
import type { Clock } from '../lib/clock';
import type { Plan } from './plan.entity';
import { plansRepository, type PlanLimits, type Usage } from './plans.repository';

export type { Usage };

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
    const planId = await plansRepository.planIdOf(em(), userId);
    if (planId === undefined) throw notFound('account');
    return plansRepository.plan(em(), planId);
  }

  async function usage(userId: string, at = clock.now()): Promise<Usage> {
    const { today, monthStart } = utcDays(at);
    return plansRepository.usage(em(), userId, today, monthStart);
  }

  const batchRefusal = (plan: PlanLimits) =>
    planLimit('plan_limit_batch', `A send may have at most ${plan.batchLimit} recipients on the ${plan.name} plan.`);

  /** Why a send of `count` was refused, in the interface's order: batch, then daily, then monthly. */
  async function refusal(userId: string, count: number): Promise<Error> {
    const plan = await plansRepository.limitsOf(em(), userId);
    if (!plan) return notFound('account');
    if (count > plan.batchLimit) return batchRefusal(plan);
    const used = await usage(userId);
    if (used.sentToday + count > plan.dailyLimit) {
      return planLimit('plan_limit_daily', `The daily limit of ${plan.dailyLimit} messages is reached.`);
    }
    return planLimit('plan_limit_monthly', `The monthly limit of ${plan.monthlyLimit} messages is reached.`);
  }

  return {
    planOf,
    usage,
    lockAccount: plansRepository.lockAccount,

    /** Public catalogue: active plans, cheapest first. */
    list: () => plansRepository.activePlans(em()),

    /**
     * Admits `count` outbound messages against the batch, daily and monthly limits and counts them,
     * in one statement inside the transaction that writes the messages (`tx`): 50 parallel sends
     * against an allowance of 50 admit exactly 50, and a refusal writes nothing.
     */
    async admitSends(tx: EntityManager, userId: string, count: number): Promise<void> {
      const { today, monthStart } = utcDays(clock.now());
      if (!(await plansRepository.admitSends(tx, userId, count, today, monthStart))) throw await refusal(userId, count);
    },

    /**
     * admitSends as a step of a larger statement (SQL with its values): one row when admitted, none
     * when refused. `refusal` then says why.
     */
    admission(userId: string, count: number, guard: Sql): Sql {
      const { today, monthStart } = utcDays(clock.now());
      return plansRepository.admission(userId, count, today, monthStart, guard);
    },
    refusal,

    /**
     * Gives back `count` sends admitted at `countedAt` (a cancelled send's messages), in the caller's
     * transaction: they no longer count against that day and its month.
     */
    async refundSends(tx: EntityManager, userId: string, count: number, countedAt: Date): Promise<void> {
      if (count <= 0) return;
      const { today, monthStart } = utcDays(countedAt);
      await plansRepository.refundSends(tx, userId, count, today, monthStart);
    },

    /** Counts inbound texts (no limit applies to receiving). */
    async countReceived(tx: EntityManager, userId: string, count = 1): Promise<void> {
      const { today, monthStart } = utcDays(clock.now());
      await plansRepository.countReceived(tx, userId, count, today, monthStart);
    },

    /** Sets an account's counts for the current day and month (tests, operators' corrections). */
    async setUsage(userId: string, counts: Usage): Promise<void> {
      const { today, monthStart } = utcDays(clock.now());
      await plansRepository.setUsage(em(), userId, today, monthStart, counts);
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
      await plansRepository.lockAccount(tx, userId);
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
