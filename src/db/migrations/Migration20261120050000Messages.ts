import { Migration } from '@mikro-orm/migrations';

export class Migration20261120050000Messages extends Migration {
  override async up(): Promise<void> {
    // Per-status counts are kept on the row (updated with each message transition), so listing
    // batches never aggregates over their messages.
    this.addSql(`
      create table batches (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        device_id uuid not null references devices (id),
        body text not null,
        status text not null check (status in ('scheduled', 'queued', 'sending', 'completed', 'failed')),
        recipient_count int not null,
        recipient_preview text not null,
        segments int not null,
        encoding text not null,
        sim_subscription_id int null,
        dispatched_count int not null default 0,
        sent_count int not null default 0,
        delivered_count int not null default 0,
        failed_count int not null default 0,
        unknown_count int not null default 0,
        scheduled_at timestamptz null,
        estimated_completion_at timestamptz null,
        completed_at timestamptz null,
        error text null,
        workflow_started_at timestamptz null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );`);
    this.addSql('create index batches_user_idx on batches (user_id, created_at desc, id desc);');
    this.addSql('create index batches_unstarted_idx on batches (created_at) where workflow_started_at is null;');

    this.addSql(`
      create table messages (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        batch_id uuid null references batches (id) on delete cascade,
        device_id uuid not null references devices (id),
        direction text not null check (direction in ('outbound', 'inbound')),
        status text not null check (status in ('queued', 'dispatched', 'sent', 'delivered', 'failed', 'unknown', 'received')),
        body text not null,
        recipient text null,
        sender text null,
        sim_subscription_id int null,
        segments int not null default 1,
        position int not null default 0,
        fingerprint text null,
        error_code text null,
        error_message text null,
        available_at timestamptz null,
        stale_at timestamptz null,
        dispatched_at timestamptz null,
        sent_at timestamptz null,
        delivered_at timestamptz null,
        failed_at timestamptz null,
        received_at timestamptz null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );`);
    // GET /v1/messages (newest or oldest first, per account), and the same within one device.
    this.addSql('create index messages_user_idx on messages (user_id, created_at desc, id desc);');
    this.addSql('create index messages_device_idx on messages (device_id, created_at desc, id desc);');
    // A batch's messages in recipient order.
    this.addSql('create index messages_batch_idx on messages (batch_id, position);');
    // The outbox: what a phone may send now, oldest first.
    this.addSql(
      `create index messages_outbox_idx on messages (device_id, available_at, created_at, position)
         where direction = 'outbound' and status in ('queued', 'dispatched');`,
    );
    // The batch workflow's sweep for lapsed messages.
    this.addSql(
      `create index messages_stale_idx on messages (batch_id, stale_at) where status in ('queued', 'dispatched');`,
    );
    // An inbound text is stored once per phone and fingerprint, however often the phone repeats it.
    this.addSql(
      'create unique index messages_inbound_fingerprint on messages (device_id, fingerprint) where fingerprint is not null;',
    );
    // q= matches text, recipient and sender: trigram search, never a sequential scan.
    this.addSql(
      `create index messages_search_idx on messages using gin
         ((body || ' ' || coalesce(recipient, '') || ' ' || coalesce(sender, '')) gin_trgm_ops);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists messages;');
    this.addSql('drop table if exists batches;');
  }
}
