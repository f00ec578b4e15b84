import { Migration } from '@mikro-orm/migrations';

export class Migration20261129070100BatchRetries extends Migration {
  override async up(): Promise<void> {
    // A send made of another's failed texts (POST /v1/batches/{id}/retry-failed) names it; a batch is
    // retried once, so two clicks (or two clients) cannot send its failed texts twice.
    this.addSql('alter table batches add column retry_of uuid null references batches (id) on delete set null;');
    this.addSql('create unique index batches_retry_of_idx on batches (retry_of) where retry_of is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists batches_retry_of_idx;');
    this.addSql('alter table batches drop column if exists retry_of;');
  }
}
