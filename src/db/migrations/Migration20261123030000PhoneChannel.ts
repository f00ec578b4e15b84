import { Migration } from '@mikro-orm/migrations';

/**
 * The phones' live channel: whatever writes a phone's new work or settings, in whichever process,
 * NOTIFYs `phone_gateway_devices` with the device id when its transaction commits (src/db/
 * listen-notify.ts). Only "look again at this phone", never state; no write path can forget it.
 */
export class Migration20261123030000PhoneChannel extends Migration {
  override async up(): Promise<void> {
    // New outbound messages, once per statement and phone (a 1,000-recipient send is one notification).
    this.addSql(`
      create function notify_devices_of_messages() returns trigger language plpgsql as $$
      begin
        perform pg_notify('phone_gateway_devices', device_id::text)
           from (select distinct device_id from added
                  where direction = 'outbound' and status = 'queued' and device_id is not null) as phones;
        return null;
      end $$;`);
    this.addSql(`
      create trigger messages_notify_devices after insert on messages
        referencing new table as added for each statement execute function notify_devices_of_messages();`);

    // A scheduled batch coming due, and the phone a batch's messages are moved to.
    this.addSql(`
      create function notify_device_of_batch() returns trigger language plpgsql as $$
      begin
        perform pg_notify('phone_gateway_devices', new.device_id::text);
        return null;
      end $$;`);
    this.addSql(`
      create trigger batches_notify_device after update of status, device_id on batches
        for each row when (new.device_id is not null and
                           (old.status = 'scheduled' and new.status <> 'scheduled'
                            or old.device_id is distinct from new.device_id))
        execute function notify_device_of_batch();`);

    // Settings a phone applies, and its unpairing (heartbeats and counters change none of these).
    this.addSql(`
      create function notify_device_of_itself() returns trigger language plpgsql as $$
      begin
        perform pg_notify('phone_gateway_devices', new.id::text);
        return null;
      end $$;`);
    this.addSql(`
      create trigger devices_notify_device after update on devices
        for each row when ((old.enabled, old.receive_enabled, old.heartbeat_interval_minutes, old.send_delay_seconds,
                            old.preferred_sim_subscription_id, old.unpaired_at, old.token_hash)
                           is distinct from
                           (new.enabled, new.receive_enabled, new.heartbeat_interval_minutes, new.send_delay_seconds,
                            new.preferred_sim_subscription_id, new.unpaired_at, new.token_hash))
        execute function notify_device_of_itself();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists devices_notify_device on devices;');
    this.addSql('drop trigger if exists batches_notify_device on batches;');
    this.addSql('drop trigger if exists messages_notify_devices on messages;');
    this.addSql('drop function if exists notify_device_of_itself();');
    this.addSql('drop function if exists notify_device_of_batch();');
    this.addSql('drop function if exists notify_devices_of_messages();');
  }
}
