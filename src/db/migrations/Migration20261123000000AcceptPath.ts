import { Migration } from '@mikro-orm/migrations';

/**
 * A send is one short set-based transaction: plan admission is one guarded UPDATE of a single row
 * per account, and a phone's queue position comes from a counter kept per device, never a scan.
 */
export class Migration20261123000000AcceptPath extends Migration {
  override async up(): Promise<void> {
    // One row per account carries the current UTC day's and month's counts, so a send's admission
    // re-checks the limits on that locked row (exact under concurrency) in a single statement.
    this.addSql(`
      create table account_usage (
        user_id uuid primary key references users (id) on delete cascade,
        day date not null,
        sent_day int not null default 0,
        received_day int not null default 0,
        month date not null,
        sent_month int not null default 0,
        received_month int not null default 0
      );`);
    this.addSql(`
      insert into account_usage (user_id, day, sent_day, received_day, month, sent_month, received_month)
      select user_id, (now() at time zone 'utc')::date,
             coalesce(sum(sent) filter (where day = (now() at time zone 'utc')::date), 0),
             coalesce(sum(received) filter (where day = (now() at time zone 'utc')::date), 0),
             date_trunc('month', now() at time zone 'utc')::date,
             coalesce(sum(sent), 0), coalesce(sum(received), 0)
        from usage_days
       where day >= date_trunc('month', now() at time zone 'utc')::date
       group by user_id;`);
    this.addSql('drop table usage_days;');

    // Messages waiting on the phone (released, not yet final): kept by the statements that enqueue
    // and settle them, so a send reads its place in the queue instead of counting the queue.
    this.addSql('alter table devices add column queue_depth int not null default 0;');
    // A scheduled batch's messages have no place in the queue until it is released.
    this.addSql(`
      update messages m set available_at = null
        from batches b where b.id = m.batch_id and b.status = 'scheduled' and m.status = 'queued';`);
    this.addSql(`
      update devices d set queue_depth = q.n
        from (select device_id, count(*)::int as n from messages
               where direction = 'outbound' and status in ('queued', 'dispatched') and stale_at is not null
               group by device_id) q
       where q.device_id = d.id;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table devices drop column queue_depth;');
    this.addSql(`
      create table usage_days (
        user_id uuid not null references users (id) on delete cascade,
        day date not null,
        sent int not null default 0,
        received int not null default 0,
        primary key (user_id, day)
      );`);
    this.addSql(`
      insert into usage_days (user_id, day, sent, received)
      select user_id, day, sent_day, received_day from account_usage;`);
    this.addSql('drop table account_usage;');
  }
}
