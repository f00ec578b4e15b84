import { Migration } from '@mikro-orm/migrations';

export class Migration20261120020000Events extends Migration {
  override async up(): Promise<void> {
    // What happened, once per event; webhook deliveries fan out from here (one row per endpoint).
    this.addSql(`
      create table events (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        name text not null,
        data jsonb not null,
        message_id uuid null,
        device_id uuid null,
        created_at timestamptz not null
      );`);
    this.addSql('create index events_user_idx on events (user_id, created_at desc, id desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists events;');
  }
}
