import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency-Key (src/idempotency/): the first answer to each account's key, kept 24 hours. A row
 * is written in the same transaction as the request's work, so it exists exactly when the work
 * committed: a crash between the commit and the answer still replays. Requests in flight hold a
 * transaction-scoped advisory lock instead of a row, so a crash never leaves a key stuck.
 */
export class Migration20261124120000IdempotencyKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table idempotency_keys (
        user_id uuid not null references users (id) on delete cascade,
        key text not null,
        request_hash text not null,
        response_status int not null,
        response_body text not null,
        created_at timestamptz not null,
        primary key (user_id, key)
      );`);
    // The sweep removes expired keys oldest first.
    this.addSql('create index idempotency_keys_created_at_idx on idempotency_keys (created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists idempotency_keys;');
  }
}
