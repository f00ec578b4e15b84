import { Migration } from '@mikro-orm/migrations';

export class Migration20261124300000Failover extends Migration {
  override async up(): Promise<void> {
    // Account setting: when a phone goes offline, its messages not yet handed out move to another
    // online phone of the account (off by default: a send goes where it was sent).
    this.addSql('alter table users add column failover boolean not null default false;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table users drop column failover;');
  }
}
