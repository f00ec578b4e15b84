import { Migration } from '@mikro-orm/migrations';

export class Migration20261128200000PhoneWebhooks extends Migration {
  override async up(): Promise<void> {
    // A webhook may be tied to one phone of its account (issue #38; SMSGate's webhooks.device_id):
    // it receives only the events that concern that phone. Null: every event of the account.
    // Unpairing keeps the row (a phone is never deleted but with its account), as SMSGate keeps a
    // deleted phone's webhooks; the phone emits nothing more once unpaired.
    this.addSql('alter table webhooks add column device_id uuid null references devices (id) on delete cascade;');
    this.addSql('create index webhooks_device_idx on webhooks (device_id) where device_id is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists webhooks_device_idx;');
    this.addSql('alter table webhooks drop column if exists device_id;');
  }
}
