import { Migration } from '@mikro-orm/migrations';

export class Migration20261129020000DataSms extends Migration {
  override async up(): Promise<void> {
    // A data SMS (binary, to an application port): its bytes are the base64 text in `body`, and
    // `data_port` says it is one. Null on every text.
    this.addSql(`alter table batches add column data_port integer null;`);
    this.addSql(`alter table messages add column data_port integer null;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table messages drop column if exists data_port;');
    this.addSql('alter table batches drop column if exists data_port;');
  }
}
