import { Migration } from '@mikro-orm/migrations';

export class Migration20261129050000Redeliveries extends Migration {
  override async up(): Promise<void> {
    // A manual redelivery names the delivery it repeats; one that succeeds while the original is
    // still open ends the original's retries and is named on it (superseded_by), so the receiver
    // gets the event once more, not again at each of the original's retries.
    this.addSql(
      `alter table webhook_deliveries
         add column redelivery_of uuid references webhook_deliveries (id) on delete set null,
         add column superseded_by uuid references webhook_deliveries (id) on delete set null;`,
    );
    // The queue holds an original while a redelivery of it waits (deliveryQueueRepository.due), and
    // the log lists each delivery's redeliveries: both look up by redelivery_of, set on few rows.
    this.addSql(
      `create index webhook_deliveries_redelivery_idx on webhook_deliveries (redelivery_of, status)
        where redelivery_of is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists webhook_deliveries_redelivery_idx;');
    this.addSql(
      'alter table webhook_deliveries drop column if exists superseded_by, drop column if exists redelivery_of;',
    );
  }
}
