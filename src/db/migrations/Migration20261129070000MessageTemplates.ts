import { Migration } from '@mikro-orm/migrations';

export class Migration20261129070000MessageTemplates extends Migration {
  override async up(): Promise<void> {
    // Saved message texts (src/templates/), one name once per account.
    this.addSql(`
      create table message_templates (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        name text not null,
        body text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );`);
    this.addSql('create unique index message_templates_name_idx on message_templates (user_id, name);');
    // GET /v1/templates, newest first.
    this.addSql('create index message_templates_user_idx on message_templates (user_id, created_at desc, id desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists message_templates;');
  }
}
