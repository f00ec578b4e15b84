import { Migration } from '@mikro-orm/migrations';

/**
 * Per-phone pacing and per-send priority and lifetime. Every new column's default keeps what was
 * there before exactly: no pace, no window, no jitter, every send normal priority without a ttl.
 */
export class Migration20261124200000Pacing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table devices
        add column send_delay_jitter_seconds int not null default 0
          check (send_delay_jitter_seconds between 0 and 3600),
        add column max_sends_per_minute int null check (max_sends_per_minute > 0),
        add column max_sends_per_hour int null check (max_sends_per_hour > 0),
        add column send_window jsonb null,
        add column queue_depth_high int not null default 0;`);
    this.addSql(`
      alter table batches
        add column priority text not null default 'normal' check (priority in ('normal', 'high')),
        add column ttl_seconds int null check (ttl_seconds > 0);`);
    this.addSql(`alter table messages add column priority smallint not null default 0;`);

    // The outbox: high priority first, then oldest first (it replaces the index without priority, so
    // a send writes as many index entries as before).
    this.addSql('drop index if exists messages_outbox_idx;');
    this.addSql(
      `create index messages_outbox_idx on messages (device_id, priority desc, available_at, created_at, position)
         where direction = 'outbound' and status in ('queued', 'dispatched');`,
    );
    // A paced phone's sends in the trailing minute and hour: a range of this index, never the queue.
    this.addSql(
      'create index messages_dispatched_idx on messages (device_id, dispatched_at) where dispatched_at is not null;',
    );

    // The phone is told when a setting it applies changes: now also its jitter and pace.
    this.addSql('drop trigger if exists devices_notify_device on devices;');
    this.addSql(`
      create trigger devices_notify_device after update on devices
        for each row when ((old.enabled, old.receive_enabled, old.heartbeat_interval_minutes, old.send_delay_seconds,
                            old.preferred_sim_subscription_id, old.unpaired_at, old.token_hash,
                            old.send_delay_jitter_seconds, old.max_sends_per_minute, old.max_sends_per_hour,
                            old.send_window)
                           is distinct from
                           (new.enabled, new.receive_enabled, new.heartbeat_interval_minutes, new.send_delay_seconds,
                            new.preferred_sim_subscription_id, new.unpaired_at, new.token_hash,
                            new.send_delay_jitter_seconds, new.max_sends_per_minute, new.max_sends_per_hour,
                            new.send_window))
        execute function notify_device_of_itself();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists devices_notify_device on devices;');
    this.addSql(`
      create trigger devices_notify_device after update on devices
        for each row when ((old.enabled, old.receive_enabled, old.heartbeat_interval_minutes, old.send_delay_seconds,
                            old.preferred_sim_subscription_id, old.unpaired_at, old.token_hash)
                           is distinct from
                           (new.enabled, new.receive_enabled, new.heartbeat_interval_minutes, new.send_delay_seconds,
                            new.preferred_sim_subscription_id, new.unpaired_at, new.token_hash))
        execute function notify_device_of_itself();`);
    this.addSql('drop index if exists messages_dispatched_idx;');
    this.addSql('drop index if exists messages_outbox_idx;');
    this.addSql(
      `create index messages_outbox_idx on messages (device_id, available_at, created_at, position)
         where direction = 'outbound' and status in ('queued', 'dispatched');`,
    );
    this.addSql('alter table messages drop column priority;');
    this.addSql('alter table batches drop column priority, drop column ttl_seconds;');
    this.addSql(`
      alter table devices
        drop column send_delay_jitter_seconds, drop column max_sends_per_minute, drop column max_sends_per_hour,
        drop column send_window, drop column queue_depth_high;`);
  }
}
