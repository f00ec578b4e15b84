import { Migration } from '@mikro-orm/migrations';

export class Migration20261124300000Failover extends Migration {
  override async up(): Promise<void> {
    // Account setting: when a phone goes offline, its messages not yet handed out move to another
    // online phone of the account (off by default: a send goes where it was sent).
    this.addSql('alter table users add column failover boolean not null default false;');
    // Moved messages are told to subscribers who ask for message.rerouted; the phone that took them
    // is told by the live channel (the trigger below), as for a new send.
    this.addSql(`
      create function notify_devices_of_moved_messages() returns trigger language plpgsql as $$
      begin
        perform pg_notify('phone_gateway_devices', device_id::text)
           from (select distinct n.device_id from moved n join before_move o on o.id = n.id
                  where n.device_id is distinct from o.device_id and n.status = 'queued'
                    and n.device_id is not null) as phones;
        return null;
      end $$;`);
    this.addSql(`
      create trigger messages_notify_moved after update of device_id on messages
        referencing old table as before_move new table as moved
        for each statement execute function notify_devices_of_moved_messages();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists messages_notify_moved on messages;');
    this.addSql('drop function if exists notify_devices_of_moved_messages();');
    this.addSql('alter table users drop column failover;');
  }
}
