import { Migration } from '@mikro-orm/migrations';

export class Migration20261127000000LeasedIndex extends Migration {
  override async up(): Promise<void> {
    // A phone's handed-out messages not yet reported (its lease): whether it holds any is asked after
    // every report that returns some (drainedNotice) and by the phone channel (leases). The
    // outbox index holds the phone's whole queue, queued and dispatched alike, so proving that none
    // is dispatched read every queued row; this one holds only the few handed out.
    this.addSql(`create index messages_leased_idx on messages (device_id, stale_at) where status = 'dispatched';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists messages_leased_idx;');
  }
}
