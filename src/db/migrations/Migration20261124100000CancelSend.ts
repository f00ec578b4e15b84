import { Migration } from '@mikro-orm/migrations';

export class Migration20261124100000CancelSend extends Migration {
  override async up(): Promise<void> {
    // POST /v1/batches/{id}/cancel: when a send was cancelled (its messages not yet dispatched then
    // failed with error_code `cancelled`; dispatched ones may still be reported).
    this.addSql('alter table batches add column cancelled_at timestamptz null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table batches drop column if exists cancelled_at;');
  }
}
