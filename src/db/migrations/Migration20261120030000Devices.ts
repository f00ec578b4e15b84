import { Migration } from '@mikro-orm/migrations';

export class Migration20261120030000Devices extends Migration {
  override async up(): Promise<void> {
    // Unpairing keeps the row (soft delete: unpaired_at) so the phone's messages keep their device.
    this.addSql(`
      create table devices (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        name text not null,
        hardware_key text not null,
        token_hash text null unique,
        enabled boolean not null default true,
        is_default boolean not null default false,
        online boolean not null default true,
        receive_enabled boolean not null default true,
        heartbeat_interval_minutes int not null default 15,
        send_delay_seconds int not null default 0,
        preferred_sim_subscription_id int null,
        sent_count int not null default 0,
        received_count int not null default 0,
        brand text null,
        manufacturer text null,
        model text null,
        build_id text null,
        os_version text null,
        os_api_level int null,
        app_version_code int null,
        app_version_name text null,
        push_token text null,
        push_token_invalid_reason text null,
        push_token_invalidated_at timestamptz null,
        sims jsonb not null default '[]',
        telemetry jsonb not null default '{}',
        last_heartbeat_at timestamptz null,
        last_signal_at timestamptz null,
        paired_at timestamptz not null,
        unpaired_at timestamptz null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );`);
    // One live device per handset and account: a repeat pairing finds it instead of adding another.
    this.addSql(
      'create unique index devices_user_hardware_live on devices (user_id, hardware_key) where unpaired_at is null;',
    );
    this.addSql(
      'create unique index devices_user_default on devices (user_id) where is_default and unpaired_at is null;',
    );
    this.addSql('create index devices_user_idx on devices (user_id, created_at desc) where unpaired_at is null;');

    // The code itself is never stored, only its SHA-256; it is single use and lives 10 minutes.
    this.addSql(`
      create table pairing_codes (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        code_hash text not null,
        expires_at timestamptz not null,
        consumed_at timestamptz null,
        device_id uuid null references devices (id) on delete set null,
        created_at timestamptz not null
      );`);
    this.addSql('create index pairing_codes_code_idx on pairing_codes (code_hash) where consumed_at is null;');
    this.addSql('create index pairing_codes_user_idx on pairing_codes (user_id, created_at desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists pairing_codes;');
    this.addSql('drop table if exists devices;');
  }
}
