import { Migration } from '@mikro-orm/migrations';

export class Migration20261129030000MmsAttachments extends Migration {
  override async up(): Promise<void> {
    // A received MMS is an inbound message with a row here (its subject); its attachments are rows of
    // their own, their bytes kept (data) within the account's quota and retention, else only listed.
    // Both go with their message (and so with their account).
    this.addSql(`
      create table mms_messages (
        message_id uuid primary key references messages (id) on delete cascade,
        user_id uuid not null,
        subject text null,
        created_at timestamptz not null
      );
    `);
    this.addSql(`
      create table mms_attachments (
        id uuid primary key,
        message_id uuid not null references mms_messages (message_id) on delete cascade,
        user_id uuid not null,
        part_id bigint not null,
        content_type text not null,
        name text null,
        size bigint not null,
        data bytea null,
        not_stored text null check (not_stored in ('over_quota', 'no_data', 'expired')),
        created_at timestamptz not null,
        unique (message_id, part_id),
        check ((data is null) = (not_stored is not null))
      );
    `);
    // The account's stored bytes (its quota) and the retention sweep read only rows that hold bytes.
    this.addSql(
      `create index mms_attachments_stored_idx on mms_attachments (user_id) include (size) where data is not null;`,
    );
    this.addSql(`create index mms_attachments_expiry_idx on mms_attachments (created_at) where data is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists mms_attachments;');
    this.addSql('drop table if exists mms_messages;');
  }
}
