import { Migration } from '@mikro-orm/migrations';

/**
 * Every api process remembers the API keys and phone tokens in use (src/lib/credential-cache.ts) and
 * must forget one the moment it stops being valid, whatever wrote the change. A key revoked, expiring
 * differently or deleted (also by a cascade) NOTIFYs its id on `phone_gateway_api_keys`; a phone row
 * deleted NOTIFYs on the phone channel, as its unpairing and new token already do.
 */
export class Migration20261125100000CredentialChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function notify_api_key_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify('phone_gateway_api_keys', old.id::text);
        return null;
      end $$;`);
    this.addSql(`
      create trigger api_keys_notify_update after update of revoked_at, expires_at, scopes, key_hash, user_id
        on api_keys for each row execute function notify_api_key_changed();`);
    this.addSql(`
      create trigger api_keys_notify_delete after delete on api_keys
        for each row execute function notify_api_key_changed();`);
    this.addSql(`
      create function notify_device_deleted() returns trigger language plpgsql as $$
      begin
        perform pg_notify('phone_gateway_devices', old.id::text);
        return null;
      end $$;`);
    this.addSql(`
      create trigger devices_notify_delete after delete on devices
        for each row execute function notify_device_deleted();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists devices_notify_delete on devices;');
    this.addSql('drop trigger if exists api_keys_notify_delete on api_keys;');
    this.addSql('drop trigger if exists api_keys_notify_update on api_keys;');
    this.addSql('drop function if exists notify_device_deleted();');
    this.addSql('drop function if exists notify_api_key_changed();');
  }
}
