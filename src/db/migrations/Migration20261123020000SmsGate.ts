import { Migration } from '@mikro-orm/migrations';

export class Migration20261123020000SmsGate extends Migration {
  override async up(): Promise<void> {
    // Phones paired through the SMSGate app's mobile API (src/compat/smsgate): the key their app signs
    // its webhook calls with. It survives re-registration of the same row, so a phone that has not yet
    // reloaded its settings still signs with a key we accept.
    this.addSql(`
      create table smsgate_devices (
        device_id uuid primary key references devices (id) on delete cascade,
        signing_key text not null,
        created_at timestamptz not null
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists smsgate_devices;');
  }
}
