import { Migration } from '@mikro-orm/migrations';

export class Migration20261120040000Webhooks extends Migration {
  override async up(): Promise<void> {
    // Soft-deleted (deleted_at), so the delivery log keeps pointing at webhooks since deleted.
    this.addSql(`
      create table webhooks (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        url text not null,
        name text null,
        events text[] not null,
        enabled boolean not null default true,
        disabled_reason text null,
        secret_version int not null default 1,
        success_count bigint not null default 0,
        failure_count bigint not null default 0,
        last_attempt_at timestamptz null,
        last_success_at timestamptz null,
        last_failure_at timestamptz null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz null
      );`);
    this.addSql('create index webhooks_user_idx on webhooks (user_id, created_at) where deleted_at is null;');

    // Every secret a webhook has had: a delivery signs with the version current when it was queued.
    // Stored in the clear because it must sign (only the HMAC leaves the service).
    this.addSql(`
      create table webhook_secrets (
        webhook_id uuid not null references webhooks (id) on delete cascade,
        version int not null,
        secret text not null,
        created_at timestamptz not null,
        primary key (webhook_id, version)
      );`);

    // One row per event per subscribed endpoint; `body` holds the exact JSON bytes every attempt sends.
    this.addSql(`
      create table webhook_deliveries (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        webhook_id uuid not null references webhooks (id) on delete cascade,
        event_id uuid not null references events (id) on delete cascade,
        event text not null,
        url text not null,
        message_id uuid null,
        device_id uuid null,
        body text not null,
        secret_version int not null,
        status text not null check (status in ('pending', 'retrying', 'delivered', 'failed')),
        attempt_count int not null default 0,
        http_status int null,
        response_excerpt text null,
        error text null,
        created_at timestamptz not null,
        last_attempt_at timestamptz null,
        next_attempt_at timestamptz null,
        delivered_at timestamptz null,
        abandoned_at timestamptz null,
        workflow_started_at timestamptz null
      );`);
    // The delivery log: newest first per account, optionally per webhook.
    this.addSql('create index webhook_deliveries_user_idx on webhook_deliveries (user_id, created_at desc, id desc);');
    this.addSql(
      'create index webhook_deliveries_webhook_idx on webhook_deliveries (webhook_id, created_at desc, id desc);',
    );
    // Abandoning what is still open when a webhook is paused, disabled or deleted.
    this.addSql(
      "create index webhook_deliveries_open_idx on webhook_deliveries (webhook_id) where status in ('pending', 'retrying');",
    );
    // The reconciler's sweep: rows whose workflow a crash left unstarted.
    this.addSql(
      'create index webhook_deliveries_unstarted_idx on webhook_deliveries (created_at) where workflow_started_at is null;',
    );
    this.addSql('create index webhook_deliveries_event_idx on webhook_deliveries (event_id);');

    this.addSql(`
      create table webhook_attempts (
        id uuid primary key,
        delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
        webhook_id uuid not null references webhooks (id) on delete cascade,
        attempt_number int not null,
        url text not null,
        ok boolean not null,
        http_status int null,
        response_excerpt text null,
        error text null,
        started_at timestamptz not null,
        duration_ms int not null,
        unique (delivery_id, attempt_number)
      );`);
    // The auto-pause rule counts a webhook's attempts of the last 7 days.
    this.addSql('create index webhook_attempts_webhook_idx on webhook_attempts (webhook_id, started_at) include (ok);');
  }

  override async down(): Promise<void> {
    for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_secrets', 'webhooks']) {
      this.addSql(`drop table if exists ${table};`);
    }
  }
}
