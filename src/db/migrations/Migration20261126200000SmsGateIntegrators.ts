import { Migration } from '@mikro-orm/migrations';

export class Migration20261126200000SmsGateIntegrators extends Migration {
  override async up(): Promise<void> {
    // How a webhook's deliveries are written and signed: ours (`service`), or the SMSGate app's
    // (`smsgate`: its event envelope, X-Signature and X-Timestamp), for webhooks registered through
    // the SMSGate integrator API (src/compat/smsgate).
    this.addSql("alter table webhooks add column format text not null default 'service';");
    this.addSql("alter table webhooks add constraint webhooks_format_check check (format in ('service', 'smsgate'));");
    // The ids SMSGate clients choose themselves (a message's `id`, a webhook's `id`), per account,
    // and the row of ours each one names.
    this.addSql(`
      create table smsgate_ids (
        user_id uuid not null references users (id) on delete cascade,
        kind text not null check (kind in ('message', 'webhook')),
        ext_id text not null,
        our_id uuid not null,
        created_at timestamptz not null,
        primary key (user_id, kind, ext_id)
      );`);
    this.addSql('create index smsgate_ids_our_id_idx on smsgate_ids (our_id);');
    // The key an account's SMSGate webhooks are signed with (SMSGate has one per account).
    this.addSql(`
      create table smsgate_accounts (
        user_id uuid primary key references users (id) on delete cascade,
        signing_key text not null,
        created_at timestamptz not null
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists smsgate_accounts;');
    this.addSql('drop table if exists smsgate_ids;');
    this.addSql('alter table webhooks drop column format;');
  }
}
