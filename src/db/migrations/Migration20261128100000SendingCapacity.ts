import { Migration } from '@mikro-orm/migrations';

const NOTIFIED_BEFORE = [
  'enabled',
  'receive_enabled',
  'heartbeat_interval_minutes',
  'send_delay_seconds',
  'preferred_sim_subscription_id',
  'unpaired_at',
  'token_hash',
  'send_delay_jitter_seconds',
  'max_sends_per_minute',
  'max_sends_per_hour',
  'send_window',
];
const NOTIFIED = [...NOTIFIED_BEFORE, 'sending_capacity', 'sending_capacity_minutes', 'paused_until'];

const trigger = (columns: string[]) => `
  create trigger devices_notify_device after update on devices
    for each row when ((${columns.map((c) => `old.${c}`).join(', ')})
                       is distinct from
                       (${columns.map((c) => `new.${c}`).join(', ')}))
    execute function notify_device_of_itself();`;

/**
 * Android's own limit (issue #37): a phone's sending capacity, texts per period (stock Android: 30
 * per 30 minutes for one app), which paces its outbox like max_sends_per_minute/hour; a pause of its
 * outbox until the period frees when the phone reports the platform's limit; and, per message, when
 * the platform's limit held it back (it is handed out again as a new attempt) and the id the phone
 * knows that attempt by (the SMSGate app never sends an id it knows again). Phones paired through the SMSGate app get the platform's capacity; others none, as
 * before.
 */
export class Migration20261128100000SendingCapacity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table devices
        add column sending_capacity int null check (sending_capacity > 0),
        add column sending_capacity_minutes int not null default 30
          check (sending_capacity_minutes between 1 and 1440),
        add column paused_until timestamptz null;`);
    this.addSql(`update devices set sending_capacity = 30, sending_capacity_minutes = 30
                   where id in (select device_id from smsgate_devices);`);
    this.addSql(`
      alter table messages
        add column held_at timestamptz null,
        add column send_id uuid null;`);
    this.addSql('create unique index messages_send_id_idx on messages (send_id) where send_id is not null;');
    // The phone is told when a setting it applies changes, and its channel looks again when its pace does.
    this.addSql('drop trigger if exists devices_notify_device on devices;');
    this.addSql(trigger(NOTIFIED));
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists devices_notify_device on devices;');
    this.addSql(trigger(NOTIFIED_BEFORE));
    this.addSql('drop index if exists messages_send_id_idx;');
    this.addSql('alter table messages drop column held_at, drop column send_id;');
    this.addSql(
      'alter table devices drop column sending_capacity, drop column sending_capacity_minutes, drop column paused_until;',
    );
  }
}
