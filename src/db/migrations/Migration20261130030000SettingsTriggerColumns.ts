import { Migration } from '@mikro-orm/migrations';
import { NOTIFIED, trigger } from './Migration20261128200000SimRotation';

export class Migration20261130030000SettingsTriggerColumns extends Migration {
  override async up(): Promise<void> {
    // Named columns let an update that sets none of them (every send's and report's count of the
    // phone's queue) skip the trigger before its condition is built, which each statement did anew.
    this.addSql('drop trigger devices_notify_device on devices;');
    this.addSql(trigger(NOTIFIED, true));
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger devices_notify_device on devices;');
    this.addSql(trigger(NOTIFIED));
  }
}
