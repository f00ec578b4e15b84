import { Migration } from '@mikro-orm/migrations';

export class Migration20261130040000SweepByBatch extends Migration {
  override async up(): Promise<void> {
    // A batch's open messages and their deadlines are read through the batch's own index: a sweep
    // runs at most every half minute per unsettled batch, while every queued row and every hand-out
    // wrote this index.
    this.addSql('drop index messages_stale_idx;');
  }

  override async down(): Promise<void> {
    this.addSql(
      `create index messages_stale_idx on messages (batch_id, stale_at) where status in ('queued', 'dispatched');`,
    );
  }
}
