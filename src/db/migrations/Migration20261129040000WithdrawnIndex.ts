import { Migration } from '@mikro-orm/migrations';

export class Migration20261129040000WithdrawnIndex extends Migration {
  override async up(): Promise<void> {
    // A batch's cancelled and opted-out messages, counted each time a batch is read
    // (batches.repository.ts withdrawnOf): only those rows, never every message of a large send.
    this.addSql(
      `create index messages_withdrawn_idx on messages (batch_id, error_code)
        where status = 'failed' and error_code in ('cancelled', 'opted_out');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists messages_withdrawn_idx;');
  }
}
