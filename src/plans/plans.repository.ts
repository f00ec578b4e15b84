import type { EntityManager } from '@mikro-orm/postgresql';
import { execute, type SqlFragment } from '../db/sql';

// The SQL of plans and account_usage. Counts are per UTC day and month; a row whose day or month is
// past counts as zero for the current one, so a new day needs no reset job.

export interface PlanLimits {
  name: string;
  batch_limit: number;
  daily_limit: number;
  monthly_limit: number;
  device_limit: number;
  webhook_limit: number;
}

export interface UsageRow {
  sent_today: number;
  sent_month: number;
  received_today: number;
  received_month: number;
}

const current = (column: 'sent' | 'received', period: 'day' | 'month') =>
  `case when a.${period} = excluded.${period} then a.${column}_${period} else 0 end`;

export const plansRepository = {
  async limitsOf(em: EntityManager, userId: string): Promise<PlanLimits | undefined> {
    const [row] = await execute<PlanLimits[]>(
      em,
      `select p.name, p.batch_limit, p.daily_limit, p.monthly_limit, p.device_limit, p.webhook_limit
         from users u join plans p on p.id = u.plan_id where u.id = ?`,
      [userId],
    );
    return row;
  },

  async usage(em: EntityManager, userId: string, day: string, month: string): Promise<UsageRow> {
    const [row] = await execute<UsageRow[]>(
      em,
      `select case when day = ?::date then sent_day else 0 end as sent_today,
              case when month = ?::date then sent_month else 0 end as sent_month,
              case when day = ?::date then received_day else 0 end as received_today,
              case when month = ?::date then received_month else 0 end as received_month
         from account_usage where user_id = ?`,
      [day, month, day, month, userId],
    );
    return row ?? { sent_today: 0, sent_month: 0, received_today: 0, received_month: 0 };
  },

  /**
   * Counts `count` sends if the plan's batch, daily and monthly limits allow them, in one statement.
   * The limits are checked on the account's locked row (ON CONFLICT ... WHERE sees the latest
   * committed counts), so racing sends are admitted exactly up to the allowance. False: refused,
   * nothing written.
   */
  async admitSends(tx: EntityManager, userId: string, count: number, day: string, month: string): Promise<boolean> {
    const admission = plansRepository.admission(userId, count, day, month);
    const rows = await execute(tx, admission.sql, admission.params);
    return rows.length === 1;
  },

  /**
   * admitSends' statement, to run on its own or as a step of a larger one: it returns one row when
   * the sends are admitted, none when refused (then it writes nothing). `guard` is one more
   * condition the admission needs (SQL with its values).
   */
  admission(userId: string, count: number, day: string, month: string, guard?: SqlFragment): SqlFragment {
    const limit = (column: string) =>
      `(select p.${column} from users u join plans p on p.id = u.plan_id where u.id = ?)`;
    return {
      sql: `insert into account_usage as a (user_id, day, sent_day, received_day, month, sent_month, received_month)
       select u.id, ?::date, ?, 0, ?::date, ?, 0
         from users u join plans p on p.id = u.plan_id
        where u.id = ? and ? <= p.batch_limit and ? <= p.daily_limit and ? <= p.monthly_limit${guard ? ` and ${guard.sql}` : ''}
       on conflict (user_id) do update set
              sent_day = ${current('sent', 'day')} + excluded.sent_day,
              received_day = ${current('received', 'day')},
              day = excluded.day,
              sent_month = ${current('sent', 'month')} + excluded.sent_month,
              received_month = ${current('received', 'month')},
              month = excluded.month
        where ${current('sent', 'day')} + excluded.sent_day <= ${limit('daily_limit')}
          and ${current('sent', 'month')} + excluded.sent_month <= ${limit('monthly_limit')}
       returning 1`,
      params: [day, count, month, count, userId, count, count, count, ...(guard?.params ?? []), userId, userId],
    };
  },

  /**
   * Gives back `count` sends counted on `day` (and its `month`): cancelled messages do not count.
   * Only the period they were counted in is still on the row if it is the current one; a past day
   * or month has nothing left to give back to.
   */
  async refundSends(tx: EntityManager, userId: string, count: number, day: string, month: string): Promise<void> {
    await execute(
      tx,
      `update account_usage
          set sent_day = case when day = ?::date then greatest(sent_day - ?, 0) else sent_day end,
              sent_month = case when month = ?::date then greatest(sent_month - ?, 0) else sent_month end
        where user_id = ?`,
      [day, count, month, count, userId],
    );
  },

  /** Counts inbound texts (receiving has no limit). */
  async countReceived(tx: EntityManager, userId: string, count: number, day: string, month: string): Promise<void> {
    await execute(
      tx,
      `insert into account_usage as a (user_id, day, sent_day, received_day, month, sent_month, received_month)
       values (?, ?::date, 0, ?, ?::date, 0, ?)
       on conflict (user_id) do update set
              received_day = ${current('received', 'day')} + excluded.received_day,
              sent_day = ${current('sent', 'day')},
              day = excluded.day,
              received_month = ${current('received', 'month')} + excluded.received_month,
              sent_month = ${current('sent', 'month')},
              month = excluded.month`,
      [userId, day, count, month, count],
    );
  },

  /** Sets an account's counts for a day and its month (tests and operators' corrections). */
  async setUsage(em: EntityManager, userId: string, day: string, month: string, counts: UsageRow): Promise<void> {
    await execute(
      em,
      `insert into account_usage (user_id, day, sent_day, received_day, month, sent_month, received_month)
       values (?, ?::date, ?, ?, ?::date, ?, ?)
       on conflict (user_id) do update set day = excluded.day, sent_day = excluded.sent_day,
              received_day = excluded.received_day, month = excluded.month, sent_month = excluded.sent_month,
              received_month = excluded.received_month`,
      [userId, day, counts.sent_today, counts.received_today, month, counts.sent_month, counts.received_month],
    );
  },

  /** Locks the account's row until the transaction ends: count-based plan checks serialise per account. */
  async lockAccount(tx: EntityManager, userId: string): Promise<void> {
    await execute(tx, 'select 1 from users where id = ? for update', [userId]);
  },
};
