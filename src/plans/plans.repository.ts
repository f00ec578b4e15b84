import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql, type Sql } from '../db/sql';
import { Plan } from './plan.entity';

// The SQL of plans and account_usage. Counts are per UTC day and month; a row whose day or month is
// past counts as zero for the current one, so a new day needs no reset job.

export interface PlanLimits {
  name: string;
  batchLimit: number;
  dailyLimit: number;
  monthlyLimit: number;
  deviceLimit: number;
  webhookLimit: number;
}

/** An account's sends and inbound texts counted today and this month (UTC). */
export interface Usage {
  sentToday: number;
  sentThisMonth: number;
  receivedToday: number;
  receivedThisMonth: number;
}

/** A count of the current day or month: zero when the row's period is past. */
const current = (column: 'sent' | 'received', period: 'day' | 'month') =>
  period === 'day'
    ? sql`case when a.day = excluded.day then a.${sql.identifier(`${column}_day`)} else 0 end`
    : sql`case when a.month = excluded.month then a.${sql.identifier(`${column}_month`)} else 0 end`;

const limitOf = (userId: string, column: 'daily_limit' | 'monthly_limit') =>
  sql`(select p.${sql.identifier(column)} from users u join plans p on p.id = u.plan_id where u.id = ${userId})`;

export const plansRepository = {
  /** The plan; fails (NotFoundError) when there is none. */
  plan: (em: EntityManager, id: string) => em.findOneOrFail(Plan, { id }),

  /** The active plans, in the catalogue's order. */
  activePlans: (em: EntityManager) => em.find(Plan, { active: true }, { orderBy: { sortOrder: 'asc' } }),

  /** The account's plan id; undefined for an unknown account. */
  async planIdOf(em: EntityManager, userId: string): Promise<string | undefined> {
    const [row] = await query<{ planId: string }>(em, sql`select plan_id from users where id = ${userId}`);
    return row?.planId;
  },

  async limitsOf(em: EntityManager, userId: string): Promise<PlanLimits | undefined> {
    const [row] = await query<PlanLimits>(
      em,
      sql`select p.name, p.batch_limit, p.daily_limit, p.monthly_limit, p.device_limit, p.webhook_limit
            from users u join plans p on p.id = u.plan_id where u.id = ${userId}`,
    );
    return row;
  },

  async usage(em: EntityManager, userId: string, day: string, month: string): Promise<Usage> {
    const [row] = await query<Usage>(
      em,
      sql`select case when day = ${day}::date then sent_day else 0 end as sent_today,
                 case when month = ${month}::date then sent_month else 0 end as sent_this_month,
                 case when day = ${day}::date then received_day else 0 end as received_today,
                 case when month = ${month}::date then received_month else 0 end as received_this_month
            from account_usage where user_id = ${userId}`,
    );
    return row ?? { sentToday: 0, sentThisMonth: 0, receivedToday: 0, receivedThisMonth: 0 };
  },

  /**
   * Counts `count` sends if the plan's batch, daily and monthly limits allow them, in one statement.
   * The limits are checked on the account's locked row (ON CONFLICT ... WHERE sees the latest
   * committed counts), so racing sends are admitted exactly up to the allowance. False: refused,
   * nothing written.
   */
  async admitSends(tx: EntityManager, userId: string, count: number, day: string, month: string): Promise<boolean> {
    const rows = await query(tx, plansRepository.admission(userId, count, day, month));
    return rows.length === 1;
  },

  /**
   * admitSends' statement, to run on its own or as a step of a larger one: it returns one row when
   * the sends are admitted, none when refused (then it writes nothing). `guard` is one more
   * condition the admission needs.
   */
  admission(userId: string, count: number, day: string, month: string, guard?: Sql): Sql {
    return sql`insert into account_usage as a (user_id, day, sent_day, received_day, month, sent_month, received_month)
       select u.id, ${day}::date, ${count}::int, 0, ${month}::date, ${count}::int, 0
         from users u join plans p on p.id = u.plan_id
        where u.id = ${userId} and ${count}::int <= p.batch_limit and ${count}::int <= p.daily_limit
          and ${count}::int <= p.monthly_limit${guard ? sql` and ${guard}` : sql.empty}
       on conflict (user_id) do update set
              sent_day = ${current('sent', 'day')} + excluded.sent_day,
              received_day = ${current('received', 'day')},
              day = excluded.day,
              sent_month = ${current('sent', 'month')} + excluded.sent_month,
              received_month = ${current('received', 'month')},
              month = excluded.month
        where ${current('sent', 'day')} + excluded.sent_day <= ${limitOf(userId, 'daily_limit')}
          and ${current('sent', 'month')} + excluded.sent_month <= ${limitOf(userId, 'monthly_limit')}
       returning 1`;
  },

  /**
   * Gives back `count` sends counted on `day` (and its `month`): cancelled messages do not count.
   * Only the period they were counted in is still on the row if it is the current one; a past day
   * or month has nothing left to give back to.
   */
  async refundSends(tx: EntityManager, userId: string, count: number, day: string, month: string): Promise<void> {
    await query(
      tx,
      sql`update account_usage
             set sent_day = case when day = ${day}::date then greatest(sent_day - ${count}::int, 0) else sent_day end,
                 sent_month = case when month = ${month}::date then greatest(sent_month - ${count}::int, 0) else sent_month end
           where user_id = ${userId}`,
    );
  },

  /** Counts inbound texts (receiving has no limit). */
  async countReceived(tx: EntityManager, userId: string, count: number, day: string, month: string): Promise<void> {
    await query(
      tx,
      sql`insert into account_usage as a (user_id, day, sent_day, received_day, month, sent_month, received_month)
          values (${userId}, ${day}::date, 0, ${count}::int, ${month}::date, 0, ${count}::int)
          on conflict (user_id) do update set
                 received_day = ${current('received', 'day')} + excluded.received_day,
                 sent_day = ${current('sent', 'day')},
                 day = excluded.day,
                 received_month = ${current('received', 'month')} + excluded.received_month,
                 sent_month = ${current('sent', 'month')},
                 month = excluded.month`,
    );
  },

  /** Sets an account's counts for a day and its month (tests and operators' corrections). */
  async setUsage(em: EntityManager, userId: string, day: string, month: string, counts: Usage): Promise<void> {
    await query(
      em,
      sql`insert into account_usage (user_id, day, sent_day, received_day, month, sent_month, received_month)
          values (${userId}, ${day}::date, ${counts.sentToday}::int, ${counts.receivedToday}::int, ${month}::date,
                  ${counts.sentThisMonth}::int, ${counts.receivedThisMonth}::int)
          on conflict (user_id) do update set day = excluded.day, sent_day = excluded.sent_day,
                 received_day = excluded.received_day, month = excluded.month, sent_month = excluded.sent_month,
                 received_month = excluded.received_month`,
    );
  },

  /** Locks the account's row until the transaction ends: count-based plan checks serialise per account. */
  async lockAccount(tx: EntityManager, userId: string): Promise<void> {
    await query(tx, sql`select 1 from users where id = ${userId} for update`);
  },
};
