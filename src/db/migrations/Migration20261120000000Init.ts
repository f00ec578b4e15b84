import { Migration } from '@mikro-orm/migrations';

export class Migration20261120000000Init extends Migration {
  override async up(): Promise<void> {
    // Trigram search over message bodies and numbers (GET /v1/messages?q=) needs pg_trgm.
    this.addSql('create extension if not exists pg_trgm;');
  }

  override async down(): Promise<void> {
    this.addSql('drop extension if exists pg_trgm;');
  }
}
