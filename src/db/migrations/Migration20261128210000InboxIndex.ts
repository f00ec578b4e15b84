import { Migration } from '@mikro-orm/migrations';

export class Migration20261128210000InboxIndex extends Migration {
  override async up(): Promise<void> {
    // SMSGate's inbox list (compat/smsgate/inbox.repository.ts): an account's received texts, newest
    // received first, by offset. Without it the list sorts every message of the account.
    this.addSql(
      `create index messages_inbox_idx on messages (user_id, received_at desc, id desc) where direction = 'inbound';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists messages_inbox_idx;');
  }
}
