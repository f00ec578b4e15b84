import { Migration } from '@mikro-orm/migrations';

export class Migration20261124110000OptOuts extends Migration {
  override async up(): Promise<void> {
    // The account's suppression list: numbers that texted an opt-out keyword (STOP, ...) or were added
    // through the API. A send skips them (their messages are created failed, `opted_out`). One row per
    // account and E.164 number; START / UNSTOP or DELETE removes it.
    this.addSql(`
      create table opt_outs (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        phone_number text not null,
        source text not null check (source in ('inbound', 'api')),
        message_id uuid null references messages (id) on delete set null,
        created_at timestamptz not null
      );`);
    // The send's lookup (account, numbers) and idempotent adds.
    this.addSql('create unique index opt_outs_number_idx on opt_outs (user_id, phone_number);');
    // GET /v1/opt-outs, newest first.
    this.addSql('create index opt_outs_user_idx on opt_outs (user_id, created_at desc, id desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists opt_outs;');
  }
}
